import { Type, type TSchema } from '@sinclair/typebox';
import type { Registry } from '../plugins/registry';
import { errorDef } from '../errors';
import { Uuid } from '../plugins/schema';
import { restRoutes, type RestRoute } from './rest';
import { LATEST, VERSIONS } from './versioning';
import { fillRegistryEnums, plain } from './openapi-schema';
import { access, API_KEY_SECURITY, userSchemes } from './openapi-security';

/**
 * The OpenAPI 3.1 document. Operations come only from restRoutes(), the same derivation that
 * mounts the routes, so the document cannot drift from what the server answers; webhook payloads
 * come from the event types the plugins declare.
 */

type Json = Record<string, any>;

/** `/v1/stores/:storeId/products/:id` -> `/v1/stores/{storeId}/products/{id}`. */
const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
const pathParamNames = (path: string) => [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);

/** First sentence, for the one-line summary; the full text goes into the description. */
const firstSentence = (text: string) => /^.*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text;

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

// Every error status the REST pipeline can produce (SPEC 7), each with the shared envelope.
// 410 is added because an X-API-Version past its sunset is answered with the same envelope.
const ERROR_RESPONSES: [status: string, name: string, description: string][] = [
  ['400', 'BadRequest', 'invalid_request_error: a missing or invalid field, malformed JSON, or an invalid X-API-Version; `param` names the field.'],
  ['401', 'Unauthorized', 'authentication_error (invalid_api_key): the key is missing, malformed, revoked or expired.'],
  [
    '403',
    'Forbidden',
    "permission_error (insufficient_scope) when the key lacks the scope; store_mismatch_error when the URL store is not the key's store.",
  ],
  ['404', 'NotFound', 'not_found_error (resource_missing): the id is wrong, belongs to another store, or was archived.'],
  ['409', 'Conflict', 'conflict_error: a duplicate unique field, an invalid state transition, or an Idempotency-Key still in progress.'],
  ['410', 'Gone', 'The X-API-Version this request is pinned to has been retired.'],
  ['429', 'RateLimited', 'rate_limit_error (rate_limit_exceeded): retry after the Retry-After delay.'],
  ['500', 'InternalError', 'api_error (internal_error): an unexpected failure; retry with exponential backoff.'],
  ['503', 'DatabaseUnavailable', 'api_error (database_unavailable): the database cannot be reached right now; retry after the Retry-After delay.'],
];
// Only operations that take a body can send one over the limit.
const BODY_ERROR_RESPONSES: [status: string, name: string, description: string][] = [
  [
    '413',
    'RequestTooLarge',
    'invalid_request_error (request_too_large): the request body exceeds the route limit (1 MiB; multipart uploads 10 MiB).',
  ],
];
const errorResponseRefs = () => Object.fromEntries(ERROR_RESPONSES.map(([status, name]) => [status, ref('responses', name)]));
const bodyErrorRefs = () => Object.fromEntries(BODY_ERROR_RESPONSES.map(([status, name]) => [status, ref('responses', name)]));

/** Headers on every response (SPEC 4 and 9). */
const commonResponseHeaders = () => ({
  'X-Request-Id': ref('headers', 'X-Request-Id'),
  'X-API-Version': ref('headers', 'X-API-Version'),
  'X-API-Latest-Version': ref('headers', 'X-API-Latest-Version'),
});

function pathParameter(name: string, inputProps: Json): Json {
  if (name === 'storeId') return ref('parameters', 'StoreId');
  const schema = inputProps[name] ? { ...inputProps[name] } : { type: 'string' };
  const description = schema.description;
  delete schema.description;
  return { name, in: 'path', required: true, ...(description ? { description } : {}), schema };
}

/**
 * Header parameters every operation accepts; Idempotency-Key only where the server honours it: a
 * POST or PATCH that writes. A read-only POST (a render, a preview: a body too large or too nested
 * for a query) changes nothing, so there is nothing to replay (it runs bare: core/plugins/invoke.ts).
 */
const headerParameters = (method: string, kind: string) => [
  ref('parameters', 'ApiVersion'),
  ...((method === 'POST' || method === 'PATCH') && kind !== 'read' ? [ref('parameters', 'IdempotencyKey')] : []),
];

