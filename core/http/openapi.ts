import { Type, type TSchema } from '@sinclair/typebox';
import { ALL_SCOPES, PLANS } from '../keys';
import { acceptedScopes, type PluginDef } from '../plugins/contract';
import { Timestamp, Uuid } from '../plugins/schema';
import { restRoutes } from './rest';
import { LATEST, VERSIONS } from './versioning';

/**
 * The OpenAPI 3.1 document. Plugin operations come only from restRoutes(), the same derivation
 * that mounts the routes, so the document cannot drift from what the server answers. The admin
 * API is not a plugin, so its routes are described by the one table below.
 */

type Json = Record<string, any>;

/** TypeBox marks schemas with symbol keys (Kind, Optional); a JSON round trip drops them. */
const plain = (schema: TSchema): Json => simplifyEnums(JSON.parse(JSON.stringify(schema)));

/**
 * TypeBox writes a union of string literals as anyOf of consts (nested for unions of unions).
 * The same set as a plain `enum` means the same thing and docs UIs render it as a choice list.
 */
function simplifyEnums(node: any): any {
  if (Array.isArray(node)) return node.map(simplifyEnums);
  if (!node || typeof node !== 'object') return node;
  const out: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, simplifyEnums(v)]));
  const values = Array.isArray(out.anyOf) ? out.anyOf.map(stringChoices) : [];
  if (values.length && values.every(Boolean)) {
    const { anyOf: _, ...rest } = out;
    return { ...rest, type: 'string', enum: values.flat() };
  }
  return out;
}

/** The strings a bare `{const}` or `{enum}` string schema allows, or null for any other schema. */
function stringChoices(s: Json): string[] | null {
  const keys = Object.keys(s).filter((k) => k !== 'type');
  if (s.type !== 'string' || keys.length !== 1) return null;
  if (typeof s.const === 'string') return [s.const];
  if (Array.isArray(s.enum) && s.enum.every((v: unknown) => typeof v === 'string')) return s.enum;
  return null;
}

/** `/v1/stores/:storeId/products/:id` -> `/v1/stores/{storeId}/products/{id}`. */
const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
const pathParamNames = (path: string) => [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);

/** First sentence, for the one-line summary; the full text goes into the description. */
const firstSentence = (text: string) => /^.*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text;

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** A store route takes the API key either way (SPEC 4, 5.2). */
const API_KEY_SECURITY = [{ ApiKeyAuth: [] }, { ApiKeyBearer: [] }];

// Every error status the REST pipeline can produce (SPEC 7), each with the shared envelope.
// 410 is added because an X-API-Version past its sunset is answered with the same envelope.
const ERROR_RESPONSES: [status: string, name: string, description: string][] = [
  ['400', 'BadRequest', 'invalid_request_error: a missing or invalid field, malformed JSON, or an invalid X-API-Version; `param` names the field.'],
  ['401', 'Unauthorized', 'authentication_error (invalid_api_key): the key is missing, malformed, revoked or expired.'],
  ['403', 'Forbidden', 'permission_error (insufficient_scope) when the key lacks the scope; store_mismatch_error when the URL store is not the key\'s store.'],
  ['404', 'NotFound', 'not_found_error (resource_missing): the id is wrong, belongs to another store, or was archived.'],
  ['409', 'Conflict', 'conflict_error: a duplicate unique field, an invalid state transition, or an Idempotency-Key still in progress.'],
  ['410', 'Gone', 'The X-API-Version this request is pinned to has been retired.'],
  ['429', 'RateLimited', 'rate_limit_error (rate_limit_exceeded): retry after the Retry-After delay.'],
  ['500', 'InternalError', 'api_error (internal_error): an unexpected failure; retry with exponential backoff.'],
];
const errorResponseRefs = () => Object.fromEntries(ERROR_RESPONSES.map(([status, name]) => [status, ref('responses', name)]));

/** Headers on every response (SPEC 4 and 9). */
const commonResponseHeaders = () => ({
  'X-Request-Id': ref('headers', 'X-Request-Id'),
  'X-API-Version': ref('headers', 'X-API-Version'),
  'X-API-Latest-Version': ref('headers', 'X-API-Latest-Version'),
});

interface AdminOperation {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  operationId: string;
  description: string;
  status: number;
  body?: TSchema;
  output: TSchema;
}

