import { errors } from '../errors';
import { runInSandbox } from '../sandbox/pool';
import { ASYNC_FUNCTION } from '../sandbox/constants';
import type { CustomTool, TimeoutAction, ToolOverride } from './types';

/** Why and how a call waits for a human: stored with the execution. */
export interface Gate {
  gated_by: 'tool' | 'agent' | 'condition';
  message: string;
  timeout_minutes: number;
  timeout_action: TimeoutAction;
  escalation_group: string | null;
}

export const DEFAULT_APPROVAL_MINUTES = 30;
// A condition is a small expression: it gets a short, separate budget, not a tool's 10 s.
const CONDITION_LIMITS = { timeoutMs: 250, memoryBytes: 8 * 1024 * 1024 };

const conditionCode = (when: string) => `return (${when}\n);`;

/**
 * Evaluates an approval condition over the call's input in the QuickJS sandbox (never the host's
 * eval): true gates. A condition that throws or runs away gates too: when in doubt, ask a human.
 */
async function conditionHolds(when: string, input: unknown): Promise<{ holds: boolean; note?: string }> {
  const out = await runInSandbox(conditionCode(when), { input }, CONDITION_LIMITS);
  if (!out.ok) return { holds: true, note: `the condition could not be evaluated (${out.message}), so approval is required` };
  return { holds: Boolean(out.result) };
}

/** At PATCH time: a `when` that does not compile is a 400 naming it, not a surprise gate later. */
export async function checkCondition(when: string, param: string) {
  const out = await runInSandbox(`${ASYNC_FUNCTION}('input', ${JSON.stringify(conditionCode(when))}); return true;`, {}, CONDITION_LIMITS);
  if (!out.ok) throw errors.validation(`Invalid ${param}: ${out.message}.`, param);
}

/**
 * Whether a call must wait for approval (SPEC 3.1/4.5), and on what terms. The tool's own
 * requires_approval is a floor an agent's override can add to (a list of gated actions, or
 * conditions), and auto_approve is the one way to lift a gate for an action.
 */
export async function gateFor(
  tool: string,
  action: string,
  input: unknown,
  override: ToolOverride | undefined,
  custom: CustomTool | undefined,
): Promise<Gate | null> {
  if (override?.auto_approve?.includes(action)) return null;
  const what = `${tool}${action === 'run' && custom ? '' : `.${action}`}`;
  // The terms of a gated call: the override's, else the tool's own, else the defaults.
  const gate = (gated_by: Gate['gated_by'], message: string): Gate => ({
    gated_by,
    message,
    timeout_minutes: override?.approval_timeout_minutes ?? custom?.approval_timeout_minutes ?? DEFAULT_APPROVAL_MINUTES,
    timeout_action: override?.timeout_action ?? custom?.timeout_action ?? 'reject',
    escalation_group: override?.escalation_group ?? custom?.escalation_group ?? null,
  });
  const gated = override?.requires_approval;
  if (gated === true || (Array.isArray(gated) && gated.includes(action))) return gate('agent', `${what} requires approval for this agent.`);
  if (custom?.requires_approval) return gate('tool', `${what} requires approval.`);
  const condition = override?.approval_conditions?.[action];
  if (condition) {
    const { holds, note } = await conditionHolds(condition.when, input);
    if (holds) return gate('condition', note ? `${what}: ${note}.` : condition.message || `${what} requires approval: ${condition.when}.`);
  }
  return null;
}
