import { Type, type TSchema } from '@sinclair/typebox';

/**
 * Event types the core itself emits. Every other type is declared by the plugin that emits it
 * (`events` in its declaration), and the registry gathers them: webhook subscriptions, OpenAPI's
 * webhook payloads and the events test all read `registry.events`.
 */
export const CORE_EVENTS: Record<string, TSchema> = {
  // SPEC 6.4 asks that approvers be notified: the gated execution, as the API shows it.
  'tool_execution.pending_approval': Type.Object(
    { id: Type.String(), object: Type.Literal('tool_execution'), tool: Type.String(), status: Type.String() },
    { additionalProperties: true, description: 'The execution waiting for approval (tool, action, input, agent).' },
  ),
};

/**
 * An endpoint subscribed to `*` receives every event type, including types registered after it
 * subscribed (stored literally, matched at fan-out). The test ping is not an event type: never included.
 */
export const ALL_EVENTS = '*';

/** The ping POST /webhooks/:id/test sends; never subscribable, delivered to one endpoint. */
export const TEST_EVENT = 'webhook.test';

/** What a handler asked for with ctx.emit, kept until the transaction writes it. */
export interface PendingEvent {
  type: string;
  data: object;
  at: Date;
  /** Who caused it and in which request, for reactions (the audit trail); never in the webhook body. */
  origin?: EventOrigin;
}

export interface EventOrigin {
  actor: { type: string; id: string | null };
  request_id: string | null;
}

/** SPEC 2.8: the exact JSON body every attempt sends (and signs). */
export function eventBody(id: string, type: string, at: Date, data: object): string {
  return JSON.stringify({ id, object: 'event', type, created_at: at.toISOString(), data });
}

/** `evt_` and 32 hex digits: opaque, unique, and what receivers deduplicate on (SPEC 6.1 rule 3). */
export const newEventId = () => `evt_${crypto.randomUUID().replaceAll('-', '')}`;
