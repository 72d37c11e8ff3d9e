import { describe, expect, test } from 'bun:test';
import { compileErrors, validate } from '@readme/openapi-parser';
import { Type } from '@sinclair/typebox';
import { buildOpenApi } from '../core/http/openapi';
import { restRoutes } from '../core/http/rest';
import { acceptedScopes, action, definePlugin, scopesFor } from '../core/plugins/contract';
import { createRegistry } from '../core/plugins/registry';
import { Input, Uuid } from '../core/plugins/schema';
import { setup } from './kit/setup';

const ERROR_STATUSES = ['400', '401', '403', '404', '409', '429', '500'];
const toPath = (p: string) => p.replace(/:(\w+)/g, '{$1}');

/** Follows a local `#/components/...` reference. */
const deref = (doc: any, node: any): any => {
  if (!node?.$ref) return node;
  return node.$ref
    .slice(2)
    .split('/')
    .reduce((o: any, k: string) => o[k], doc);
};

/** The validator annotates the object it is given, so it gets a copy. */
async function expectValid(doc: unknown) {
  const result = await validate(structuredClone(doc) as any);
  if (!result.valid) throw new Error(compileErrors(result));
  expect(result.valid).toBe(true);
}

async function served() {
  const h = await setup();
  const r = await h.raw('GET', '/openapi.json', undefined, {});
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toContain('application/json');
  return { h, doc: r.body };
}

