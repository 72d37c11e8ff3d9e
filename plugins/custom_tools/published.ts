/**
 * Public tools as a store sees them (issue 20 §2). Publishing a tool to every store is the
 * operator's act (POST /v1/admin/tools/{id}/publish, core/tools/publish.ts), never a store's: a
 * public tool reaches other stores' agents, which send it their data. A store sees the public
 * tools of other stores in its lists (`owned: false`), may read and test them, and never change
 * them (403); its agents and MCP clients are offered one only once it enables it
 * (POST .../{id}/enable) or an agent names it in its `tools`.
 */
import { errors, fail, type Ctx, type Row } from '../../core/sdk';
import { toCustomTool, type CustomTool } from '../../core/platform';
import { announce } from './announce';

/** How the calling store relates to a tool: its own, or another store's public tool it did or did not enable. */
export interface Access {
  owned: boolean;
  /** Offered to this store's agents and MCP clients: always for its own tools. */
  enabled: boolean;
}
export const OWN: Access = { owned: true, enabled: true };

// A store's tools and the public tools of others, each with whether this store enabled it ($1: the store).
const VISIBLE = `SELECT t.*, e.tool_id IS NOT NULL AS enabled FROM custom_tools t
  LEFT JOIN custom_tool_enablements e ON e.tool_id = t.id AND e.store_id = $1
  WHERE (t.store_id = $1 OR t.visibility = 'public')`;

function withAccess(row: Row, storeId: string): { tool: CustomTool; access: Access } {
  const { enabled, ...stored } = row;
  const tool = toCustomTool(stored);
  const owned = tool.store_id === storeId;
  return { tool, access: { owned, enabled: owned || Boolean(enabled) } };
}

/** A tool this store may read and test: its own, or another store's public tool; anything else is 404. */
export async function readableTool(ctx: Pick<Ctx, 'db' | 'store'>, id: string) {
  const [row] = await ctx.db.query(`${VISIBLE} AND t.id = $2`, [ctx.store.id, id]);
  if (!row) throw errors.notFound(`tool: '${id}'`, 'id');
  return withAccess(row, ctx.store.id);
}

/** A tool this store may change: its own. Another store's public tool is a 403 (it is visible here); anything else 404. */
export async function ownTool(ctx: Pick<Ctx, 'db' | 'store'>, id: string): Promise<CustomTool> {
  const { tool, access } = await readableTool(ctx, id);
  if (!access.owned)
    throw fail(
      'insufficient_scope',
      `The tool '${tool.name}' belongs to another store and is published to all stores: it is read-only here. Enable or disable it for this store with POST .../${tool.id}/enable or .../disable.`,
      'id',
    );
  return tool;
}

/** The definition fields a change compares (everything a store can set). */
const FIELDS = [
  'name',
  'description',
  'category',
  'input_schema',
  'kind',
  'config',
  'requires_plan',
  'requires_approval',
  'requires_confirmation',
  'approval_timeout_minutes',
  'timeout_action',
  'escalation_group',
] as const;

/** JSON with object keys sorted: stored jsonb does not keep the key order a request used. */
const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(',')}]`
    : v && typeof v === 'object'
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : JSON.stringify(v ?? null);

/**
 * A store's create or change, as far as publishing goes: asking for `public` is a 403 naming
 * `visibility` (the operator publishes); changing a published tool is a 409, since the change would
 * reach every store that enabled it without review. Making one's own published tool private again
 * (withdrawing it) is allowed, with or without other changes.
 */
export function checkPublishing(current: Record<string, any> | undefined, next: Record<string, any>, privateName: 'private' | 'store') {
  if (next.visibility === 'public' && current?.visibility !== 'public')
    throw fail(
      'insufficient_scope',
      `Publishing a tool to every store is the operator's decision: save it with visibility ${privateName}, then ask the operator to publish it (POST /v1/admin/tools/{id}/publish).`,
      'visibility',
    );
  if (current?.visibility === 'public' && next.visibility === 'public') {
    const changed = FIELDS.find((f) => canonical(current[f]) !== canonical(next[f]));
    if (changed)
      throw errors.conflict(
        `The tool is published to every store, so a change would reach them without the operator's review. Withdraw it first (visibility ${privateName}), change it, then ask the operator to publish it again.`,
        'tool_published',
        'visibility',
      );
  }
}

/** The store's tools and the public tools of other stores, newest first, with cursor pagination. */
export async function visibleTools(ctx: Pick<Ctx, 'db' | 'store'>, input: { limit?: number; starting_after?: string; ending_before?: string }) {
  if (input.starting_after && input.ending_before) throw errors.validation('Pass only one of starting_after and ending_before.', 'ending_before');
  const limit = input.limit ?? 10;
  const params: unknown[] = [ctx.store.id];
  let cursor = '';
  const cursorId = input.starting_after ?? input.ending_before;
  const backwards = Boolean(input.ending_before);
  if (cursorId) {
    const [found] = await ctx.db.query(`${VISIBLE} AND t.id = $2`, [ctx.store.id, cursorId]);
    if (!found) throw errors.badRequest('invalid_cursor', `No such object: ${cursorId}.`, backwards ? 'ending_before' : 'starting_after');
    params.push(found.seq);
    cursor = ` AND t.seq ${backwards ? '>' : '<'} $2`;
  }
  params.push(limit + 1);
  const rows = await ctx.db.query(`${VISIBLE}${cursor} ORDER BY t.seq ${backwards ? 'ASC' : 'DESC'} LIMIT $${params.length}`, params);
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  return { items: page.map((r) => withAccess(r, ctx.store.id)), has_more: rows.length > limit };
}

/** POST .../enable: this store offers another store's public tool to its agents and MCP clients. */
export async function enableTool(ctx: Ctx, id: string) {
  const { tool, access } = await readableTool(ctx, id);
  if (access.owned)
    throw errors.validation(
      `The tool '${tool.name}' is this store's own: its own tools are always offered; enable and disable are for public tools of other stores.`,
      'id',
    );
  const [clash] = await ctx.db.query('SELECT id FROM custom_tools WHERE store_id = $1 AND name = $2', [ctx.store.id, tool.name]);
  if (clash)
    throw errors.conflict(
      `This store has its own tool named '${tool.name}' (${clash.id}); rename it to enable the public one.`,
      'duplicate_name',
      'name',
    );
  // Only while it is public: a tool unpublished meanwhile is not enabled (a later publish starts afresh).
  await ctx.db.query(
    `INSERT INTO custom_tool_enablements (store_id, tool_id, created_at)
     SELECT $1, id, $3 FROM custom_tools WHERE id = $2 AND visibility = 'public' ON CONFLICT DO NOTHING`,
    [ctx.store.id, tool.id, ctx.clock.now()],
  );
  announce(ctx, ctx.store.id, 'private');
  return readableTool(ctx, id);
}

/** POST .../disable: no longer offered here (idempotent). */
export async function disableTool(ctx: Ctx, id: string) {
  const { tool, access } = await readableTool(ctx, id);
  if (access.owned) throw errors.validation(`The tool '${tool.name}' is this store's own: to stop offering it, delete it.`, 'id');
  await ctx.db.query('DELETE FROM custom_tool_enablements WHERE store_id = $1 AND tool_id = $2', [ctx.store.id, tool.id]);
  announce(ctx, ctx.store.id, 'private');
  return { tool, access: { owned: false, enabled: false } };
}
