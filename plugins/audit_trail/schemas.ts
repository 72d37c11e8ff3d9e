import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

export const AuditEvent = Type.Object({
  object: Type.Literal('audit_event'),
  id: Uuid(),
  type: Type.String({ description: "The event type ('order.paid', 'store.settings_updated', 'api_key.created')." }),
  actor: Type.Object({
    type: Type.Union([Type.Literal('api_key'), Type.Literal('user'), Type.Literal('operator'), Type.Literal('system')]),
    id: Type.Union([Type.String(), Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()]),
  }),
  resource: Type.Object({ type: Type.Union([Type.String(), Type.Null()]), id: Type.Union([Type.String(), Type.Null()]) }),
  data: Type.Unknown({ description: 'The resource as the event carried it, secrets removed.' }),
  request_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp(),
});

const filters = {
  type: Type.Optional(Type.String({ maxLength: 1000, description: "Comma-separated types ('order.paid,order.cancelled')." })),
  actor_id: Type.Optional(Type.String({ maxLength: 200 })),
  resource_id: Type.Optional(Type.String({ maxLength: 200 })),
  resource_type: Type.Optional(Type.String({ maxLength: 100 })),
  from: Type.Optional(
    Type.String({ maxLength: 40, description: "Inclusive: a date in the store's time zone, or a date-time with a zone (an exact instant)." }),
  ),
  to: Type.Optional(
    Type.String({ maxLength: 40, description: "Inclusive: a date (its whole day, in the store's time zone), or a date-time with a zone." }),
  ),
};
export const AuditQuery = Input({ ...ListParams, ...filters });
export const AuditList = ListOf(AuditEvent);
export const AuditId = Input({ id: Uuid('Audit event id') });
export const ExportQuery = Input({
  ...filters,
  format: Type.Optional(
    Type.Union([Type.Literal('csv'), Type.Literal('jsonl')], { description: 'csv (text/csv) or jsonl (application/x-ndjson); default csv.' }),
  ),
});
export const ExportOut = Type.Object({}, { description: 'The events, oldest first, as CSV or JSON lines (streamed).' });
