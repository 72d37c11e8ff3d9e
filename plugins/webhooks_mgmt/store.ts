import type { Static } from '@sinclair/typebox';
import { EgressError, errors, iso, secretBox, listPage, rowOr404, type Ctx, type Row } from '../../core/sdk';
import {
  ALL_EVENTS,
  checkEndpointVersion,
  checkUrl,
  generateSecret,
  invalidateSubscriptions,
  LATEST_API_VERSION,
  type Registry,
} from '../../core/platform';
import type { WebhookCreate, WebhookEndpoint, WebhookQuery, WebhookUpdate } from './schemas';

/**
 * The API view at `now`. The secret is never part of it: create and roll add signing_secret to
 * their own answer. A rolled-out secret whose window has passed is shown as gone before
 * maintenance clears it.
 */
export function toEndpoint(r: Row, now: Date): Static<typeof WebhookEndpoint> {
  const previousUntil = r.previous_secret_expires_at && new Date(r.previous_secret_expires_at) > now ? iso(r.previous_secret_expires_at) : null;
  return {
    object: 'outbound_webhook_endpoint',
    id: r.id,
    url: r.url,
    events: r.events,
    description: r.description,
    api_version: r.api_version,
    previous_secret_expires_at: previousUntil,
    is_active: r.is_active,
    disabled_reason: r.disabled_reason,
    total_delivered: Number(r.total_delivered),
    total_failed: Number(r.total_failed),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** Registered event types or `*` (every type, now and later), each once, in the order given. */
function checkEvents(registry: Registry, events: string[]): string[] {
  events.forEach((e, i) => {
    if (e !== ALL_EVENTS && !registry.events.has(e))
      throw errors.validation(
        `Invalid events.${i}: '${e}' is not an event type; expected '*' (every type) or one of ${[...registry.events.keys()].join(', ')}.`,
        `events.${i}`,
      );
  });
  return [...new Set(events)];
}

/**
 * HTTPS only (SPEC 6.1 rule 4) and the egress guard's registration checks (no credentials in the
 * URL, no private or loopback IP literal unless SVC_EGRESS_ALLOW allows it). Host names are checked
 * again at every delivery, when they are resolved.
 */
function checkWebhookUrl(url: string): string {
  try {
    checkUrl(url, { httpsOnly: true, purpose: 'webhook' });
    return url;
  } catch (err) {
    if (err instanceof EgressError) throw errors.validation(`Invalid url: ${err.message}`, 'url');
    throw err;
  }
}

export const endpointRow = (ctx: Ctx, id: string, forUpdate = false) =>
  rowOr404(ctx.db, { table: 'webhook_endpoints', storeId: ctx.store.id, id, noun: 'webhook endpoint', lock: forUpdate ? 'FOR UPDATE' : undefined });

export async function createEndpoint(ctx: Ctx, input: Static<typeof WebhookCreate>) {
  const url = checkWebhookUrl(input.url);
  const events = checkEvents(ctx.registry, input.events);
  const secret = input.secret ?? generateSecret();
  const now = ctx.clock.now();
  // Payloads keep the shape of the version the endpoint was made under (Stripe's rule).
  const version = checkEndpointVersion(input.api_version ?? ctx.apiVersion ?? LATEST_API_VERSION, now);
  // Sealed at rest; shown once, in this answer.
  const [row] = await ctx.db.query(
    `INSERT INTO webhook_endpoints (id, store_id, url, events, description, sealed_secret, api_version, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $7) RETURNING *`,
    [ctx.store.id, url, events, input.description ?? null, secretBox().seal(secret), version, now],
  );
  invalidateSubscriptions(ctx.store.id);
  return { ...toEndpoint(row, now), signing_secret: secret };
}

export const listEndpoints = (ctx: Ctx, input: Static<typeof WebhookQuery>) =>
  listPage(ctx, { table: 'webhook_endpoints', path: '/webhooks', input }, (rows) => {
    const now = ctx.clock.now();
    return rows.map((r) => toEndpoint(r, now));
  });

export async function updateEndpoint(ctx: Ctx, input: Static<typeof WebhookUpdate>) {
  const cur = await endpointRow(ctx, input.id, true);
  const now = ctx.clock.now();
  const enable = input.is_active === true && !cur.is_active;
  const disable = input.is_active === false && cur.is_active;
  const [row] = await ctx.db.query(
    `UPDATE webhook_endpoints SET url = $3, events = $4, description = $5, is_active = $6, api_version = $10,
       disabled_reason = CASE WHEN $7 THEN NULL WHEN $8 THEN 'Disabled by request.' ELSE disabled_reason END,
       failing_since = CASE WHEN $7 THEN NULL ELSE failing_since END, updated_at = $9
     WHERE store_id = $1 AND id = $2 RETURNING *`,
    [
      ctx.store.id,
      cur.id,
      input.url !== undefined ? checkWebhookUrl(input.url) : cur.url,
      input.events !== undefined ? checkEvents(ctx.registry, input.events) : cur.events,
      input.description !== undefined ? input.description : cur.description,
      input.is_active ?? cur.is_active,
      enable,
      disable,
      now,
      input.api_version !== undefined ? checkEndpointVersion(input.api_version, now) : cur.api_version,
    ],
  );
  invalidateSubscriptions(ctx.store.id);
  return toEndpoint(row, now);
}

/** Deleting removes the endpoint and its delivery log; its queued jobs find nothing and end. */
export async function deleteEndpoint(ctx: Ctx, id: string) {
  const rows = await ctx.db.query('DELETE FROM webhook_endpoints WHERE store_id = $1 AND id = $2 RETURNING id', [ctx.store.id, id]);
  if (!rows.length) throw errors.notFound(`webhook endpoint: '${id}'`, 'id');
  invalidateSubscriptions(ctx.store.id);
  return { object: 'outbound_webhook_endpoint' as const, id, deleted: true };
}
