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
/** How long a copy of a session is used without reading its row, while announcements are heard. */
const TRUST_MS = 5_000;

const SESSION_COLUMNS = 'id, api_key_id, store_id, protocol_version, options';
const toSession = (row: any): McpSession | undefined =>
  row ? { id: row.id, apiKeyId: row.api_key_id, storeId: row.store_id, protocolVersion: row.protocol_version, options: row.options } : undefined;

/**
 * Every McpSessions of this process by database, so a session ended or changed through one of
 * them (or announced by the database) is forgotten by all at once.
 */
const instances = new WeakMap<Db, Set<McpSessions>>();

/** Drops a session from every in-memory copy this process keeps for `db` (it is read again when next used). */
export function forgetSession(db: Db, id: string) {
  for (const sessions of instances.get(db) ?? []) sessions.forget(id);
}

/**
 * Sessions in the database, so any API process can serve any session. A process keeps the
 * sessions it serves in memory and trusts its copy for TRUST_MS while it hears the database's
 * announcements (`heard`): a session deleted or changed anywhere is announced on commit
 * (migrations core/010, 011) and forgotten here at once, so a tools/call costs no session read.
 * Without the announcements (not listening yet, or the listening connection was lost) every
 * request reads the row; and a copy is never older than TRUST_MS, which bounds what a lost
 * announcement can leave behind. Last-use is written at most every five minutes.
 */
export class McpSessions {
  private cache = new Map<string, { session: McpSession | undefined; at: number; touchedAt: number }>();

  constructor(
    private db: Db,
    private clock: Clock,
  ) {
    let all = instances.get(db);
    if (!all) instances.set(db, (all = new Set()));
    all.add(this);
  }

  forget(id: string) {
    this.cache.delete(id);
  }

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

  /**
   * The copy in memory when it may stand in for the row right now (see get), without an await: the
   * tools/call hot path asks this first. Undefined means "ask get", never "no such session".
   */
  trusted(id: string, heard: boolean): McpSession | undefined {
    if (!heard) return undefined;
    const cached = this.cache.get(id);
    if (!cached?.session || performance.now() - cached.at >= TRUST_MS) return undefined;
    return this.clock.now().getTime() - cached.touchedAt <= TOUCH_EVERY_MS ? cached.session : undefined;
  }

  /** `heard`: whether this process hears the database's session announcements right now. */
  async get(id: string, heard = false): Promise<McpSession | undefined> {
    const cached = this.cache.get(id);
    const nowMs = this.clock.now().getTime();
    if (cached && !cached.session && performance.now() - cached.at < NEGATIVE_CACHE_MS) return undefined;
    if (cached?.session && nowMs - cached.touchedAt <= TOUCH_EVERY_MS) {
      if (heard && performance.now() - cached.at < TRUST_MS) return cached.session;
      // Touched lately (so not idle): only whether it still exists, and its current options, are news.
      const [row] = await this.db.query(`SELECT ${SESSION_COLUMNS} FROM mcp_sessions WHERE id = $1`, [id]);
      const session = toSession(row);
      if (session) this.cache.set(id, { session, at: performance.now(), touchedAt: cached.touchedAt });
      else this.cache.delete(id);
      return session;
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
    forgetSession(this.db, id);
  }

  async delete(id: string): Promise<boolean> {
    const rows = await this.db.query('DELETE FROM mcp_sessions WHERE id = $1 RETURNING id', [id]);
    forgetSession(this.db, id);
    return rows.length > 0;
  }
}