describe('GET /openapi.json', () => {
  // Validating a document of this size takes seconds on a busy machine: a generous limit, not a timing.
  test('is a valid OpenAPI 3.1 document', async () => {
    const { doc } = await served();
    expect(doc.openapi).toBe('3.1.0');
    await expectValid(doc);
  }, 60_000);

  test('the validator is not a rubber stamp: a path parameter left undeclared fails', async () => {
    const { doc } = await served();
    const broken = structuredClone(doc);
    const op = broken.paths['/v1/stores/{storeId}/products/{id}'].get;
    op.parameters = op.parameters.filter((p: any) => p.name !== 'id');
    const result = await validate(broken);
    expect(result.valid).toBe(false);
  });

  test('is built once and served identically', async () => {
    const h = await setup();
    const a = await h.app.handle(new Request('http://svc.test/openapi.json'));
    const b = await h.app.handle(new Request('http://svc.test/openapi.json'));
    expect(await a.text()).toBe(await b.text());
  });

  test('needs no API key', async () => {
    const h = await setup();
    const r = await h.raw('GET', '/openapi.json', undefined, { 'x-api-key': '' });
    expect(r.status).toBe(200);
  });

  test('every derived REST route is there with its id, tag, scopes, parameters and responses', async () => {
    const { h, doc } = await served();
    const routes = restRoutes(h.registry);
    expect(routes.length).toBeGreaterThan(0);
    const seen = new Set<string>();
    for (const route of routes) {
      const op = doc.paths[toPath(route.path)]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      const id = `${route.plugin.name}_${route.actionName}`;
      expect(op.operationId).toBe(id);
      expect(seen.has(id)).toBe(false);
      seen.add(id);
      expect(op.tags).toEqual([route.plugin.name]);
      expect(op.description).toContain(route.action.description);

      if (route.auth.length === 1 && route.auth[0] === 'admin') expect(op.security).toEqual([{ AdminToken: [] }]);
      else if (route.auth.includes('admin')) expect(op.security).toContainEqual({ AdminToken: [] });
      else if (route.auth.includes('public')) expect(op.security).toEqual([]);
      else {
        const scopes = acceptedScopes(route.plugin, route.action.kind);
        expect(op['x-required-scopes']).toEqual(scopes);
        for (const s of scopes) expect(op.description).toContain(`\`${s}\``);
        // What the route really takes: API keys only where it admits them, a user's token (either
        // scheme) with any one of the scopes.
        expect(op.security).toEqual([
          ...(route.auth.includes('api_key') ? [{ ApiKeyAuth: [] }, { ApiKeyBearer: [] }] : []),
          ...(route.auth.includes('user')
            ? [...scopesFor(route.plugin, route.action, 'user').map((s) => ({ UserOAuth: [s] })), { UserToken: [] }]
            : []),
        ]);
        if (!route.auth.includes('api_key')) expect(op.description).toContain('API keys are refused');
      }

      const params = op.parameters.map((p: any) => deref(doc, p));
      const named = (name: string, where: string) => params.find((p: any) => p.name === name && p.in === where);
      for (const name of (route.path.match(/:(\w+)/g) ?? []).map((s) => s.slice(1))) expect(named(name, 'path')?.required).toBe(true);
      expect(named('X-API-Version', 'header').schema.pattern).toBe('^v\\d{4}-\\d{2}-\\d{2}$');
      // Only where a retry is replayed: a POST or PATCH that writes (a read-only POST changes nothing).
      expect(Boolean(named('Idempotency-Key', 'header'))).toBe((route.method === 'POST' || route.method === 'PATCH') && route.action.kind !== 'read');

      const inputProps = Object.keys((route.action.input as any).properties ?? {});
      const pathNames = new Set((route.path.match(/:(\w+)/g) ?? []).map((s) => s.slice(1)));
      const nonPath = inputProps.filter((k) => !pathNames.has(k));
      if (route.method === 'GET' || route.method === 'DELETE') {
        expect(
          params
            .filter((p: any) => p.in === 'query')
            .map((p: any) => p.name)
            .sort(),
        ).toEqual(nonPath.sort());
        expect(op.requestBody).toBeUndefined();
      } else if (nonPath.length && route.body === 'json') {
        const body = op.requestBody.content['application/json'].schema;
        expect(Object.keys(body.properties).sort()).toEqual(nonPath.sort());
        for (const r of body.required ?? []) expect(pathNames.has(r)).toBe(false);
      }

      const ok = op.responses[String(route.status)];
      expect(ok, `${id} success ${route.status}`).toBeDefined();
      // A streaming action (agent chat) answers server-sent events of its output schema.
      const media = route.response === 'raw' ? route.action.rest!.contentType! : 'application/json';
      // 204 answers no body, so documents no content.
      if (route.status === 204) expect(ok.content).toBeUndefined();
      // Other raw answers (pages, images, OAuth's own JSON) are documented as a body of their media type.
      else if (route.response === 'raw' && media !== 'text/event-stream')
        expect(ok.content[media].schema).toEqual({ type: 'string', format: 'binary' });
      else {
        // A stream's body is text; each event's schema is beside it.
        const schema = media === 'text/event-stream' ? ok.content[media].schema['x-event-schema'] : ok.content[media].schema;
        expect(Object.keys(schema.properties).sort()).toEqual(Object.keys((route.action.output as any).properties).sort());
      }
      expect(Object.keys(ok.headers).sort()).toEqual(['X-API-Latest-Version', 'X-API-Version', 'X-Request-Id']);
      for (const status of ERROR_STATUSES) {
        const res = deref(doc, op.responses[status]);
        expect(res?.content['application/json'].schema, `${id} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
    // Nothing else is documented: every operation is a derived route.
    const ops = Object.values(doc.paths).flatMap((o: any) => Object.keys(o));
    expect(ops.length).toBe(routes.length);
  });

  test('the Error schema matches the envelope the server really sends', async () => {
    const { h, doc } = await served();
    const schema = doc.components.schemas.Error;
    expect(schema.required).toEqual(['error']);
    expect(schema.properties.error.required.sort()).toEqual(['code', 'message', 'param', 'request_id', 'type']);
    const real = await h.call('GET', '/products', undefined, { 'x-api-key': 'nope' });
    expect(real.status).toBe(401);
    expect(Object.keys(real.body).sort()).toEqual(['error']);
    expect(Object.keys(real.body.error).sort()).toEqual(Object.keys(schema.properties.error.properties).sort());
    expect(schema.properties.error.properties.type.enum).toContain(real.body.error.type);
  });

  test('declared error codes and webhook payloads are documented from the declarations', async () => {
    const { doc } = await served();
    expect(doc.paths['/v1/stores/{storeId}/products'].post['x-error-codes']).toEqual({ duplicate_sku: expect.stringContaining('SKU') });
    expect(doc.paths['/v1/stores/{storeId}/orders'].post['x-error-codes']).toHaveProperty('insufficient_stock');
    const created = doc.webhooks['product.created'].post.requestBody.content['application/json'].schema;
    expect(created.properties.type).toEqual({ const: 'product.created' });
    expect(created.properties.data.properties).toHaveProperty('sku');
  });

  test("users' access tokens: the OAuth 2.0 flow at the server's real endpoints and scopes, and bearer JWT", async () => {
    const { h, doc } = await served();
    const { UserOAuth, UserToken } = doc.components.securitySchemes;
    expect(UserToken).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(UserOAuth.type).toBe('oauth2');
    const flow = UserOAuth.flows.authorizationCode;
    expect(UserOAuth.description).toContain('S256');
    // The same endpoints and scopes the authorization server announces (RFC 8414).
    const meta = (await h.raw('GET', '/.well-known/oauth-authorization-server', undefined, {})).body;
    expect(new URL(meta.authorization_endpoint).pathname).toBe(flow.authorizationUrl);
    expect(new URL(meta.token_endpoint).pathname).toBe(flow.tokenUrl);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(Object.keys(flow.scopes)).toEqual(meta.scopes_supported);
    // And they are the document's own operations.
    expect(doc.paths[flow.authorizationUrl]?.get).toBeDefined();
    expect(doc.paths[flow.tokenUrl]?.post).toBeDefined();
  });

  test("a decision only some roles make lists the user's own scope: approve takes approvals:write from a user, the plugin's from a key", async () => {
    const { doc } = await served();
    const op = doc.paths['/v1/stores/{storeId}/tool-executions/{id}/approve'].post;
    expect(op.security).toContainEqual({ UserOAuth: ['approvals:write'] });
    expect(op.security).not.toContainEqual({ UserOAuth: [op['x-required-scopes'][0]] });
    expect(op.description).toContain("a signed-in user's access token (OAuth 2.0) holding one of `approvals:write`");
  });

  test('user-only routes claim no API key: they list only user tokens and say keys are refused', async () => {
    const { h, doc } = await served();
    for (const [method, path] of [
      ['patch', '/v1/stores/{storeId}/members/{user_id}'],
      ['delete', '/v1/stores/{storeId}/members/{user_id}'],
      ['post', '/v1/stores/{storeId}/invitations'],
    ]) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      const schemes = op.security.flatMap((r: object) => Object.keys(r));
      expect(schemes).not.toContain('ApiKeyAuth');
      expect(schemes).not.toContain('ApiKeyBearer');
      expect(schemes).toContain('UserOAuth');
      expect(op.description).not.toContain('Requires an API key');
      expect(op.description).toContain('API keys are refused (403)');
      // What the description says is what the server does: an API key holding every scope is refused.
      const res = await h.raw(
        method.toUpperCase(),
        path.replace('{storeId}', h.store.id).replace('{user_id}', crypto.randomUUID()),
        {},
        { 'x-api-key': h.key },
      );
      expect(res.status).toBe(403);
    }
  });

  test('security schemes, and the admin routes with the bearer scheme', async () => {
    const { doc } = await served();
    expect(doc.components.securitySchemes.ApiKeyAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(doc.components.securitySchemes.ApiKeyBearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.AdminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    const admin: [string, string, string][] = [
      ['post', '/v1/stores', '201'],
      ['get', '/v1/admin/tools/{id}', '200'],
      ['post', '/v1/admin/tools/{id}/publish', '200'],
      ['post', '/v1/admin/tools/{id}/unpublish', '200'],
    ];
    // The store's key routes are shared by the operator and the store's own credentials.
    for (const [method, path] of [
      ['post', '/v1/stores/{storeId}/api-keys'],
      ['delete', '/v1/stores/{storeId}/api-keys/{key_id}'],
    ]) {
      const op = doc.paths[path]?.[method];
      expect(op.security).toEqual([
        { ApiKeyAuth: [] },
        { ApiKeyBearer: [] },
        { UserOAuth: ['platform'] },
        { UserOAuth: ['platform:write'] },
        { UserToken: [] },
        { AdminToken: [] },
      ]);
      expect(op.tags).toEqual(['api_keys']);
      expect(op['x-required-scopes']).toEqual(['platform', 'platform:write']);
    }
    for (const [method, path, status] of admin) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.security).toEqual([{ AdminToken: [] }]);
      // The operator's routes belong to the plugin whose data they act on.
      expect(op.tags).toEqual([path.startsWith('/v1/admin/tools') ? 'custom_tools' : 'admin']);
      expect(op.responses[status]).toBeDefined();
      expect(op['x-required-scopes']).toBeUndefined();
    }
  });

  test('the document follows the declarations: a new plugin shows up without touching openapi.ts', async () => {
    const widgets = definePlugin({
      name: 'widgets',
      category: 'operations',
      scopes: { read: ['widgets:read'], write: ['widgets:write'] },
      actions: {
        spin_widget: action({
          kind: 'write',
          description: 'Spin a widget. It turns.',
          input: Input({ widget_id: Uuid(), speed: Type.Integer({ minimum: 1 }), note: Type.Optional(Type.String()) }),
          output: Type.Object({ object: Type.Literal('widget'), id: Type.String() }),
          rest: { method: 'PUT', path: '/widgets/:widget_id/spin', status: 202 },
          handler: async (_ctx, i) => ({ object: 'widget' as const, id: i.widget_id }),
        }),
        internal_only: action({
          kind: 'read',
          description: 'Has no REST mapping, so it is not documented.',
          input: Input({}),
          output: Type.Object({}),
          handler: async () => ({}),
        }),
      },
    });
    const doc = buildOpenApi(createRegistry([widgets]));
    await expectValid(doc);
    const op = doc.paths['/v1/stores/{storeId}/widgets/{widget_id}/spin'].put;
    expect(op.operationId).toBe('widgets_spin_widget');
    expect(op.summary).toBe('Spin a widget.');
    expect(op['x-required-scopes']).toEqual(['widgets:write']);
    expect(op.responses['202']).toBeDefined();
    const body = op.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['speed']);
    expect(Object.keys(body.properties)).toEqual(['speed', 'note']);
    expect(op.parameters.some((p: any) => p.name === 'Idempotency-Key')).toBe(false);
    expect(JSON.stringify(doc)).not.toContain('internal_only');
  });
});
