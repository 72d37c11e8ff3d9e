/**
 * A typed client generated from the live /openapi.json, as a user would make one
 * (openapi-typescript + openapi-fetch): the generated types and a small client script must
 * type-check, and the script must work against a running server: create a product, list with a
 * cursor, get, update, and read an error envelope.
 */
import { afterAll, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import openapiTS from 'openapi-typescript';
import { setup } from './kit/setup';

const root = join(import.meta.dir, '..');
let dir: string | undefined;
afterAll(() => dir && rm(dir, { recursive: true, force: true }));

/** What a user writes against the generated types; a wrong field or type fails tsc. */
const CLIENT = `
import createClient from 'openapi-fetch';
import type { components, paths } from './api';

type Product = paths['/v1/stores/{storeId}/products/{id}']['get']['responses']['200']['content']['application/json'];
type ErrorEnvelope = components['schemas']['Error'];

export async function run(baseUrl: string, key: string, storeId: string) {
  const client = createClient<paths>({ baseUrl, headers: { 'x-api-key': key } });
  const made: Product[] = [];
  for (const name of ['Generated one', 'Generated two']) {
    const { data, error } = await client.POST('/v1/stores/{storeId}/products', {
      params: { path: { storeId } },
      body: { name, pricing_data: { retail: 12.5, currency: 'EUR' }, stock_quantity: 3 },
    });
    if (!data) throw new Error('create failed: ' + JSON.stringify(error));
    made.push(data);
  }
  // @ts-expect-error a price is a number: the generated types are not \`any\`
  void client.POST('/v1/stores/{storeId}/products', { params: { path: { storeId } }, body: { name: 'x', pricing_data: { retail: 'free' } } });

  const first = await client.GET('/v1/stores/{storeId}/products', { params: { path: { storeId }, query: { limit: 1 } } });
  const cursor: string = first.data!.data[0].id;
  const second = await client.GET('/v1/stores/{storeId}/products', { params: { path: { storeId }, query: { limit: 1, starting_after: cursor } } });

  const got = await client.GET('/v1/stores/{storeId}/products/{id}', { params: { path: { storeId, id: made[0].id } } });
  const retail: number = got.data!.pricing_data.retail;
  const updated = await client.PATCH('/v1/stores/{storeId}/products/{id}', {
    params: { path: { storeId, id: made[0].id } },
    body: { name: 'Renamed by the generated client' },
  });

  const missing = await client.GET('/v1/stores/{storeId}/products/{id}', {
    params: { path: { storeId, id: '00000000-0000-4000-8000-000000000000' } },
  });
  const envelope: ErrorEnvelope | undefined = missing.error;
  return {
    made: made.map((p) => p.id),
    pages: [first.data!.data.map((p) => p.id), second.data!.data.map((p) => p.id)],
    hasMore: first.data!.has_more,
    retail,
    updatedName: updated.data?.name,
    missingStatus: missing.response.status,
    code: envelope?.error.code,
    param: envelope?.error.param,
    requestId: envelope?.error.request_id,
  };
}
`;

// Generating, type-checking and a running server take seconds on a busy machine: a generous limit.
test('a client generated from /openapi.json type-checks and works against the running server', async () => {
  const h = await setup();
  const server = h.app.listen({ hostname: '127.0.0.1', port: 0 });
  try {
    const base = `http://127.0.0.1:${server.server!.port}`;
    const doc = await (await fetch(`${base}/openapi.json`)).json();

    // Under node_modules, so the client resolves openapi-fetch as a user's project would.
    dir = await mkdtemp(join(root, 'node_modules', '.cache-svc-generated-client-'));
    await Bun.write(join(dir, 'api.d.ts'), await openapiTS(doc));
    await Bun.write(join(dir, 'client.ts'), CLIENT);
    await Bun.write(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'bundler',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          lib: ['ES2022', 'DOM'],
          types: [],
        },
        files: ['client.ts', 'api.d.ts'],
      }),
    );
    const tsc = Bun.spawn([join(root, 'node_modules', '.bin', 'tsc'), '-p', join(dir, 'tsconfig.json')], { stdout: 'pipe', stderr: 'pipe' });
    const [out, err] = await Promise.all([new Response(tsc.stdout).text(), new Response(tsc.stderr).text()]);
    expect(`${out}${err}`.trim()).toBe('');
    expect(await tsc.exited).toBe(0);

    const { run } = await import(join(dir, 'client.ts'));
    const r = await run(base, h.key, h.store.id);
    // Newest first: one page of one, then the cursor leads to the other.
    expect(r.pages).toEqual([[r.made[1]], [r.made[0]]]);
    expect(r.hasMore).toBe(true);
    expect(r.retail).toBe(12.5);
    expect(r.updatedName).toBe('Renamed by the generated client');
    expect(r.missingStatus).toBe(404);
    expect(r.code).toBe('resource_missing');
    expect(r.param).toBe('id');
    expect(r.requestId).toMatch(/^req_/);
  } finally {
    await server.stop();
  }
}, 120_000);