const StoreId = Uuid('The store id.');
const Scopes = Type.Array(Type.String({ enum: ALL_SCOPES }), { description: 'Scopes of the key; all scopes when left out.' });
const ApiKey = Type.Object({
  object: Type.Literal('api_key'),
  id: Uuid(),
  key: Type.String({ description: 'The plain key: returned only at creation, store it now.' }),
  key_prefix: Type.String(),
  scopes: Type.Array(Type.String()),
  livemode: Type.Boolean(),
  expires_at: Type.Union([Timestamp(), Type.Null()]),
  created_at: Timestamp(),
});

const AdminTool = Type.Object({
  object: Type.Literal('tool'),
  id: Uuid(),
  store_id: Uuid('The store that owns the tool.'),
  name: Type.String(),
  description: Type.String(),
  category: Type.Union([Type.String(), Type.Null()]),
  parameters: Type.Record(Type.String(), Type.Unknown()),
  execution_type: Type.String(),
  execution_config: Type.Record(Type.String(), Type.Unknown()),
  visibility: Type.String({ enum: ['private', 'public'] }),
  requires_plan: Type.String(),
  requires_approval: Type.Boolean(),
  secret_names: Type.Array(Type.String()),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

/** The admin API (core/http/admin.ts), the only operations not derived from a plugin. */
const ADMIN_OPERATIONS: AdminOperation[] = [
  {
    method: 'POST',
    path: '/v1/stores',
    operationId: 'admin_create_store',
    description: 'Create a store and its first (sandbox) API key. The plain key is returned only in this response.',
    status: 201,
    body: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 200 }),
      plan: Type.Optional(Type.String({ enum: [...PLANS], default: 'free' })),
      scopes: Type.Optional(Scopes),
    }),
    output: Type.Object({
      store: Type.Object({ object: Type.Literal('store'), id: StoreId, name: Type.String(), plan: Type.String(), created_at: Timestamp() }),
      api_key: ApiKey,
    }),
  },
  {
    method: 'POST',
    path: '/v1/stores/:storeId/api-keys',
    operationId: 'admin_create_api_key',
    description: 'Create another API key for a store. The plain key is returned only in this response.',
    status: 201,
    body: Type.Object({
      scopes: Type.Optional(Scopes),
      livemode: Type.Optional(Type.Boolean({ default: false, description: 'true for a svc_live_ key, false for svc_test_.' })),
      expires_at: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
    }),
    output: ApiKey,
  },
  {
    method: 'DELETE',
    path: '/v1/stores/:storeId/api-keys/:keyId',
    operationId: 'admin_revoke_api_key',
    description: 'Revoke an API key; requests made with it then fail with 401.',
    status: 200,
    output: Type.Object({ object: Type.Literal('api_key'), id: Uuid(), revoked: Type.Literal(true) }),
  },
  {
    method: 'GET',
    path: '/v1/admin/tools/:id',
    operationId: 'admin_get_tool',
    description: 'Fetch any store\'s custom tool for review: its definition (URL, headers with secret references, code) and the owning store.',
    status: 200,
    output: AdminTool,
  },
  {
    method: 'POST',
    path: '/v1/admin/tools/:id/publish',
    operationId: 'admin_publish_tool',
    description:
      'Publish a custom tool to every store (visibility public); stores cannot do it themselves. Each store then sees it in its tool lists and offers it to its agents and MCP clients only once it enables it. Idempotent. 409 duplicate_name when another public tool has the name; 400 when an HTTP tool\'s host is a secret reference.',
    status: 200,
    output: AdminTool,
  },
  {
    method: 'POST',
    path: '/v1/admin/tools/:id/unpublish',
    operationId: 'admin_unpublish_tool',
    description: 'Withdraw a published tool (visibility private): other stores stop seeing and using it, and their enablements are dropped. Idempotent.',
    status: 200,
    output: AdminTool,
  },
];

function pathParameter(name: string, inputProps: Json): Json {
  if (name === 'storeId') return ref('parameters', 'StoreId');
  const schema = inputProps[name] ? { ...inputProps[name] } : { type: 'string' };
  const description = schema.description;
  delete schema.description;
  return { name, in: 'path', required: true, ...(description ? { description } : {}), schema };
}

