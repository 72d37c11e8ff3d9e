import { timingSafeEqual } from 'node:crypto';
import { errors } from '../errors';
import { ALL_SCOPES, PLANS, createKey, createStore, getStore, revokeKey, validateScopes } from '../keys';
import { readJsonBody } from './body';
import { baseHeaders, errorResponse, json, newRequestId } from './respond';
import type { Services } from './services';
import { resolveVersion } from './versioning';
import { forgetCustomTools } from '../tools/custom';
import { adminToolView, publishTool, toolById, unpublishTool } from '../tools/publish';
import { notifyToolsChanged } from '../mcp/http';

/**
 * The admin API (bootstrap): create stores and manage their keys with the admin token, and publish
 * custom tools to every store. Shapes are fixed by the core issue; outside clients depend on them.
 */
export function adminRoutes(svc: Services) {
  const guard = (fn: (request: Request, params: Record<string, string>) => Promise<{ status: number; body: unknown }>) =>
    async ({ request, params }: { request: Request; params: Record<string, string> }) => {
      const requestId = newRequestId();
      let headers = baseHeaders(requestId);
      try {
        const version = resolveVersion(request.headers.get('x-api-version'), svc.clock.now());
        headers = { ...baseHeaders(requestId, version.version.id), ...version.headers };
        checkAdmin(svc, request);
        const r = await fn(request, params);
        return json(r.status, r.body, headers);
      } catch (err) {
        return errorResponse(err, requestId, headers);
      }
    };

  return [
    {
      method: 'POST',
      path: '/v1/stores',
      handler: guard(async (request) => {
        const body = (await readJsonBody(request)).value;
        if (typeof body.name !== 'string' || !body.name.trim() || body.name.length > 200)
          throw errors.validation('name is required: a non-empty string of at most 200 characters.', 'name');
        const plan = body.plan ?? 'free';
        if (!PLANS.includes(plan)) throw errors.validation(`plan must be one of ${PLANS.join(', ')}.`, 'plan');
        const scopes = body.scopes === undefined ? ALL_SCOPES : validateScopes(body.scopes);
        const out = await svc.db.transaction(async (tx) => {
          const store = await createStore(tx, svc.clock, { name: body.name.trim(), plan });
          const api_key = await createKey(tx, svc.clock, { storeId: store.id, scopes, livemode: false });
          return { store: { object: 'store', ...store }, api_key };
        });
        return { status: 201, body: out };
      }),
    },
    {
      method: 'POST',
      path: '/v1/stores/:storeId/api-keys',
      handler: guard(async (request, params) => {
        const body = (await readJsonBody(request)).value;
        await requireStore(svc, params.storeId);
        const scopes = body.scopes === undefined ? ALL_SCOPES : validateScopes(body.scopes);
        if (body.livemode !== undefined && typeof body.livemode !== 'boolean') throw errors.validation('livemode must be a boolean.', 'livemode');
        let expiresAt: Date | null = null;
        if (body.expires_at !== undefined && body.expires_at !== null) {
          expiresAt = new Date(body.expires_at);
          if (typeof body.expires_at !== 'string' || Number.isNaN(expiresAt.getTime()))
            throw errors.validation('expires_at must be an ISO 8601 timestamp.', 'expires_at');
        }
        const key = await createKey(svc.db, svc.clock, { storeId: params.storeId, scopes, livemode: body.livemode ?? false, expiresAt });
        return { status: 201, body: key };
      }),
    },
    // Public custom tools (core/tools/publish.ts): the operator reviews a store's tool, then
    // publishes it to every store (each store still enables it) or withdraws it.
    {
      method: 'GET',
      path: '/v1/admin/tools/:id',
      handler: guard(async (_request, params) => ({ status: 200, body: adminToolView(await toolById(svc.db, params.id)) })),
    },
    {
      method: 'POST',
      path: '/v1/admin/tools/:id/publish',
      handler: guard(async (_request, params) => {
        const tool = await publishTool(svc.db, svc.clock, params.id);
        forgetCustomTools(tool.store_id);
        return { status: 200, body: adminToolView(tool) };
      }),
    },
    {
      method: 'POST',
      path: '/v1/admin/tools/:id/unpublish',
      handler: guard(async (_request, params) => {
        const { tool, stores } = await unpublishTool(svc.db, svc.clock, params.id);
        // The stores that had enabled it lose it now: their MCP clients are told.
        for (const storeId of [tool.store_id, ...stores]) {
          forgetCustomTools(storeId);
          if (storeId !== tool.store_id) void notifyToolsChanged(storeId);
        }
        return { status: 200, body: adminToolView(tool) };
      }),
    },
    {
      method: 'DELETE',
      path: '/v1/stores/:storeId/api-keys/:keyId',
      handler: guard(async (_request, params) => {
        await requireStore(svc, params.storeId);
        if (!isUuid(params.keyId)) throw errors.notFound(`api key: '${params.keyId}'`, 'key_id');
        const hash = await revokeKey(svc.db, svc.clock, params.storeId, params.keyId);
        svc.keys.forget(hash);
        return { status: 200, body: { object: 'api_key', id: params.keyId, revoked: true } };
      }),
    },
  ];
}

const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

async function requireStore(svc: Services, storeId: string) {
  if (!isUuid(storeId) || !(await getStore(svc.db, storeId))) throw errors.notFound(`store: '${storeId}'`, 'store_id');
}

function checkAdmin(svc: Services, request: Request) {
  if (!svc.adminToken) throw errors.auth('The admin API is disabled: set SVC_ADMIN_TOKEN on the server.');
  const given = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
  const a = Buffer.from(given);
  const b = Buffer.from(svc.adminToken);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw errors.auth('Invalid admin token. Pass it as Authorization: Bearer <token>.');
}
