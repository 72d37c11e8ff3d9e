import { Type } from '@sinclair/typebox';
import { action, inboundSignatureValid } from '../../core/sdk';
import type { InboxCtx } from './config';
import { emailSettings } from '../email/public';
import { receive } from './inbound';
import { MAX_INBOUND_BYTES } from './listener';

const json = (status: number, body: object) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const refuse = (status: number, code: string, message: string) =>
  json(status, { error: { type: 'invalid_request_error', code, message, param: null } });

export async function receiveHttp(ctx: InboxCtx, input: { body?: Uint8Array }) {
  const secret = ctx.config.inbound_secret;
  const domain = emailSettings(ctx.registry).inbound_domain;
  if (!secret || !domain) {
    // A setting the operator has not made: 400 like errors.notConfigured (a retry cannot heal it).
    const setting = !secret ? 'SVC_INBOUND_SECRET' : 'SVC_EMAIL_INBOUND_DOMAIN';
    return refuse(
      400,
      'provider_not_configured',
      `${setting} is not set on this server: inbound mail needs it. The operator sets it (docs/configuration.md).`,
    );
  }
  const body = input.body ?? new Uint8Array();
  if (!inboundSignatureValid(secret, ctx.http?.request.headers, body, ctx.clock.now())) {
    return refuse(401, 'invalid_signature', 'X-Svc-Signature does not match the body and X-Svc-Timestamp (or the timestamp is over 5 minutes off).');
  }
  if (body.byteLength > MAX_INBOUND_BYTES) return refuse(413, 'request_too_large', 'The message is over 10 MiB.');
  const result = await receive({ db: ctx.db, clock: ctx.clock, log: ctx.log, domain, registry: ctx.registry }, body);
  return json(result.outcome === 'ignored' ? 202 : 200, { received: true, ...result });
}

export const receiveAction = action({
  kind: 'write',
  description: 'Inbound mail from a relay: a raw RFC 822 message, signed (X-Svc-Timestamp, X-Svc-Signature).',
  input: Type.Object({ body: Type.Optional(Type.Any()), content_type: Type.Optional(Type.String()) }, { additionalProperties: true }),
  output: Type.Object({}, { additionalProperties: true, description: '{received, outcome, thread_id?}' }),
  rest: { method: 'POST', path: '/v1/inbound/email', auth: 'public', scope: 'global', body: 'raw', response: 'raw', contentType: 'application/json' },
  handler: receiveHttp,
});
