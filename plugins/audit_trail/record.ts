import type { EventOrigin, ReactionEvent } from '../../core/sdk';
import { memberEmail } from '../users/public';
import type { AuditCtx } from './config';

const ACTOR_TYPES: Record<string, 'api_key' | 'user' | 'operator' | 'system'> = { api_key: 'api_key', user: 'user', admin: 'operator' };
// Field names whose values are never kept, at any depth (an event should carry none; this is the backstop).
const SECRET = /(secret|password|token|^key$|api_key$|private)/i;

export function scrub(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(scrub);
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, SECRET.test(k) && typeof x === 'string' ? '[redacted]' : scrub(x)]));
  return v;
}

/** The '*' reaction: one row per event, whoever acted; a second run of the same event writes nothing. */
export async function record(ctx: AuditCtx, event: ReactionEvent, origin: EventOrigin) {
  const data = (event.data ?? {}) as Record<string, unknown>;
  const actorType = ACTOR_TYPES[origin.actor.type] ?? 'system';
  const name = actorType === 'operator' ? 'operator' : actorType === 'system' ? 'svc' : await actorName(ctx, actorType, origin.actor.id);
  await ctx.db.query(
    `INSERT INTO audit_events (id, store_id, event_id, type, actor_type, actor_id, actor_name, resource_type, resource_id, data, request_id, created_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9::text::jsonb, $10, $11) ON CONFLICT (store_id, event_id) DO NOTHING`,
    [
      ctx.store.id,
      event.id,
      event.type,
      actorType,
      actorType === 'operator' || actorType === 'system' ? null : origin.actor.id,
      name,
      typeof data.object === 'string' ? data.object : event.type.split('.')[0],
      typeof data.id === 'string' ? data.id : typeof data.user_id === 'string' ? data.user_id : null,
      JSON.stringify(scrub(data)),
      origin.request_id,
      event.created_at,
    ],
  );
}

/** A user's email while they are a member; an API key is named by its id alone (null name). */
async function actorName(ctx: AuditCtx, type: 'api_key' | 'user', id: string | null): Promise<string | null> {
  return type === 'user' && id ? memberEmail(ctx.db, ctx.store.id, id) : null;
}
