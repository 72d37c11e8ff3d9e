import type { Clock } from '../core/clock';
import type { Db } from '../core/db/types';
import { secretBox } from '../core/secrets';
import { WEBHOOK_QUEUE, type DeliveryJob } from '../core/events/outbox';
import { invalidateSubscriptions } from '../core/events/subscriptions';
import type { JobDef } from '../core/jobs/run';
import { EgressError, egressFetch, type EgressInit } from '../core/net/egress';
import { deliveryHeaders } from '../core/webhooks/sign';
import { bodyForVersion } from '../core/webhooks/versions';
import { claim, JOB_EXPIRY_S, JOB_HEARTBEAT_S, record, type AttemptResult, type Claimed, type Recorded } from './webhook-state';
import { tracing } from '../core/plugins/telemetry';

/** Kept of each response for the delivery log. */
export const RESPONSE_EXCERPT = 500;
/** Whole-request budget of one attempt (resolution, connect, TLS, answer). */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Egress settings a deployment or a test may set: trust anchors, allow list, resolver, timeout. */
export type DeliveryOptions = Pick<EgressInit, 'ca' | 'allow' | 'resolver' | 'timeoutMs'>;

/** One POST through the egress guard; any answer or failure becomes an AttemptResult, never a throw. */
async function attempt(url: string, body: string, headers: Record<string, string>, opts: DeliveryOptions): Promise<AttemptResult> {
  const started = performance.now();
  const duration = () => Math.round(performance.now() - started);
  try {
    const res = await egressFetch(url, {
      method: 'POST',
      body,
      headers,
      httpsOnly: true,
      purpose: 'webhook',
      // A redirected POST may come back as a body-less GET that "succeeds": a 3xx is a failure.
      followRedirects: false,
      maxBytes: 4096,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      ...opts,
    });
    const ok = res.status >= 200 && res.status < 300;
    return {
      statusCode: res.status,
      durationMs: duration(),
      response: res.text().slice(0, RESPONSE_EXCERPT),
      error: ok ? null : `The endpoint answered ${res.status}.`,
    };
  } catch (err) {
    // Refusals (a URL that now resolves to a private address) and network failures alike are
    // failed attempts, retried on the schedule: DNS may be fixed, the receiver may come back.
    const message = err instanceof EgressError ? err.message : `Delivery failed: ${(err as Error)?.message ?? String(err)}`;
    return { statusCode: null, durationMs: duration(), response: null, error: message.slice(0, RESPONSE_EXCERPT) };
  }
}

/**
 * Makes one attempt of a delivery and records it. The job passes the attempt number it was made
 * for; tests call this directly with a manual clock (and `attempt` left out) to walk the retry
 * schedule without waiting. Times written (attempt time, next_retry_at, the signed timestamp) come
 * from `clock`.
 */
export async function deliver(db: Db, clock: Clock, deliveryId: string, opts: DeliveryOptions = {}, attemptNo?: number): Promise<Recorded> {
  const claimed = await claim(db, deliveryId, attemptNo, clock.now());
  if (!claimed) return { outcome: 'skipped', disabled: false, nextRetryAt: null };
  let result: Recorded;
  if (!claimed.is_active) {
    // Disabled after the delivery was queued (410, 5 days of failures, PATCH): fail it without a
    // request; replay-failed sends it once the endpoint is enabled again.
    const refused = { statusCode: null, durationMs: 0, response: null, error: 'The endpoint is disabled.' };
    result = await record(db, claimed, refused, clock.now(), false);
  } else if (!openSecret(claimed.sealed_secret, claimed.secret)) {
    // The key that sealed it is not this process's SVC_SECRET_KEY: nothing can be signed, so
    // nothing is sent; the attempt fails with the reason (fix the key, then replay).
    const unsigned = {
      statusCode: null,
      durationMs: 0,
      response: null,
      error: 'The signing secret cannot be opened: SVC_SECRET_KEY differs from the key it was sealed with.',
    };
    result = await record(db, claimed, unsigned, clock.now());
  } else {
    const at = clock.now();
    // Rendered for the endpoint's API version, then signed: the signatures cover exactly these bytes.
    const body = bodyForVersion(claimed.body, claimed.api_version);
    const headers = deliveryHeaders({
      secret: openSecret(claimed.sealed_secret, claimed.secret)!,
      previousSecret: previousSecret(claimed, at),
      body,
      eventId: claimed.event_id,
      eventType: claimed.event_type,
      deliveryId: claimed.id,
      timestamp: Math.floor(at.getTime() / 1000),
    });
    const outcome = await attempt(claimed.url, body, headers, opts);
    result = await record(db, claimed, outcome, clock.now());
    if (tracing.tracer) traceAttempt(claimed, outcome, result);
  }
  if (result.disabled) invalidateSubscriptions(claimed.store_id);
  return result;
}

/** A delivery attempt as a span of its store (core/plugins/telemetry.ts); a failed one is an error (query_errors). */
function traceAttempt(claimed: Claimed, outcome: AttemptResult, result: Recorded) {
  const failed = result.outcome !== 'succeeded';
  let endpoint = claimed.url;
  try {
    endpoint = new URL(claimed.url).origin + new URL(claimed.url).pathname;
  } catch {}
  tracing.tracer?.record(
    'webhook',
    'webhook.deliver',
    { store_id: claimed.store_id, route: endpoint, event: claimed.event_type },
    outcome.durationMs,
    {
      status: outcome.statusCode ?? undefined,
      failed,
      error: failed,
      code: failed ? 'webhook_delivery_failed' : undefined,
      message: failed ? (outcome.error ?? `The endpoint answered HTTP ${outcome.statusCode}.`) : undefined,
    },
  );
}

/** A signing secret opened from its sealed form, or a plain one stored before sealing; undefined if it cannot be opened. */
function openSecret(sealed: string | null, plain: string | null = null): string | undefined {
  if (!sealed) return plain ?? undefined;
  try {
    return secretBox().open(sealed);
  } catch {
    return undefined;
  }
}

/**
 * The secret a roll replaced, while its overlap window lasts at the time of this attempt (it is
 * dropped from the row by maintenance later). One that cannot be opened only loses its signature.
 */
function previousSecret(c: Claimed, at: Date): string | undefined {
  if (!c.previous_sealed_secret || !c.previous_secret_expires_at || new Date(c.previous_secret_expires_at) <= at) return undefined;
  return openSecret(c.previous_sealed_secret);
}

/**
 * The delivery queue: one job per attempt. Jobs of a batch run concurrently (they wait on the
 * network, not the CPU). A job whose worker died is released once its heartbeat stops and retried; the
 * delivery's lease and attempt number make that, and any duplicate, safe.
 */
export function webhookJob(db: Db, clock: Clock, opts: DeliveryOptions = {}): JobDef {
  return {
    queue: WEBHOOK_QUEUE,
    options: { expireInSeconds: JOB_EXPIRY_S, heartbeatSeconds: JOB_HEARTBEAT_S, retryLimit: 20, retryDelay: 5, deleteAfterSeconds: 24 * 3600 },
    work: { batchSize: 100, burstWhenBatchFull: true, localConcurrency: 2 },
    run: async (batch) => {
      const results = await Promise.allSettled((batch as DeliveryJob[]).map((job) => deliver(db, clock, job.delivery_id, opts, job.attempt)));
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      // Failing the batch retries its jobs; the settled ones then find their attempt done and skip.
      if (failed.length)
        throw new AggregateError(
          failed.map((f) => f.reason),
          `${failed.length} webhook deliveries could not be processed`,
        );
    },
  };
}
