import type { Static } from '@sinclair/typebox';
import { errors, iso, isUniqueViolation, listPage, rowOr404, setClause, type Ctx, type PluginDef, type Row } from '../../core/sdk';
import type { Agent, AgentCreate, AgentQuery, AgentUpdate, ConversationQuery } from './schemas';
import { chatModel, type ChatMessage, type ProviderConfig } from '../../core/sdk';
import { publicToolNames, usableCustomTools } from '../../core/platform';

export type AgentT = Static<typeof Agent>;

export function toAgent(r: Row): AgentT {
  return {
    object: 'agent',
    id: r.id,
    name: r.name,
    model: r.model,
    system_prompt: r.system_prompt,
    tools: r.tools,
    channels: r.channels,
    is_default: r.is_default,
    status: r.status,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** What the agents plugin needs from outside itself: the registry (its tools) and the settings. */
export interface AgentDeps {
  plugins: () => readonly PluginDef[];
  providers: ProviderConfig;
  /** Keep-alive interval of a chat stream waiting for an approval (tests shorten it). */
  keepAliveMs?: number;
  /** How often a chat waiting for an approval checks for the decision (tests shorten it). */
  approvalPollMs?: number;
}

/**
 * The tool names an agent of this store may be given: registry categories, the store's usable
 * custom tools, and any tool the operator published (naming one enables it for that agent).
 */
export async function knownTools(deps: AgentDeps, ctx: Pick<Ctx, 'db' | 'store'>) {
  const builtin = deps.plugins().map((p) => p.name);
  const usable = (await usableCustomTools(ctx.db, ctx.store.id)).map((t) => t.name);
  const custom = [...new Set([...usable, ...(await publicToolNames(ctx.db))])];
  return { builtin, custom, all: new Set([...builtin, ...custom]) };
}

/** An unknown tool name is a 400 naming `tools.N`. */
async function checkTools(deps: AgentDeps, ctx: Ctx, tools: string[] | undefined) {
  if (!tools) return;
  const known = await knownTools(deps, ctx);
  tools.forEach((t, i) => {
    if (!known.all.has(t))
      throw errors.validation(
        `Unknown tool '${t}'. Valid tools: ${known.builtin.join(', ')}, or a custom tool's name${known.custom.length ? ` (${known.custom.join(', ')})` : ''}.`,
        `tools.${i}`,
      );
  });
}

const dedupe = (xs: string[] | undefined) => (xs ? [...new Set(xs)] : xs);
const clearDefault = (ctx: Ctx, exceptId: string) =>
  ctx.db.query('UPDATE agents SET is_default = false, updated_at = $3 WHERE store_id = $1 AND is_default AND id <> $2', [
    ctx.store.id,
    exceptId,
    ctx.clock.now(),
  ]);
const anotherDefault = () => errors.conflict('Another agent became the default at the same time; retry.', 'conflict_error', 'is_default');

export async function createAgent(deps: AgentDeps, ctx: Ctx, input: Static<typeof AgentCreate>) {
  await checkTools(deps, ctx, input.tools);
  chatModel(input.model, deps.providers); // a model nobody can answer is refused now, not at the first chat
  const id = crypto.randomUUID();
  const now = ctx.clock.now();
  if (input.is_default) await clearDefault(ctx, id);
  try {
    const [row] = await ctx.db.query(
      `INSERT INTO agents (id, store_id, name, model, system_prompt, tools, channels, is_default, status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7::text::jsonb, $8, 'active', $9, $9) RETURNING *`,
      [
        id,
        ctx.store.id,
        input.name,
        input.model,
        input.system_prompt ?? '',
        JSON.stringify(dedupe(input.tools) ?? []),
        JSON.stringify(input.channels ?? ['webchat', 'api']),
        input.is_default ?? false,
        now,
      ],
    );
    return toAgent(row);
  } catch (e) {
    if (isUniqueViolation(e)) throw anotherDefault();
    throw e;
  }
}

export const agentRow = (ctx: Pick<Ctx, 'db' | 'store'>, id: string) =>
  rowOr404(ctx.db, { table: 'agents', storeId: ctx.store.id, id, noun: 'agent' });

export const listAgents = (ctx: Ctx, input: Static<typeof AgentQuery>) =>
  listPage(ctx, { table: 'agents', path: '/agents', input }, (rows) => rows.map(toAgent));

export async function updateAgent(deps: AgentDeps, ctx: Ctx, input: Static<typeof AgentUpdate>) {
  await agentRow(ctx, input.id);
  await checkTools(deps, ctx, input.tools);
  if (input.model) chatModel(input.model, deps.providers);
  if (input.is_default) await clearDefault(ctx, input.id);
  const set = setClause(
    {
      updated_at: ctx.clock.now(),
      name: input.name,
      model: input.model,
      system_prompt: input.system_prompt,
      tools: dedupe(input.tools),
      channels: input.channels,
      is_default: input.is_default,
      status: input.status,
    },
    { json: ['tools', 'channels'], after: 2 },
  );
  try {
    const [row] = await ctx.db.query(`UPDATE agents SET ${set.sql} WHERE store_id = $1 AND id = $2 RETURNING *`, [
      ctx.store.id,
      input.id,
      ...set.params,
    ]);
    return toAgent(row);
  } catch (e) {
    if (isUniqueViolation(e)) throw anotherDefault();
    throw e;
  }
}

export async function deleteAgent(ctx: Ctx, { id }: { id: string }) {
  const rows = await ctx.db.query('DELETE FROM agents WHERE store_id = $1 AND id = $2 RETURNING id', [ctx.store.id, id]);
  if (!rows.length) throw errors.notFound(`agent: '${id}'`, 'id');
  return { id, object: 'agent', deleted: true };
}

const toConversation = (r: Row) => ({
  object: 'conversation' as const,
  id: r.id,
  agent_id: r.agent_id,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export async function listConversations(ctx: Ctx, input: Static<typeof ConversationQuery>) {
  await agentRow(ctx, input.id);
  return listPage(
    ctx,
    { table: 'agent_conversations', path: `/agents/${input.id}/conversations`, input, filters: { 'agent_id = $': input.id } },
    (rows) => rows.map(toConversation),
  );
}

export async function conversationRow(ctx: Pick<Ctx, 'db' | 'store'>, agentId: string, id: string): Promise<Row> {
  const [row] = await ctx.db.query('SELECT * FROM agent_conversations WHERE store_id = $1 AND agent_id = $2 AND id = $3', [
    ctx.store.id,
    agentId,
    id,
  ]);
  if (!row) throw errors.notFound(`conversation: '${id}'`, 'conversation_id');
  return row;
}

export interface StoredMessage {
  id: string;
  message: ChatMessage;
  created_at: string;
}

export async function messagesOf(ctx: Pick<Ctx, 'db' | 'store'>, conversationId: string): Promise<StoredMessage[]> {
  const rows = await ctx.db.query('SELECT * FROM agent_messages WHERE store_id = $1 AND conversation_id = $2 ORDER BY seq', [
    ctx.store.id,
    conversationId,
  ]);
  return rows.map((r) => ({ id: r.id, message: r.content, created_at: iso(r.created_at) }));
}

/** A stored turn as the API shows it. */
export function toMessage(m: StoredMessage) {
  const base = { object: 'agent_message' as const, id: m.id, role: m.message.role, created_at: m.created_at };
  const msg = m.message;
  if (msg.role === 'user') return { ...base, text: msg.text };
  if (msg.role === 'assistant')
    return { ...base, text: msg.text, tool_calls: msg.toolCalls.map((c) => ({ id: c.id, tool: c.name, input: c.input })) };
  return { ...base, tool_results: msg.results.map((r) => ({ id: r.id, tool: r.name, content: r.content, is_error: r.isError })) };
}

export async function getConversation(ctx: Ctx, input: { id: string; conversation_id: string }) {
  await agentRow(ctx, input.id);
  const row = await conversationRow(ctx, input.id, input.conversation_id);
  return { ...toConversation(row), messages: (await messagesOf(ctx, row.id)).map(toMessage) };
}
