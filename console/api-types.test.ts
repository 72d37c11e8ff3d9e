/**
 * The console's types come from the registry (console/api-types.ts): the generated file is the
 * registry's as it is now, and a field renamed in a plugin's schema makes the console's type-check
 * fail on the page that still reads it (the pages are type-checked against the types a registry
 * with the rename generates; the same copy with today's types passes, so the rename is the cause).
 */
import { afterAll, expect, test } from 'bun:test';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PluginDef } from '../core/plugins/contract';
import { pluginList } from '../plugins/index';
import { API_TYPES_FILE, apiTypesSource } from './api-types';

const root = join(import.meta.dir, '..');
let dir: string | undefined;
afterAll(() => dir && rm(dir, { recursive: true, force: true }));

/** A JSON copy of a schema with the property `from` called `to` wherever an object declares it. */
function renamed(schema: unknown, from: string, to: string): any {
  const walk = (node: any): any => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const out: any = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
    if (out.properties && from in out.properties) {
      out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k === from ? to : k, v]));
      if (Array.isArray(out.required)) out.required = out.required.map((k: string) => (k === from ? to : k));
    }
    return out;
  };
  return walk(JSON.parse(JSON.stringify(schema)));
}

/** The registry's plugins with one plugin's field renamed in every action's input and output. */
const withRename = (plugin: string, from: string, to: string): PluginDef[] =>
  pluginList.map((p) =>
    p.name !== plugin
      ? p
      : {
          ...p,
          actions: Object.fromEntries(
            Object.entries(p.actions).map(([name, a]) => [name, { ...a, input: renamed(a.input, from, to), output: renamed(a.output, from, to) }]),
          ),
        },
  );

/** The console's pages and kit, copied with the given generated types, then type-checked: tsc's output. */
async function typeCheckWith(types: string): Promise<{ code: number; out: string }> {
  // Under node_modules, so preact and the QR matrix resolve as they do for the console itself.
  dir ??= await mkdtemp(join(root, 'node_modules', '.cache-svc-console-types-'));
  await rm(join(dir, 'console'), { recursive: true, force: true });
  await rm(join(dir, 'plugins'), { recursive: true, force: true });
  await cp(join(root, 'console', 'src'), join(dir, 'console', 'src'), { recursive: true });
  for (const name of await readdir(join(root, 'plugins'))) {
    const pages = join(root, 'plugins', name, 'console');
    if (!existsSync(pages)) continue;
    await mkdir(join(dir, 'plugins', name), { recursive: true });
    await cp(pages, join(dir, 'plugins', name, 'console'), { recursive: true, filter: (f) => !f.endsWith('.test.ts') });
  }
  await writeFile(join(dir, 'console', 'src', 'api-types.ts'), types);
  const { compilerOptions } = JSON.parse(await readFile(join(root, 'tsconfig.json'), 'utf8'));
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { ...compilerOptions, types: [] }, include: ['console/src', 'plugins'] }),
  );
  const tsc = Bun.spawn([join(root, 'node_modules', '.bin', 'tsc'), '-p', join(dir, 'tsconfig.json')], { stdout: 'pipe', stderr: 'pipe' });
  const [out, err] = await Promise.all([new Response(tsc.stdout).text(), new Response(tsc.stderr).text()]);
  return { code: await tsc.exited, out: `${out}${err}` };
}

test('the generated types are those of the registry as it is', async () => {
  // `npm test`, `npm run typecheck` and `npm start` write it (console/build.ts) before anything reads it.
  expect(await readFile(API_TYPES_FILE, 'utf8')).toBe(await apiTypesSource());
});

// Two type-checks of the console on a busy machine: a generous limit.
test("a field renamed in a plugin's schema fails the console's type-check, on the page that reads it", async () => {
  const today = await typeCheckWith(await apiTypesSource());
  expect(today.out.trim()).toBe('');
  expect(today.code).toBe(0);

  const types = await apiTypesSource(withRename('products', 'sku', 'stock_code'));
  expect(types).toContain('stock_code');
  const renamedCheck = await typeCheckWith(types);
  expect(renamedCheck.code).not.toBe(0);
  expect(renamedCheck.out).toContain('plugins/products/console/products.tsx');
  expect(renamedCheck.out).toMatch(/'sku'/);
}, 120_000);
