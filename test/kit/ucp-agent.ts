/**
 * A fake UCP shopping agent (platform) for tests: its own P-256 key, its profile served on
 * 127.0.0.1 (signing_keys, the order capability's webhook_url), RFC 9421-signed requests to svc,
 * and a webhook receiver that keeps what svc sends. svc must be allowed to fetch it: tests set
 * SVC_UCP_ALLOW_INSECURE_PROFILES (config) and SVC_EGRESS_ALLOW=127.0.0.1 (process env).
 */
import { generateSigningKey, signMessage, verifyMessage, type Jwk } from '../../plugins/checkout/ucp/signatures';

export const UCP_VERSION = '2026-04-08';
const CAP = (name: string, extra: Record<string, unknown> = {}) => [
  {
    version: UCP_VERSION,
    spec: `https://ucp.dev/${UCP_VERSION}/specification/${name}`,
    schema: `https://ucp.dev/${UCP_VERSION}/schemas/shopping/${name}.json`,
    ...extra,
  },
];

export interface Received {
  headers: Headers;
  body: string;
  url: string;
}

/** Something with a fetch-like `handle` (the in-process app) or a base URL (a real server). */
export type Target = { handle: (r: Request) => Response | Promise<Response> } | string;

export async function fakeAgent(opts: { kid?: string; webhookStatus?: number } = {}) {
  const kid = opts.kid ?? 'agent-key-1';
  const { privateJwk, publicJwk } = await generateSigningKey(kid);
  const webhooks: Received[] = [];
  let webhookStatus = opts.webhookStatus ?? 200;
  let profileOverride: { status?: number; body?: string } | undefined;
  let profileHits = 0;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (req): Promise<Response> => {
      const url = new URL(req.url);
      if (url.pathname === '/profile.json') {
        profileHits++;
        if (profileOverride)
          return new Response(profileOverride.body ?? '', { status: profileOverride.status ?? 200, headers: { 'content-type': 'application/json' } });
        return Response.json(profile(), { headers: { 'cache-control': 'public, max-age=60' } });
      }
      if (url.pathname === '/webhooks/orders') {
        webhooks.push({ headers: req.headers, body: await req.text(), url: req.url });
        return new Response('{"received":true}', { status: webhookStatus, headers: { 'content-type': 'application/json' } });
      }
      return new Response('not found', { status: 404 });
    },
  });
  const base: string = `http://127.0.0.1:${server.port}`;
  const profileUrl = `${base}/profile.json`;
  let version = UCP_VERSION;
  const dropped = new Set<string>();

  function profile(): Record<string, unknown> {
    return {
      ucp: {
        version,
        services: {
          'dev.ucp.shopping': [
            {
              version: UCP_VERSION,
              spec: `https://ucp.dev/${UCP_VERSION}/specification/overview`,
              transport: 'rest',
              schema: `https://ucp.dev/${UCP_VERSION}/services/shopping/rest.openapi.json`,
            },
          ],
        },
        capabilities: Object.fromEntries(
          Object.entries({
            'dev.ucp.shopping.checkout': CAP('checkout'),
            'dev.ucp.shopping.fulfillment': CAP('fulfillment', { extends: 'dev.ucp.shopping.checkout' }),
            'dev.ucp.shopping.discount': CAP('discount', { extends: 'dev.ucp.shopping.checkout' }),
            'dev.ucp.shopping.order': CAP('order', { config: { webhook_url: `${base}/webhooks/orders` } }),
            'dev.ucp.shopping.catalog.search': CAP('catalog_search'),
            'dev.ucp.shopping.catalog.lookup': CAP('catalog_lookup'),
          }).filter(([name]) => !dropped.has(name)),
        ),
        payment_handlers: {},
      },
      signing_keys: [publicJwk],
    };
  }

  /**
   * One request to svc as this agent: `host` is the store's hostname (the Host svc picks the
   * store from), the body is sent as the exact bytes signed. `sign: false` sends it unsigned;
   * `tamper` changes the request after signing.
   */
  async function request(
    target: Target,
    host: string,
    method: string,
    path: string,
    body?: unknown,
    o: {
      sign?: boolean;
      key?: Jwk;
      idempotencyKey?: string | null;
      headers?: Record<string, string>;
      tamper?: (h: Headers, body: string) => string;
      profile?: string;
    } = {},
  ) {
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers = new Headers({
      host,
      'ucp-agent': `profile="${o.profile ?? profileUrl}"`,
      'request-id': crypto.randomUUID(),
      ...(o.headers ?? {}),
    });
    if (text !== undefined) headers.set('content-type', 'application/json');
    if (method !== 'GET' && o.idempotencyKey !== null) headers.set('idempotency-key', o.idempotencyKey ?? crypto.randomUUID());
    if (o.sign !== false) await signMessage({ method, url: `https://${host}${path}`, headers }, text, o.key ?? privateJwk);
    const sent = o.tamper ? o.tamper(headers, text ?? '') : text;
    const req =
      typeof target === 'string'
        ? new Request(`${target}${path}`, { method, headers, body: sent })
        : new Request(`http://${host}${path}`, { method, headers, body: sent });
    const res = typeof target === 'string' ? await fetch(req) : await target.handle(req);
    const raw = await res.text();
    let json: any;
    try {
      json = JSON.parse(raw);
    } catch {
      json = raw;
    }
    return { status: res.status, body: json, headers: res.headers, raw };
  }

  /** Verifies a webhook (or a signed response) with the keys svc publishes at /.well-known/ucp. */
  async function verify(msg: { method?: string; url?: string; status?: number; headers: Headers; body: string }, keys: Jwk[]) {
    return verifyMessage({
      message: { method: msg.method, url: msg.url, status: msg.status, headers: msg.headers },
      body: new TextEncoder().encode(msg.body),
      keys: async (k) => keys.find((j) => j.kid === k),
    });
  }

  return {
    kid,
    privateJwk,
    publicJwk,
    base,
    profileUrl,
    webhooks,
    request,
    verify,
    get profileHits() {
      return profileHits;
    },
    /** Serves something else at the profile URL (a 500, not JSON, another version). */
    setProfile(override?: { status?: number; body?: string }) {
      profileOverride = override;
    },
    setVersion(v: string) {
      version = v;
    },
    /** Leaves a capability out of the profile (capability negotiation). */
    dropCapability(name: string) {
      dropped.add(name);
    },
    setWebhookStatus(s: number) {
      webhookStatus = s;
    },
    stop: () => server.stop(true),
  };
}

export type FakeAgent = Awaited<ReturnType<typeof fakeAgent>>;
