/** The event types of SPEC 6.1, the only ones an endpoint may subscribe to. */
export const EVENT_TYPES = [
  'order.created',
  'order.updated',
  'order.paid',
  'order.fulfilled',
  'order.cancelled',
  'product.created',
  'product.updated',
  'product.deleted',
  'customer.created',
  'customer.updated',
  'inventory.adjusted',
  'inventory.transferred',
  // Declared by SPEC 6.1 but emitted by nothing yet: there is no checkout and no agent today.
  'checkout.completed',
  'agent.message',
  // Not in SPEC 6.1's table: SPEC 6.4 asks that approvers be notified; this is that notification.
  'tool_execution.pending_approval',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The ping POST /webhooks/:id/test sends; never subscribable, delivered to one endpoint. */
export const TEST_EVENT = 'webhook.test';

/** A resource snapshot: SPEC 2.8 wants at least `id` and `object`. */
export type EventData = { id: string; object: string } & Record<string, unknown>;

/** What a handler asked for with ctx.emit, kept until the transaction writes it. */
export interface PendingEvent {
  type: string;
  data: object;
  at: Date;
}

/** SPEC 2.8: the exact JSON body every attempt sends (and signs). */
export function eventBody(id: string, type: string, at: Date, data: object): string {
  return JSON.stringify({ id, object: 'event', type, created_at: at.toISOString(), data });
}

/** `evt_` and 32 hex digits: opaque, unique, and what receivers deduplicate on (SPEC 6.1 rule 3). */
export const newEventId = () => `evt_${crypto.randomUUID().replaceAll('-', '')}`;