/**
 * A raw answer: a stream of server-sent events (each `data:` line one output object), an image, a
 * page; with `jsonOutput`, one JSON object instead when the client asks for it.
 */
const rawResponse = (status: number, output: TSchema, contentType = 'application/octet-stream', jsonOutput?: TSchema) => ({
  [status]: {
    description:
      (contentType === 'text/event-stream' ? 'Server-sent events: each `data:` line is one JSON event of this schema.' : `A ${contentType} body.`) +
      (jsonOutput ? ' Or one JSON object (application/json) when the request asks for it.' : ''),
    headers: commonResponseHeaders(),
    content: {
      // A stream is text to a client (and to validators); the shape of each event is told beside it.
      [contentType]: {
        schema:
          contentType === 'text/event-stream'
            ? { type: 'string', description: 'Server-sent events; see x-event-schema.', 'x-event-schema': plain(output) }
            : { type: 'string', format: 'binary' },
      },
      ...(jsonOutput ? { 'application/json': { schema: plain(jsonOutput) } } : {}),
    },
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
      // An object travels as `name[key]=value` (metadata filters, created[gte]): OpenAPI's deepObject.
      const style = schema.type === 'object' ? { style: 'deepObject', explode: true } : {};
      // Left out is the same as no filter; validators read an absent deepObject as {}.
      if (style.style) delete schema.minProperties;
      return { name, in: 'query', required: required.includes(name), ...(description ? { description } : {}), ...style, schema };
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

const since = (version: string | undefined) => (version ? `\n\nAdded in API version ${version}: a request pinned to an older version gets 404.` : '');

/** The body as the route reads it: JSON, a form, raw bytes or multipart parts. */
function requestBody(route: RestRoute, body: Json | undefined): Json | undefined {
  if (route.body === 'json') return body;
  if (route.body === 'form')
    return body && { ...body, content: { 'application/x-www-form-urlencoded': body.content['application/json'], ...body.content } };
  const type = route.body === 'multipart' ? 'multipart/form-data' : '*/*';
  const bytes = { [type]: { schema: { type: 'string', format: 'binary' } } };
  // A multipart route reads a JSON body too (core/http/body.ts): both are described.
  if (route.body === 'multipart' && body) return { required: true, content: { ...bytes, 'application/json': body.content['application/json'] } };
  return { required: true, content: bytes };
}

/** The error codes an action declares, with what each means. */
const errorCodes = (codes: string[] | undefined) =>
  codes?.length ? { 'x-error-codes': Object.fromEntries(codes.map((c) => [c, errorDef(c)?.description ?? ''])) } : {};

function pluginOperations(registry: Registry): { path: string; method: string; operation: Json }[] {
  const oauth = registry.plugins.some((p) => p.oauth);
  return restRoutes(registry).map((route) => {
    const input = plain(route.action.input);
    const pathNames = pathParamNames(route.path);
    const { query, body } = inputParts(route.method, input, pathNames);
    const who = access(route, oauth);
    const events = route.action.emits?.length ? `\n\nEmits webhook events: ${route.action.emits.map((e) => `\`${e}\``).join(', ')}.` : '';
    const operation: Json = {
      operationId: `${route.plugin.name}_${route.actionName}`,
      tags: [route.plugin.name],
      summary: firstSentence(route.action.description),
      description: `${route.action.description}\n\n${who.sentence}${events}${since(route.action.rest!.since)}`,
      parameters: [...pathNames.map((n) => pathParameter(n, input.properties ?? {})), ...query, ...headerParameters(route.method, route.action.kind)],
      // A GET or DELETE reads no body, whatever its route reads for other methods (raw protocol routes).
      ...(route.method !== 'GET' && route.method !== 'DELETE' && (route.body !== 'json' || body) ? { requestBody: requestBody(route, body) } : {}),
      responses: {
        ...(route.response === 'raw'
          ? rawResponse(route.status, route.action.output, route.action.rest!.contentType, route.action.rest!.jsonOutput)
          : successResponse(route.status, route.action.output)),
        ...errorResponseRefs(),
        ...(body ? bodyErrorRefs() : {}),
      },
      security: who.security,
      ...(who.scopes ? { 'x-required-scopes': who.scopes } : {}),
      ...(route.action.rest!.since ? { 'x-since-version': route.action.rest!.since } : {}),
      ...errorCodes(route.action.errors),
    };
    return { path: toOpenApiPath(route.path), method: route.method.toLowerCase(), operation };
  });
}

const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      type: Type.String({
        description: 'Category, for programmatic handling.',
        enum: [
          'invalid_request_error',
          'authentication_error',
          'permission_error',
          'store_mismatch_error',
          'not_found_error',
          'conflict_error',
          'rate_limit_error',
          'api_error',
        ],
      }),
      message: Type.String({ description: 'Human-readable; not to be parsed.' }),
      code: Type.String({ description: 'Specific code, e.g. validation_failed, insufficient_scope, duplicate_sku.' }),
      param: Type.Union([Type.String(), Type.Null()], { description: 'The offending parameter, or null.' }),
      request_id: Type.String({ description: 'Same as the X-Request-Id response header.' }),
    }),
  },
  { description: 'The error envelope of every failed request (SPEC 7).' },
);

function components(registry: Registry): Json {
  const versionPattern = '^v\\d{4}-\\d{2}-\\d{2}$';
  const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });
  return {
    schemas: { Error: plain(ErrorSchema) },
    responses: Object.fromEntries(
      [...ERROR_RESPONSES, ...BODY_ERROR_RESPONSES].map(([status, name, description]) => [
        name,
        {
          description,
          headers: {
            ...commonResponseHeaders(),
            ...(status === '429' || status === '503'
              ? { 'Retry-After': header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }) }
              : {}),
          },
          content: { 'application/json': { schema: ref('schemas', 'Error') } },
        },
      ]),
    ),
    parameters: {
      StoreId: {
        name: 'storeId',
        in: 'path',
        required: true,
        description: "The store id; must be the API key's own store.",
        schema: plain(Uuid('The store id.')),
      },
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
      ApiKeyBearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'The same store API key as `Authorization: Bearer <key>` (the custom-tool gateway form, MCP-style clients).',
      },
      AdminToken: { type: 'http', scheme: 'bearer', description: "The server's admin token (SVC_ADMIN_TOKEN), for the admin API only." },
      ...userSchemes(registry),
    },
  };
}

/** One entry per event type: the POST svc sends (SPEC 2.8), with that type's `data`. */
function webhookPayloads(registry: Registry): Json {
  return Object.fromEntries(
    [...registry.events].map(([type, data]) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replaceAll('.', '_')}`,
          summary: `The ${type} event`,
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'object', 'type', 'created_at', 'data'],
                  properties: {
                    id: { type: 'string' },
                    object: { const: 'event' },
                    type: { const: type },
                    created_at: { type: 'string' },
                    data: plain(data),
                  },
                },
              },
            },
          },
          responses: { '2XX': { description: 'Any 2xx acknowledges the delivery; other answers are retried.' } },
        },
      },
    ]),
  );
}

/** Builds the whole document from the plugin declarations. */
export function buildOpenApi(registry: Registry): Json {
  const plugins = registry.plugins;
  const paths: Json = {};
  for (const { path, method, operation } of pluginOperations(registry)) {
    (paths[path] ??= {})[method] = fillRegistryEnums(operation, registry);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc API',
      version: LATEST.id,
      description: [
        "The commerce REST API. A store route takes an API key (in the `x-api-key` header or as `Authorization: Bearer <key>`) or a signed-in user's access token (OAuth 2.0, `Authorization: Bearer <token>`); each operation's `security` says which it accepts.",
        'Each operation lists the scopes it accepts in `x-required-scopes`: any one of them is enough.',
        'Errors share one envelope (the `Error` schema). Pin a version with the `X-API-Version` header.',
      ].join('\n\n'),
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: plugins.map((p) => ({ name: p.name, description: p.description ?? `${p.name} (${p.category})` })),
    paths,
    webhooks: webhookPayloads(registry),
    components: components(registry),
    security: API_KEY_SECURITY,
  };
}
