import { Type, type Static } from '@sinclair/typebox';
import { action, errors, fail, inboundSignatureValid, type Ctx } from '../../core/sdk';

export const SupplyConfig = Type.Object({
  inbound_secret: Type.Optional(
    Type.String({ env: 'SVC_INBOUND_SECRET', description: 'Key of the HMAC relays and carriers sign POST /v1/inbound/* with.' }),
  ),
});
type SupplyCtx = Ctx<Static<typeof SupplyConfig>>;

const STATUSES = new Set(['pending', 'in_transit', 'delivered', 'exception']);
const json = (status: number, body: object) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/**
 * A carrier's status report. Shipments are matched by carrier and tracking number in every store
 * (the carrier knows no store); a report older than the one applied changes nothing.
 */
async function receiveShipment(ctx: SupplyCtx, input: { body?: Uint8Array }) {
  const secret = ctx.config.inbound_secret;
  if (!secret) throw errors.notConfigured('SVC_INBOUND_SECRET', 'carriers sign shipment reports with it');
  const body = input.body ?? new Uint8Array();
  if (!inboundSignatureValid(secret, ctx.http?.request.headers, body, ctx.clock.now()))
    throw fail('invalid_signature', 'X-Svc-Signature does not match the body and X-Svc-Timestamp (or the timestamp is over 5 minutes off).');
  let report: any;
  try {
    report = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw errors.validation('The body is not JSON: {carrier, tracking_number, status, occurred_at}.');
  }
  for (const f of ['carrier', 'tracking_number', 'status', 'occurred_at'])
    if (typeof report?.[f] !== 'string' || !report[f] || report[f].length > 200) throw errors.validation(`Invalid ${f}: a string is required.`, f);
  if (!STATUSES.has(report.status)) throw errors.validation('Invalid status: pending, in_transit, delivered or exception.', 'status');
  const at = new Date(report.occurred_at);
  if (Number.isNaN(at.getTime()) || !/[zZ]|[+-]\d\d:?\d\d$/.test(report.occurred_at))
    throw errors.validation('Invalid occurred_at: a date-time with a zone.', 'occurred_at');
  const rows = await ctx.db.query(
    `UPDATE po_shipments SET status = $3, occurred_at = $4, updated_at = $5
     WHERE carrier = $1 AND tracking_number = $2 AND (occurred_at IS NULL OR occurred_at <= $4) RETURNING id`,
    [report.carrier.toLowerCase(), report.tracking_number, report.status, at, ctx.clock.now()],
  );
  return json(200, { received: true, updated: rows.length });
}

export const receiveShipmentAction = action({
  kind: 'write',
  description: "A carrier's shipment status report {carrier, tracking_number, status, occurred_at}, signed (X-Svc-Timestamp, X-Svc-Signature).",
  input: Type.Object({ body: Type.Optional(Type.Any()), content_type: Type.Optional(Type.String()) }, { additionalProperties: true }),
  output: Type.Object({}, { additionalProperties: true, description: '{received, updated}' }),
  rest: {
    method: 'POST',
    path: '/v1/inbound/shipments',
    auth: 'public',
    scope: 'global',
    body: 'raw',
    response: 'raw',
    contentType: 'application/json',
  },
  errors: ['invalid_signature', 'provider_not_configured'],
  handler: receiveShipment,
});
