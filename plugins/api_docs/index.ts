import { Type } from '@sinclair/typebox';
import { action, definePlugin, Input } from '../../core/sdk';
import { endpoints, operation, specFor } from './docs';

/**
 * SPEC 4.10 `api_docs`: the live OpenAPI 3.1 document (the one /openapi.json serves) as the caller
 * sees it: only the operations its credential may call, so an agent plans with what it can do.
 */
const Tag = Type.String({ minLength: 1, maxLength: 100, description: "Only this tag's operations (a plugin name: 'products')." });

const Spec = Type.Object(
  {
    openapi: Type.String(),
    info: Type.Object({}, { additionalProperties: true }),
    paths: Type.Record(Type.String(), Type.Unknown()),
    components: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: true, description: 'An OpenAPI 3.1 document.' },
);

const Endpoint = Type.Object({
  object: Type.Literal('endpoint'),
  operation_id: Type.String({ description: 'The id get_schema takes (`<plugin>_<action>`, also the flat tool name).' }),
  method: Type.String(),
  path: Type.String(),
  tag: Type.String(),
  summary: Type.String(),
  scopes: Type.Array(Type.String(), { description: 'Any one of these is enough; empty for a public operation.' }),
});

const Operation = Type.Object({
  object: Type.Literal('operation'),
  operation_id: Type.String(),
  method: Type.String(),
  path: Type.String(),
  tag: Type.String(),
  operation: Type.Object(
    {},
    { additionalProperties: true, description: 'The OpenAPI Operation Object: parameters, requestBody, responses, x-required-scopes.' },
  ),
});

const endpointOf = (e: ReturnType<typeof endpoints>[number]) => ({
  object: 'endpoint' as const,
  operation_id: e.operation_id,
  method: e.method,
  path: e.path,
  tag: e.tag,
  summary: String(e.operation.summary ?? ''),
  scopes: (e.operation['x-required-scopes'] as string[] | undefined) ?? [],
});

export default definePlugin({
  name: 'api_docs',
  category: 'platform',
  description: 'The REST API as this credential may use it: the OpenAPI document, its endpoints, and one operation with its schemas.',
  resource: 'operation',
  catalog: true,
  // SPEC 5.4: platform or platform:read; nothing here writes.
  scopes: { read: ['platform', 'platform:read'], write: ['platform', 'platform:read'] },
  actions: {
    get_spec: action({
      kind: 'read',
      description:
        'The OpenAPI 3.1 document of the operations you may call (your credential and scopes), with their webhook payloads; `tag` narrows it to one plugin.',
      input: Input({ tag: Type.Optional(Tag) }),
      output: Spec,
      rest: { method: 'GET', path: '/api-docs/spec' },
      handler: async (ctx, { tag }) => specFor(ctx, tag) as any,
    }),
    list_endpoints: action({
      kind: 'read',
      description: 'The endpoints you may call: method, path, summary, the scopes each accepts, and the operation id get_schema takes.',
      input: Input({ tag: Type.Optional(Tag) }),
      output: Type.Object({ object: Type.Literal('list'), data: Type.Array(Endpoint), has_more: Type.Boolean(), url: Type.String() }),
      rest: { method: 'GET', path: '/api-docs/endpoints' },
      handler: async (ctx, { tag }) => ({
        object: 'list' as const,
        data: endpoints(ctx)
          .filter((e) => !tag || e.tag === tag)
          .map(endpointOf),
        has_more: false,
        url: `${ctx.storePath}/api-docs/endpoints`,
      }),
    }),
    get_schema: action({
      kind: 'read',
      description:
        'One operation by its id (`products_create_product`): parameters, request body and response schemas. An operation you cannot call is 404, as an unknown one.',
      input: Input({ operation_id: Type.String({ minLength: 1, maxLength: 200, description: 'The operation id, from list_endpoints.' }) }),
      output: Operation,
      rest: { method: 'GET', path: '/api-docs/endpoints/:operation_id' },
      example: { operation_id: 'api_docs_get_schema' },
      handler: async (ctx, { operation_id }) => {
        const e = operation(ctx, operation_id);
        return { object: 'operation' as const, operation_id: e.operation_id, method: e.method, path: e.path, tag: e.tag, operation: e.operation };
      },
    }),
  },
});
