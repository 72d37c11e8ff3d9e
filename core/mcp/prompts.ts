import { ErrorCode, type GetPromptResult, type Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { ToolCaller } from '../tools/types';
import { runTarget } from '../tools/call';
import { protocolError } from './results';

/**
 * MCP prompts (issue 51): three starting points for a person at an MCP client, each asking the
 * model to use the store's own tools (names as this connection lists them: grouped `orders` with
 * an action, or flat `orders_list_orders`).
 */

interface PromptDef {
  prompt: Prompt;
  text: (args: Record<string, string | undefined>, ctx: { tool: (t: string, a: string) => string; today: string; timezone: string }) => string;
}

const PROMPTS: PromptDef[] = [
  {
    prompt: {
      name: 'daily_operations_summary',
      title: 'Daily operations summary',
      description: "A summary of one day's sales, orders, stock and pending approvals.",
      arguments: [{ name: 'date', description: "The day, YYYY-MM-DD (default: today in the store's timezone).", required: false }],
    },
    text: (a, { tool, today, timezone }) => {
      const date = a.date ?? today;
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw protocolError(ErrorCode.InvalidParams, `Invalid date '${date}': use YYYY-MM-DD.`);
      return [
        `Summarize this store's operations for ${date} (store timezone ${timezone}).`,
        `1. Sales: call ${tool('analytics', 'sales_report')} for that day (from ${date}, to ${date}).`,
        `2. Orders: call ${tool('orders', 'list_orders')} for orders created that day; note any pending or cancelled ones.`,
        `3. Stock: call ${tool('analytics', 'inventory_report')} and name products low on stock.`,
        `4. Approvals: call ${tool('tool_executions', 'list_executions')} with status pending_approval.`,
        'Answer with a short headline, then one bullet per section, with figures in the store currency.',
      ].join('\n');
    },
  },
  {
    prompt: {
      name: 'review_pending_approvals',
      title: 'Review pending approvals',
      description: 'Goes through the tool calls waiting for an approver, oldest first, with a recommendation for each.',
      arguments: [{ name: 'limit', description: 'How many to review (default 20).', required: false }],
    },
    text: (a, { tool }) => {
      const limit = a.limit === undefined ? 20 : Number(a.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        throw protocolError(ErrorCode.InvalidParams, `Invalid limit '${a.limit}': a whole number from 1 to 100.`);
      return [
        `Review up to ${limit} tool calls waiting for approval in this store.`,
        `Call ${tool('tool_executions', 'list_executions')} with status pending_approval and limit ${limit}.`,
        'For each: say which tool and action, who asked (agent or key), what the input would do in plain words, and when the approval window closes.',
        'Recommend approve or reject with a one-line reason. Do not approve or reject anything yourself: a person decides.',
      ].join('\n');
    },
  },
  {
    prompt: {
      name: 'low_stock_check',
      title: 'Low stock check',
      description: 'Lists the products at or below a stock threshold and suggests what to reorder.',
      arguments: [{ name: 'threshold', description: 'Units at or below which stock is low (default 5).', required: false }],
    },
    text: (a, { tool }) => {
      const threshold = a.threshold === undefined ? 5 : Number(a.threshold);
      if (!Number.isInteger(threshold) || threshold < 0)
        throw protocolError(ErrorCode.InvalidParams, `Invalid threshold '${a.threshold}': a whole number, 0 or more.`);
      return [
        `Find this store's products with ${threshold} units or fewer in stock.`,
        `Call ${tool('inventory', 'list_inventory')} (or ${tool('analytics', 'inventory_report')} with low_stock_threshold ${threshold}).`,
        'List each product with its SKU, units on hand and recent sales, then suggest reorder quantities for the ones selling fastest.',
      ].join('\n');
    },
  },
];

export const listPrompts = () => ({ prompts: PROMPTS.map((p) => p.prompt) });

/** prompts/get: the prompt's one user message; an unknown prompt is -32602. */
export async function getPrompt(
  caller: Omit<ToolCaller, 'source'>,
  mode: 'grouped' | 'flat',
  name: string,
  args: Record<string, string> = {},
): Promise<GetPromptResult> {
  const def = PROMPTS.find((p) => p.prompt.name === name);
  if (!def) throw protocolError(ErrorCode.InvalidParams, `Unknown prompt: ${name}. Available: ${PROMPTS.map((p) => p.prompt.name).join(', ')}.`);
  const timezone = await storeTimezone(caller);
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    caller.clock.now(),
  );
  const tool = (t: string, a: string) => (mode === 'flat' ? `${t}_${a}` : `${t} (action ${a})`);
  return {
    description: def.prompt.description,
    messages: [{ role: 'user', content: { type: 'text', text: def.text(args, { tool, today, timezone }) } }],
  };
}

/** The store's timezone (store.get_store's settings), UTC when unknown. */
async function storeTimezone(caller: Omit<ToolCaller, 'source'>): Promise<string> {
  const plugin = caller.registry.byName.get('store');
  if (!plugin?.actions.get_store) return 'UTC';
  const run = await runTarget(caller, { kind: 'builtin', plugin, actionName: 'get_store', input: {} });
  const tz = run.status === 'success' ? (run.result as any)?.settings?.timezone : undefined;
  return typeof tz === 'string' && tz ? tz : 'UTC';
}
