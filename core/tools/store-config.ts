import type { Db } from '../db/types';
import type { ToolOverride, ToolOverrides } from './types';

/**
 * The store-wide tool-config (issue 51): `tool_overrides` in the shape of an agent's, read on
 * every tool call, so kept in memory per process. A change through this process is seen at once;
 * through another within TTL_MS (as webhook subscriptions are).
 */
const TTL_MS = 5_000;
const cache = new Map<string, { overrides: ToolOverrides; confirms: boolean; at: number }>();

export interface StoreToolConfig {
  overrides: ToolOverrides;
  /** Whether any tool asks for confirmation: the MCP fast path looks no further when not. */
  confirms: boolean;
}

/** The cached config while fresh, without an await (every tool call asks: the hot path). */
export function freshStoreToolConfig(storeId: string): StoreToolConfig | undefined {
  const hit = cache.get(storeId);
  return hit && performance.now() - hit.at < TTL_MS ? hit : undefined;
}

export async function storeToolConfig(db: Db, storeId: string): Promise<StoreToolConfig> {
  const hit = freshStoreToolConfig(storeId);
  if (hit) return hit;
  const [row] = await db.query<{ tool_overrides: ToolOverrides }>('SELECT tool_overrides FROM store_tool_config WHERE store_id = $1', [storeId]);
  const overrides = row?.tool_overrides ?? {};
  const entry = { overrides, confirms: Object.values(overrides).some((o) => o.requires_confirmation), at: performance.now() };
  if (cache.size > 10_000) cache.clear();
  cache.set(storeId, entry);
  return entry;
}

/** Replaces the store's overrides (the caller merged and checked them). */
export async function saveStoreToolConfig(db: Db, storeId: string, overrides: ToolOverrides, at: Date) {
  await db.query(
    `INSERT INTO store_tool_config (store_id, tool_overrides, updated_at) VALUES ($1, $2::text::jsonb, $3)
     ON CONFLICT (store_id) DO UPDATE SET tool_overrides = EXCLUDED.tool_overrides, updated_at = EXCLUDED.updated_at`,
    [storeId, JSON.stringify(overrides), at],
  );
  cache.delete(storeId);
}

/** Whether an override names this action: true, or a list that includes it. */
export const names = (v: ToolOverride['requires_confirmation'], action: string) => v === true || (Array.isArray(v) && v.includes(action));
