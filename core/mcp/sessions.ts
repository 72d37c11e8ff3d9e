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
/** How long an unknown id stays known as unknown (it never becomes valid: ids are random). */
const NEGATIVE_CACHE_MS = 5_000;

const SESSION_COLUMNS = 'id, api_key_id, store_id, protocol_version, options';
const toSession = (row: any): McpSession | undefined =>
  row ? { id: row.id, apiKeyId: row.api_key_id, storeId: row.store_id, protocolVersion: row.protocol_version, options: row.options } : undefined;

/**
 * Sessions in the database, so any API process can serve any session. Every request reads the
 * session's row (one primary-key lookup), so a session terminated through any process is gone on
 * all of them at once; last-use is written at most every five minutes, so a session costs no
 * write per request.
 */
export class McpSessions {
  private cache = new Map<string, { session: McpSession | undefined; at: number; touchedAt: number }>();

  constructor(
    private db: Db,
    private clock: Clock,
  ) {}

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
    if (cached && !cached.session && performance.now() - cached.at < NEGATIVE_CACHE_MS) return undefined;
    if (cached?.session && nowMs - cached.touchedAt <= TOUCH_EVERY_MS) {
      // Touched lately (so not idle): only whether it still exists, and its current options, are news.
      const [row] = await this.db.query(`SELECT ${SESSION_COLUMNS} FROM mcp_sessions WHERE id = $1`, [id]);
      if (!row) this.cache.delete(id);
      return toSession(row);
    }
    const [row] = await this.db.query(`UPDATE mcp_sessions SET last_used_at = $2 WHERE id = $1 AND last_used_at > $3 RETURNING ${SESSION_COLUMNS}`, [
      id,
      new Date(nowMs),
      new Date(nowMs - IDLE_EXPIRY_MS),
    ]);
    const session = toSession(row);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(id, { session, at: performance.now(), touchedAt: nowMs });
    return session;
  }

  async setOptions(id: string, options: ToolOptions) {
    await this.db.query('UPDATE mcp_sessions SET options = $2::text::jsonb WHERE id = $1', [id, JSON.stringify(options)]);
  }

  async delete(id: string): Promise<boolean> {
    this.cache.delete(id);
    const rows = await this.db.query('DELETE FROM mcp_sessions WHERE id = $1 RETURNING id', [id]);
    return rows.length > 0;
  }
}
