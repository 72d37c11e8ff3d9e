import { ErrorCode, type ReadResourceResult, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { Db } from '../db/types';
import type { Registry } from '../plugins/registry';
import { isTool, scopesFor } from '../plugins/contract';
import { hasScope } from '../plugins/invoke';
import { authorize, runTarget } from '../tools/call';
import type { ToolCaller } from '../tools/types';
import { invalidateSubscriptions } from '../events/subscriptions';
import { jsonText } from '../json-text';
import { protocolError } from './results';
import { iconsOf, titleOf } from '../tools/presentation';

/**
 * MCP resources (issue 51): one record of the store by URI, `svc://products/{id}` and the like.
 * A read is the REST GET's action run for the caller (so allowed exactly when that GET is, and
 * answering its JSON). A subscription (per MCP session, in the database) makes the record's event
 * types stored for the store (event_subscriptions, plugin `mcp`, which no reaction job serves);
 * an event of one announces the record's URI on commit (migration core/023, LISTEN/NOTIFY) to
 * the process holding the session's stream, which sends notifications/resources/updated.
 */

export const RESOURCES_CHANNEL = 'svc_mcp_resource_changed';
/** The event_subscriptions plugin name of MCP subscriptions (core/events/outbox.ts queues no reaction for it). */
export const MCP_SUBSCRIBER = 'mcp';

interface Kind {
  path: string;
  plugin: string;
  action: string;
  /** The event types whose data is this record (its `id`). */
  events: string;
}
const KINDS: Kind[] = [
  { path: 'products', plugin: 'products', action: 'get_product', events: 'product.' },
  { path: 'orders', plugin: 'orders', action: 'get_order', events: 'order.' },
  { path: 'customers', plugin: 'customers', action: 'get_customer', events: 'customer.' },
  { path: 'agents', plugin: 'agents', action: 'get_agent', events: 'agent.' },
  { path: 'tool-executions', plugin: 'tool_executions', action: 'get_execution', events: 'tool_execution.' },
];

const URI = /^svc:\/\/([a-z-]+)\/([^/?#]+)$/;

/** The kinds this registry has (a plugin may be left out) and the caller may read. */
function kinds(registry: Registry, caller?: Pick<ToolCaller, 'principal'>) {
  return KINDS.flatMap((k) => {
    const plugin = registry.byName.get(k.plugin);
    const action = plugin?.actions[k.action];
    if (!plugin || !action || !isTool(plugin, action)) return [];
    if (caller && !hasScope(caller.principal.scopes, scopesFor(plugin, action, caller.principal.kind))) return [];
    return [{ ...k, def: plugin }];
  });
}

/** resources/templates/list: one template per record kind the caller may read. */
export const resourceTemplates = (registry: Registry, caller: Pick<ToolCaller, 'principal'>): ResourceTemplate[] =>
  kinds(registry, caller).map((k) => ({
    uriTemplate: `svc://${k.path}/{id}`,
    name: k.path,
    title: `${titleOf(k.plugin).replace(/s$/, '')} by id`,
    description: `One ${k.path.replace(/-/g, ' ').replace(/s$/, '')} of this store, as GET ${k.path === 'tool-executions' ? '/tool-executions' : `/${k.path}`}/{id} answers it.`,
    mimeType: 'application/json',
    icons: iconsOf(k.def),
  }));

function parse(registry: Registry, uri: string) {
  const m = URI.exec(uri);
  const kind = m && kinds(registry).find((k) => k.path === m[1]);
  if (!m || !kind) throw protocolError(ErrorCode.InvalidParams, `Unknown resource: ${uri}. Use svc://<${KINDS.map((k) => k.path).join('|')}>/<id>.`);
  return { kind, id: decodeURIComponent(m[2]) };
}

/** resources/read: the GET's JSON, or an error (never data) for another store's id, a missing record or scope. */
export async function readResource(caller: Omit<ToolCaller, 'source'>, uri: string): Promise<ReadResourceResult> {
  const { kind, id } = parse(caller.registry, uri);
  const target = { kind: 'builtin' as const, plugin: kind.def, actionName: kind.action, input: { id } };
  const deps = { ...caller, source: 'mcp' as const };
  try {
    authorize(deps, target);
  } catch (err: any) {
    throw protocolError(ErrorCode.InvalidParams, `${err?.code ?? 'permission_error'}: ${err?.message ?? 'not allowed'}`);
  }
  const run = await runTarget(deps, target);
  if (run.status !== 'success') {
    const e = run.error;
    // -32002: the spec's "resource not found" (another store's id is not found either).
    throw protocolError(e.status === 404 ? -32002 : ErrorCode.InvalidParams, `${e.code}: ${e.message}`, { uri });
  }
  return { contents: [{ uri, mimeType: 'application/json', text: jsonText(run.result) }] };
}

/**
 * resources/subscribe: kept per session; the record's event types are stored for the store from now
 * on. A plugin's resource (`plugin`: core/mcp/plugin-content.ts) is kept too; no event announces it.
 */
export async function subscribe(db: Db, registry: Registry, storeId: string, sessionId: string, uri: string, plugin = false) {
  if (plugin) {
    await db.query(
      'INSERT INTO mcp_resource_subscriptions (session_id, store_id, uri, created_at) VALUES ($1, $2, $3, now()) ON CONFLICT DO NOTHING',
      [sessionId, storeId, uri],
    );
    return {};
  }
  const { kind } = parse(registry, uri);
  const types = [...registry.events.keys()].filter((t) => t.startsWith(kind.events));
  await db.transaction(async (tx) => {
    await tx.query(
      'INSERT INTO mcp_resource_subscriptions (session_id, store_id, uri, created_at) VALUES ($1, $2, $3, now()) ON CONFLICT DO NOTHING',
      [sessionId, storeId, uri],
    );
    await tx.query(
      `INSERT INTO event_subscriptions (store_id, plugin, type) SELECT $1, '${MCP_SUBSCRIBER}', t FROM unnest($2::text[]) AS t ON CONFLICT DO NOTHING`,
      [storeId, types],
    );
  });
  invalidateSubscriptions(storeId);
  return {};
}

export async function unsubscribe(db: Db, storeId: string, sessionId: string, uri: string) {
  await db.query('DELETE FROM mcp_resource_subscriptions WHERE session_id = $1 AND uri = $2', [sessionId, uri]);
  return {};
}

/** The sessions subscribed to a record of this store that changed: `svc://<kind>/<id>` for an event's type and id. */
export async function subscribersOf(db: Db, storeId: string, type: string, id: string) {
  const kind = KINDS.find((k) => type.startsWith(k.events));
  if (!kind) return undefined;
  const uri = `svc://${kind.path}/${id}`;
  const rows = await db.query<{ session_id: string }>('SELECT session_id FROM mcp_resource_subscriptions WHERE store_id = $1 AND uri = $2', [
    storeId,
    uri,
  ]);
  return { uri, sessions: rows.map((r) => r.session_id) };
}

const listening = new WeakMap<Db, Promise<unknown>>();
/** Calls `onChange` for each announced change of a subscribed record (one listener per process and database). */
export function watchResources(db: Db, onChange: (storeId: string, type: string, id: string) => void) {
  let l = listening.get(db);
  if (!l) {
    l = db
      .listen(RESOURCES_CHANNEL, (payload) => {
        try {
          const { store_id, type, id } = JSON.parse(payload);
          if (id) onChange(String(store_id), String(type), String(id));
        } catch {}
      })
      .catch(() => listening.delete(db));
    listening.set(db, l);
  }
  return l;
}
