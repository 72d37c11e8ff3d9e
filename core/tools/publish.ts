/**
 * Publishing a custom tool to every store (issue 20 §2). A store cannot do it on its own say: a
 * public tool can be offered to any store's agents and MCP clients, which then send it their data.
 * The operator reviews a tool and publishes it through the admin API; each store still opts in
 * (an explicit enable, or an agent naming the tool). Unpublishing withdraws it from every store
 * and drops their enablements, so publishing it again needs each store's opt-in again.
 */
import type { Clock } from '../clock';
import type { Db } from '../db/types';
import { errors } from '../errors';
import { toCustomTool } from './custom';
import type { CustomTool } from './types';

/** The operator's view of a tool: the Shape B fields plus the store that owns it. */
export function adminToolView(t: CustomTool) {
  return {
    object: 'tool' as const,
    id: t.id,
    store_id: t.store_id,
    name: t.name,
    description: t.description,
    category: t.category,
    parameters: t.input_schema,
    execution_type: t.kind,
    execution_config: t.config,
    visibility: t.visibility,
    requires_plan: t.requires_plan,
    requires_approval: t.requires_approval,
    requires_confirmation: t.requires_confirmation,
    secret_names: t.secret_names,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function toolById(db: Db, id: string): Promise<CustomTool> {
  const [row] = UUID.test(id) ? await db.query('SELECT * FROM custom_tools WHERE id = $1', [id]) : [];
  if (!row) throw errors.notFound(`tool: '${id}'`, 'id');
  return toCustomTool(row);
}

// The scheme, host and port of a URL template, up to the path.
const ORIGIN = /^[^/]*\/\/[^/?#]*/;

/**
 * Publishes a tool (idempotent). Refused: a name another public tool has (stores name tools in
 * agents), and an HTTP tool whose host is a secret reference: where it sends data must be
 * visible to the operator now, not chosen later by changing a secret.
 */
export async function publishTool(db: Db, clock: Clock, id: string): Promise<CustomTool> {
  const tool = await toolById(db, id);
  if (tool.visibility === 'public') return tool;
  const url = tool.kind === 'http' ? String((tool.config as { url?: unknown }).url ?? '') : '';
  if (ORIGIN.exec(url)?.[0].includes('{{'))
    throw errors.validation(
      `Invalid execution_config.url: a published tool's host must be written out, not a secret reference ('${url}').`,
      'execution_config.url',
    );
  return db.transaction(async (tx) => {
    const [clash] = await tx.query(`SELECT id FROM custom_tools WHERE visibility = 'public' AND name = $1 AND id <> $2 LIMIT 1`, [tool.name, id]);
    if (clash)
      throw errors.conflict(`Another public tool is named '${tool.name}' (${clash.id}); public tool names are unique.`, 'duplicate_name', 'name');
    const [row] = await tx.query(`UPDATE custom_tools SET visibility = 'public', updated_at = $2 WHERE id = $1 RETURNING *`, [id, clock.now()]);
    return toCustomTool(row);
  });
}

/** Makes a tool private again and drops every store's enablement of it; returns the stores that had enabled it. */
export async function unpublishTool(db: Db, clock: Clock, id: string): Promise<{ tool: CustomTool; stores: string[] }> {
  const tool = await toolById(db, id);
  if (tool.visibility === 'private') return { tool, stores: [] };
  return db.transaction(async (tx) => {
    const [row] = await tx.query(`UPDATE custom_tools SET visibility = 'private', updated_at = $2 WHERE id = $1 RETURNING *`, [id, clock.now()]);
    const stores = await tx.query<{ store_id: string }>('DELETE FROM custom_tool_enablements WHERE tool_id = $1 RETURNING store_id', [id]);
    return { tool: toCustomTool(row), stores: stores.map((s) => s.store_id) };
  });
}
