import type { Db } from '../db/types';
import type { Clock } from '../clock';
import { errors, toSvcError, type SvcError } from '../errors';
import type { PluginDef, Principal, Store } from '../plugins/contract';
import { invoke } from '../plugins/invoke';
import { newRequestId } from '../http/respond';

export interface ToolCaller {
  db: Db;
  clock: Clock;
  principal: Principal;
  store: Store;
  /** Restricts calls to read actions (MCP read-only connections). */
  readOnly?: boolean;
}

export type ToolOutcome = { ok: true; result: unknown } | { ok: false; error: SvcError };

/**
 * The one path for tool calls by AI clients (MCP now, agents later): read-only check, then
 * invoke (scope check, input validation, handler in a transaction). Errors come back as values
 * so every transport can show them to the model as a tool error it can act on.
 */
export async function callTool(caller: ToolCaller, plugin: PluginDef, actionName: string | undefined, input: unknown): Promise<ToolOutcome> {
  try {
    const found = actionName ? plugin.actions[actionName] : undefined;
    // Streaming actions (agent chat) answer with an HTTP stream, not a tool result.
    const action = found?.stream ? undefined : found;
    if (!action)
      throw errors.validation(
        `Unknown action '${actionName ?? ''}' for tool ${plugin.name}. Valid actions: ${Object.keys(plugin.actions).join(', ')}.`,
        'action',
      );
    if (caller.readOnly && action.kind !== 'read')
      throw errors.scope([`a read-write connection (this one is read-only; ${plugin.name}.${actionName} changes data)`]);
    const result = await invoke(
      plugin,
      action,
      {
        db: caller.db,
        clock: caller.clock,
        principal: caller.principal,
        store: caller.store,
        requestId: newRequestId(),
        storePath: `/v1/stores/${caller.store.id}`,
      },
      input,
    );
    return { ok: true, result };
  } catch (err) {
    const e = toSvcError(err);
    if (e !== err) console.error(`tool ${plugin.name}.${actionName} failed:`, err);
    return { ok: false, error: e };
  }
}