/** Header parameters every operation accepts; Idempotency-Key only where the server honours it. */
const headerParameters = (method: string) => [
  ref('parameters', 'ApiVersion'),
  ...(method === 'POST' || method === 'PATCH' ? [ref('parameters', 'IdempotencyKey')] : []),
];

/** A streaming action answers server-sent events, each `data:` line one output object. */
const streamResponse = (status: number, output: TSchema) => ({
  [status]: {
    description: 'Server-sent events: each `data:` line is one JSON event of this schema.',
    headers: commonResponseHeaders(),
    content: { 'text/event-stream': { schema: plain(output) } },
  },
});

const successResponse = (status: number, output: TSchema) => ({
  [String(status)]: {
    description: status === 201 ? 'Created.' : status === 204 ? 'Done; no body.' : 'Success.',
    headers: commonResponseHeaders(),
    ...(status === 204 ? {} : { content: { 'application/json': { schema: plain(output) } } }),
  },
});

/** Splits an action input schema into query parameters or a body, leaving out path parameters. */
function inputParts(method: string, input: Json, pathNames: string[]): { query: Json[]; body?: Json } {
  const props: Json = input.properties ?? {};
  const required: string[] = input.required ?? [];
  const rest = Object.keys(props).filter((k) => !pathNames.includes(k));
  if (method === 'GET' || method === 'DELETE') {
    const query = rest.map((name) => {
      const { description, ...schema } = props[name];
      return { name, in: 'query', required: required.includes(name), ...(description ? { description } : {}), schema };
    });
    return { query };
  }
  // A body of free-form fields (a tool's secrets: name to value) has no named properties.
  const freeForm = typeof input.additionalProperties === 'object';
  if (!rest.length && !freeForm) return { query: [] };
  const bodyRequired = required.filter((k) => rest.includes(k));
  const schema: Json = { ...input, properties: Object.fromEntries(rest.map((k) => [k, props[k]])) };
  if (bodyRequired.length) schema.required = bodyRequired;
  else delete schema.required;
  return { query: [], body: { required: bodyRequired.length > 0, content: { 'application/json': { schema } } } };
}

function pluginOperations(plugins: PluginDef[]): { path: string; method: string; operation: Json }[] {
  return restRoutes(plugins).map((route) => {
    const input = plain(route.action.input);
    const pathNames = pathParamNames(route.path);
    const { query, body } = inputParts(route.method, input, pathNames);
    const scopes = acceptedScopes(route.plugin, route.action.kind);
    const scopeSentence = `Requires an API key holding one of these scopes: ${scopes.map((s) => `\`${s}\``).join(', ')}.`;
    const events = route.action.emits?.length ? `\n\nEmits webhook events: ${route.action.emits.map((e) => `\`${e}\``).join(', ')}.` : '';
    const operation: Json = {
      operationId: `${route.plugin.name}_${route.actionName}`,
      tags: [route.plugin.name],
      summary: firstSentence(route.action.description),
      description: `${route.action.description}\n\n${scopeSentence}${events}`,
      parameters: [...pathNames.map((n) => pathParameter(n, input.properties ?? {})), ...query, ...headerParameters(route.method)],
      ...(body ? { requestBody: body } : {}),
      responses: {
        ...(route.action.stream ? streamResponse : successResponse)(route.status, route.action.output),
        ...errorResponseRefs(),
      },
      security: API_KEY_SECURITY,
      'x-required-scopes': scopes,
    };
    return { path: toOpenApiPath(route.path), method: route.method.toLowerCase(), operation };
  });
}

function adminOperations(): { path: string; method: string; operation: Json }[] {
  return ADMIN_OPERATIONS.map((op) => {
    const pathNames = pathParamNames(op.path);
    const { 400: bad, 401: unauth, 404: missing, 409: conflict, 500: internal } = errorResponseRefs();
    const operation: Json = {
      operationId: op.operationId,
      tags: ['admin'],
      summary: firstSentence(op.description),
      description: `${op.description}\n\nRequires the admin token (SVC_ADMIN_TOKEN) as \`Authorization: Bearer <token>\`; API keys are not accepted.`,
      parameters: [
        ...pathNames.map((n) => (n === 'storeId' ? ref('parameters', 'StoreId') : pathParameter(n, { [n]: plain(Uuid(`The ${n}.`)) }))),
        ref('parameters', 'ApiVersion'),
      ],
      ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: plain(op.body) } } } } : {}),
      // The admin handlers answer only these: no rate limit or scopes apply; only publishing conflicts.
      responses: {
        ...successResponse(op.status, op.output),
        400: bad,
        401: unauth,
        404: missing,
        ...(op.operationId === 'admin_publish_tool' ? { 409: conflict } : {}),
        500: internal,
      },
      security: [{ AdminToken: [] }],
    };
    return { path: toOpenApiPath(op.path), method: op.method.toLowerCase(), operation };
  });
}

