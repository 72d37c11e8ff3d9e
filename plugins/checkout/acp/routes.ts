import { SvcError } from '../../../core/sdk';
import type { CheckoutCtx } from '../sessions';
import { agenticSettings } from '../settings-store';
import type { AgentRef, Session } from '../types';
import { idempotent } from './idempotency';
import { ACP_VERSION, AcpInvalid, acpError, changesOf, rawCardPath, SUPPORTED_VERSIONS, toAcp } from './wire';

export type Op = 'create' | 'get' | 'update' | 'complete' | 'cancel';

const decoder = new TextDecoder();

/** The ACP agent: the store API key (scope `checkout`) it authenticated with. Each key is one agent. */
const agentOf = (ctx: CheckoutCtx): AgentRef => ({ protocol: 'acp', api_key_id: (ctx.principal as { keyId?: string }).keyId ?? 'unknown' });

/** Engine errors in ACP's words: cancel of a finished session is 405; other state conflicts 409. */
function mapError(e: unknown, op: Op): Response {
  if (!(e instanceof SvcError)) throw e;
  const param = e.param ? `$.${e.param.replace(/\.(\d+)(?=\.|$)/g, '[$1]')}` : undefined;
  if (e.status === 404) return acpError(404, 'not_found', 'No such checkout session.', '$.id');
  if (['checkout_session_completed', 'checkout_session_canceled', 'checkout_session_expired'].includes(e.code)) {
    const code =
      e.code === 'checkout_session_expired' ? 'expired' : e.code === 'checkout_session_completed' ? 'session_completed' : 'session_canceled';
    return acpError(op === 'cancel' ? 405 : 409, code, e.message);
  }
  if (e.status >= 500) throw e;
  return acpError(e.status === 409 ? 409 : 400, e.code === 'validation_error' ? 'invalid' : e.code, e.message, param);
}

/**
 * One ACP request: the store must have ACP on, `API-Version` must be one svc speaks, raw card
 * data is refused, every POST goes through ACP's Idempotency-Key rules, then the engine runs (in
 * its own transaction, through `checkout.run_engine`) and the session is answered in ACP's shape.
 */
/** One ACP route (declared in actions.ts): the body checked, the engine run, the answer in ACP's wire. */
export async function handle(ctx: CheckoutCtx, op: Op, input: { id?: string; body?: Uint8Array }) {
  const request = ctx.http!.request;
  const settings = await agenticSettings(ctx.db, ctx.store.id);
  if (!settings.acp.enabled) return acpError(404, 'not_found', 'This store does not take ACP checkouts.');
  const version = request.headers.get('api-version');
  const versions = { supported_versions: SUPPORTED_VERSIONS };
  if (!version)
    return acpError(400, 'missing_api_version', `The API-Version header is required (${SUPPORTED_VERSIONS.join(', ')}).`, undefined, versions);
  if (!SUPPORTED_VERSIONS.includes(version))
    return acpError(
      400,
      'unsupported_api_version',
      `API-Version ${version} is not supported; use ${SUPPORTED_VERSIONS.join(', ')}.`,
      undefined,
      versions,
    );
  let body: Record<string, any> = {};
  if (op !== 'get') {
    const text = input.body?.length ? decoder.decode(input.body) : '{}';
    try {
      body = JSON.parse(text);
    } catch {
      return acpError(400, 'invalid_json', 'The request body is not JSON.');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return acpError(400, 'invalid', 'The request body must be a JSON object.', '$');
    const card = rawCardPath(body);
    if (card)
      return acpError(
        400,
        'card_data_not_accepted',
        'Raw card data is never accepted: pass a payment token (payment_data.instrument.credential).',
        card,
      );
  }
  const agent = agentOf(ctx);
  const run = async () => {
    try {
      const session = await execute(ctx, op, agent, input.id, body);
      return Response.json(toAcp(session, settings, ctx.origin), {
        status: op === 'create' ? 201 : 200,
        headers: { 'API-Version': ACP_VERSION, 'Cache-Control': 'no-store' },
      });
    } catch (e) {
      if (e instanceof AcpInvalid) return acpError(400, e.code, e.message, e.param);
      return mapError(e, op);
    }
  };
  if (op === 'get') return run();
  return idempotent(
    ctx.db,
    {
      storeId: ctx.store.id,
      apiKeyId: agent.api_key_id!,
      key: request.headers.get('idempotency-key'),
      endpoint: `${op} ${input.id ?? ''}`,
      body,
      now: ctx.clock.now(),
    },
    run,
  );
}

async function execute(ctx: CheckoutCtx, op: Op, agent: AgentRef, id: string | undefined, body: Record<string, any>): Promise<Session> {
  const call = (o: Record<string, unknown>) => ctx.call('checkout.run_engine', { agent, ...o } as never) as Promise<Session>;
  if (op === 'create') return call({ op, changes: changesOf(body, true) });
  if (op === 'get') return call({ op, id });
  if (op === 'update') return call({ op, id, changes: changesOf(body, false) });
  if (op === 'cancel') return call({ op, id });
  // Complete: its buyer (and a billing address) first, then the payment.
  const pd = body.payment_data;
  if (!pd || typeof pd !== 'object') throw new AcpInvalid('missing', 'payment_data is required to complete.', '$.payment_data');
  const changes = changesOf({ ...(body.buyer ? { buyer: body.buyer } : {}) }, false);
  if (changes.buyer) await call({ op: 'update', id, changes });
  const token = pd.instrument?.credential?.token;
  return call({
    op,
    id,
    payment: {
      ...(pd.handler_id === 'stripe_spt' ? { handler: 'stripe' } : {}),
      ...(typeof token === 'string' ? { token } : {}),
    },
  });
}

/** GET /.well-known/acp.json (acp_discovery, declared in actions.ts). */
export async function discovery(ctx: CheckoutCtx) {
  const settings = await agenticSettings(ctx.db, ctx.store.id);
  if (!settings.acp.enabled) return acpError(404, 'not_found', 'This store does not take ACP checkouts.');
  return Response.json(
    {
      protocol: { name: 'acp', version: ACP_VERSION, supported_versions: SUPPORTED_VERSIONS },
      api_base_url: `${ctx.origin}/acp`,
      transports: ['rest'],
      capabilities: {
        services: ['checkout', 'orders'],
        extensions: [{ name: 'discount' }],
      },
    },
    { headers: { 'Cache-Control': 'public, max-age=3600' } },
  );
}
