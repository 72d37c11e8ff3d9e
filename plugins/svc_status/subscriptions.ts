import { Type } from '@sinclair/typebox';
import { egressFetch, errors, iso, secretBox, type Ctx, type EgressInit } from '../../core/sdk';
import { deliveryHeaders, generateSecret } from '../../core/platform';

/**
 * Subscriptions to incidents: an HTTPS endpoint (signed as svc's webhooks are, SPEC 6.1 and
 * Standard Webhooks) or an email address (sent through the email plugin). A store hears the
 * instance's incidents and its own.
 */
export const Subscription = Type.Object({
  object: Type.Literal('status_subscription'),
  id: Type.String(),
  channel: Type.Union([Type.Literal('webhook'), Type.Literal('email')]),
  url: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  events: Type.Array(Type.String()),
  secret: Type.Optional(Type.String({ description: 'The signing secret of a webhook channel: returned only now, store it.' })),
  created_at: Type.String(),
});

const EVENTS = ['incident.opened', 'incident.resolved'];

const toSubscription = (r: any) => ({
  object: 'status_subscription' as const,
  id: r.id,
  channel: r.channel,
  url: r.url ?? null,
  email: r.email ?? null,
  events: EVENTS,
  created_at: iso(r.created_at),
});

export async function subscribe(ctx: Ctx, input: { channel: 'webhook' | 'email'; url?: string; email?: string }) {
  if (input.channel === 'webhook' && !input.url) throw errors.validation('url is required for the webhook channel (an https URL).', 'url');
  if (input.channel === 'email' && !input.email) throw errors.validation('email is required for the email channel.', 'email');
  const secret = input.channel === 'webhook' ? generateSecret() : undefined;
  const [r] = await ctx.db.query(
    `INSERT INTO svc_status_subscriptions (id, store_id, channel, url, email, sealed_secret, created_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6) RETURNING *`,
    [
      ctx.store.id,
      input.channel,
      input.channel === 'webhook' ? input.url : null,
      input.channel === 'email' ? input.email : null,
      secret ? secretBox().seal(secret) : null,
      ctx.clock.now(),
    ],
  );
  return { ...toSubscription(r), ...(secret ? { secret } : {}) };
}

/** Egress settings for deliveries (tests trust their local CA here); SVC_EGRESS_ALLOW applies otherwise. */
let egressDefaults: Pick<EgressInit, 'ca' | 'resolver' | 'allow'> = {};
export function setStatusEgress(next: typeof egressDefaults) {
  const before = egressDefaults;
  egressDefaults = next;
  return before;
}

/** The notify job: one event to one subscription. A non-2xx answer throws, and the job retries. */
export async function notify(ctx: Ctx, input: { subscription_id: string; event: any }) {
  const [s] = await ctx.db.query('SELECT * FROM svc_status_subscriptions WHERE store_id = $1 AND id = $2', [ctx.store.id, input.subscription_id]);
  if (!s) return { skipped: 'subscription gone' };
  const event = input.event;
  if (s.channel === 'email') {
    const i = event.data;
    await ctx.call('email.send_email', {
      to: s.email,
      subject: `[svc] ${event.type === 'incident.opened' ? 'Incident' : 'Resolved'}: ${i.title}`,
      text: `${i.title}\n\nStatus: ${i.status}\nKind: ${i.kind}\nOpened: ${i.opened_at}${i.resolved_at ? `\nResolved: ${i.resolved_at}` : ''}\nIncident: ${i.id}\n`,
    });
    return { channel: 'email' };
  }
  const body = JSON.stringify(event);
  const headers = deliveryHeaders({
    secret: secretBox().open(s.sealed_secret),
    body,
    eventId: event.id,
    eventType: event.type,
    deliveryId: crypto.randomUUID(),
    timestamp: Math.floor(ctx.clock.now().getTime() / 1000),
  });
  const res = await egressFetch(s.url, {
    method: 'POST',
    body,
    headers,
    httpsOnly: true,
    followRedirects: false,
    purpose: 'webhook',
    ...egressDefaults,
  });
  if (res.status < 200 || res.status >= 300) throw new Error(`The status subscriber answered ${res.status}`);
  return { channel: 'webhook', status: res.status };
}
