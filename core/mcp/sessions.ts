import { RETENTION } from '../db/retention';
import type { Db } from '../db/types';
import type { Clock } from '../clock';
import type { ToolOptions } from '../tools/catalog';

export interface McpSession {
  id: string;
  apiKeyId: string;
  storeId: string;
  protocolVersion: string;
  options: ToolOptions;
}

const IDLE_EXPIRY_MS = RETENTION.mcp_sessions.ms;
const TOUCH_EVERY_MS = 5 * 60_000;
const CACHE_MS = 5_000;

/**
 * Sessions in the database, so any API process can serve any session. Lookups are cached for a
 * few seconds (a session deleted by another process may live on there that long) and last-use
 * is written at most every five minutes, so a session costs no write per request.
 */
export class McpSessions {
  private cache = new Map<string, { session: McpSession | undefined; at: number; touchedAt: number }>();

  constructor(private db: Db, private clock: Clock) {}

  async create(s: Omit<McpSession, 'id'>): Promise<McpSession> {
    const id = Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64url');
    const now = this.clock.now();
    await this.db.query(
      `INSERT INTO mcp_sessions (id, api_key_id, store_id, protocol_version, options, created_at, last_used_at)
       VALUES ($1, $2, $3, $4, $5::text::jsonb, $6, $6)`,
      [id, s.apiKeyId, s.storeId, s.protocolVersion, JSON.stringify(s.options), now],
    );
    const session = { id, ...s };
    this.cache.set(id, { session, at: performance.now(), touchedAt: now.getTime() });
    return session;
  }

  async get(id: string): Promise<McpSession | undefined> {
    const cached = this.cache.get(id);
    const nowMs = this.clock.now().getTime();
    if (cached && performance.now() - cached.at < CACHE_MS) {
      if (cached.session && nowMs - cached.touchedAt > TOUCH_EVERY_MS) {
        cached.touchedAt = nowMs;
        await this.db.query('UPDATE mcp_sessions SET last_used_at = $2 WHERE id = $1', [id, new Date(nowMs)]);
      }
      return cached.session;
    }
    const [row] = await this.db.query(
      `UPDATE mcp_sessions SET last_used_at = $2 WHERE id = $1 AND last_used_at > $3
       RETURNING id, api_key_id, store_id, protocol_version, options`,
      [id, new Date(nowMs), new Date(nowMs - IDLE_EXPIRY_MS)],
    );
    const session = row
      ? { id: row.id, apiKeyId: row.api_key_id, storeId: row.store_id, protocolVersion: row.protocol_version, options: row.options }
      : undefined;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(id, { session, at: performance.now(), touchedAt: nowMs });
    return session;
  }

  async setOptions(id: string, options: ToolOptions) {
    await this.db.query('UPDATE mcp_sessions SET options = $2::text::jsonb WHERE id = $1', [id, JSON.stringify(options)]);
    const cached = this.cache.get(id);
    if (cached?.session) cached.session = { ...cached.session, options };
  }

  async delete(id: string): Promise<boolean> {
    this.cache.delete(id);
    const rows = await this.db.query('DELETE FROM mcp_sessions WHERE id = $1 RETURNING id', [id]);
    return rows.length > 0;
  }
}