const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      type: Type.String({
        description: 'Category, for programmatic handling.',
        enum: ['invalid_request_error', 'authentication_error', 'permission_error', 'store_mismatch_error', 'not_found_error', 'conflict_error', 'rate_limit_error', 'api_error'],
      }),
      message: Type.String({ description: 'Human-readable; not to be parsed.' }),
      code: Type.String({ description: 'Specific code, e.g. validation_failed, insufficient_scope, duplicate_sku.' }),
      param: Type.Union([Type.String(), Type.Null()], { description: 'The offending parameter, or null.' }),
      request_id: Type.String({ description: 'Same as the X-Request-Id response header.' }),
    }),
  },
  { description: 'The error envelope of every failed request (SPEC 7).' },
);

function components(): Json {
  const versionPattern = '^v\\d{4}-\\d{2}-\\d{2}$';
  const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });
  return {
    schemas: { Error: plain(ErrorSchema) },
    responses: Object.fromEntries(
      ERROR_RESPONSES.map(([status, name, description]) => [
        name,
        {
          description,
          headers: {
            ...commonResponseHeaders(),
            ...(status === '429' ? { 'Retry-After': header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }) } : {}),
          },
          content: { 'application/json': { schema: ref('schemas', 'Error') } },
        },
      ]),
    ),
    parameters: {
      StoreId: { name: 'storeId', in: 'path', required: true, description: 'The store id; must be the API key\'s own store.', schema: plain(StoreId) },
      ApiVersion: {
        name: 'X-API-Version',
        in: 'header',
        required: false,
        description: `API version to use, vYYYY-MM-DD; the latest (${LATEST.id}) when absent. Known: ${VERSIONS.map((v) => v.id).join(', ')}.`,
        schema: { type: 'string', pattern: versionPattern, examples: [LATEST.id] },
      },
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Makes a retry safe: the same key within 24 hours returns the original response instead of acting twice.',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      },
    },
    headers: {
      'X-Request-Id': header('Identifier of this request; quote it when reporting a problem.'),
      'X-API-Version': header('The API version used for this response.', { type: 'string', pattern: versionPattern }),
      'X-API-Latest-Version': header('The latest stable API version.', { type: 'string', pattern: versionPattern }),
    },
    securitySchemes: {
      ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A store API key (svc_live_... or svc_test_...).' },
      ApiKeyBearer: { type: 'http', scheme: 'bearer', description: 'The same store API key as `Authorization: Bearer <key>` (the custom-tool gateway form, MCP-style clients).' },
      AdminToken: { type: 'http', scheme: 'bearer', description: 'The server\'s admin token (SVC_ADMIN_TOKEN), for the admin API only.' },
    },
  };
}

/** Builds the whole document from the plugin declarations plus the admin table. */
export function buildOpenApi(plugins: PluginDef[]): Json {
  const paths: Json = {};
  for (const { path, method, operation } of [...pluginOperations(plugins), ...adminOperations()]) {
    (paths[path] ??= {})[method] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc API',
      version: LATEST.id,
      description: [
        'The commerce REST API. Every store route needs an API key, in the `x-api-key` header or as `Authorization: Bearer <key>`.',
        'Each operation lists the scopes it accepts in `x-required-scopes`: any one of them is enough.',
        'Errors share one envelope (the `Error` schema). Pin a version with the `X-API-Version` header.',
      ].join('\n\n'),
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: [
      ...plugins.map((p) => ({ name: p.name, description: `${p.name} (${p.category})` })),
      { name: 'admin', description: 'Store and API key management with the admin token.' },
    ],
    paths,
    components: components(),
    security: API_KEY_SECURITY,
  };
}
