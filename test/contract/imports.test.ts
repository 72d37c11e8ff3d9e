import { expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { pluginList } from '../../plugins';
import { allMigrations } from '../../core/migrations';

/**
 * The import rules (ARCHITECTURE.md): one direction, enforced. Every `import`/`export ... from` of
 * every production file is read; a test file (*.test.ts, or a kit in test/kit/) may import anything.
 *
 *   core/cli.ts       -> plugins (the registry), workers, core/*
 *   plugins/<name>    -> core/sdk.ts only (the platform plugins also core/platform.ts), and
 *                        plugins/<other>/public.ts when declared in `requires`
 *   workers/          -> core/{tools,events,jobs,db,net,secrets,clock,plugins,log,webhooks}
 *   core/tools        -> never core/http or core/mcp
 *   core/*            -> never plugins/ or workers/ (cli.ts aside)
 */
const root = join(import.meta.dir, '..', '..');

/** Production source files under `dir` (.ts; .tsx too when asked: the console's pages). */
function sources(dir: string, withTsx: boolean): string[] {
  if (dir === 'console/dist' || dir.endsWith('node_modules')) return [];
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return sources(path, withTsx);
    const source = name.endsWith('.ts') || (withTsx && name.endsWith('.tsx'));
    return source && !name.endsWith('.test.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const files = (dir: string) => sources(dir, false);

/** Every import specifier of a file's text (relative or a package). */
const specifiersIn = (text: string) =>
  [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'/gm)].map((m) => m[1] ?? m[2]);

/** Relative imports of a file, resolved to repository paths (without extension). */
function importsOf(file: string): string[] {
  const specs = specifiersIn(readFileSync(join(root, file), 'utf8'));
  return specs.filter((s) => s.startsWith('.')).map((s) => normalize(join(dirname(file), s)).replace(/\.(tsx?|js|json|sql)$/, ''));
}

/** The plugins the platform is built of: they alone may import core/platform.ts. */
const PLATFORM_PLUGINS = [
  'admin',
  'agents',
  'api_keys',
  'custom_tools',
  'tool_executions',
  'users',
  'webhooks_mgmt',
  'workflows',
  // Instance-wide views and operations (issue 49): the OpenAPI document, health, nodes, clusters.
  'api_docs',
  'svc_status',
  'local_agent',
  'launch_cluster',
  // Traces the core's hot paths (core/plugins/telemetry.ts).
  'telemetry',
];

const requiresOf = new Map(pluginList.map((p) => [p.name, p.requires ?? []]));
const WORKER_MAY = [
  'core/tools',
  'core/events',
  'core/jobs',
  'core/db',
  'core/net',
  'core/secrets',
  'core/clock',
  'core/plugins',
  'core/log',
  'core/webhooks',
];

/** Why an edge is forbidden, or undefined when it is allowed. */
function violation(from: string, to: string): string | undefined {
  const inside = (dir: string, path: string) => path === dir || path.startsWith(dir + '/');
  if (inside('plugins', from) && from !== 'plugins/index.ts') {
    const self = from.split('/')[1];
    if (to === 'core/platform')
      return PLATFORM_PLUGINS.includes(self) ? undefined : 'core/platform.ts is for the platform plugins only; use core/sdk.ts';
    if (inside('core', to)) return to === 'core/sdk' ? undefined : 'a plugin imports the core only through core/sdk.ts';
    if (inside('plugins', to)) {
      const other = to.split('/')[1];
      if (other === self) return undefined;
      if (to !== `plugins/${other}/public`) return `a plugin imports another plugin only through its public.ts`;
      return requiresOf.get(self)?.includes(other)
        ? undefined
        : `plugins/${self} imports ${other}'s public.ts without declaring requires: ['${other}']`;
    }
    if (inside('workers', to) || inside('test', to)) return 'a plugin does not import workers/ or tests';
    return undefined;
  }
  if (inside('core', from)) {
    if (from === 'core/cli.ts') return undefined; // the composition root
    if (inside('plugins', to) || inside('workers', to)) return 'core never imports plugins/ or workers/ (only core/cli.ts composes them)';
    if (to === 'core/cli') return 'nothing imports the composition root';
    if (inside('core/tools', from) && (inside('core/http', to) || inside('core/mcp', to)))
      return 'core/tools is transport-neutral: no core/http or core/mcp';
    if (
      (inside('core/plugins', from) || inside('core/db', from) || inside('core/events', from) || inside('core/jobs', from)) &&
      (inside('core/http', to) || inside('core/mcp', to) || inside('core/tools', to))
    )
      return 'the lower layers (plugins, db, events, jobs) do not import the tool path or the transports';
    return undefined;
  }
  if (inside('workers', from) && inside('core', to) && !WORKER_MAY.some((d) => inside(d, to))) return `workers import only ${WORKER_MAY.join(', ')}`;
  if (inside('workers', from) && inside('plugins', to)) return 'workers do not import plugins';
  return undefined;
}

test('every import follows the one direction of ARCHITECTURE.md', () => {
  const checked = ['core', 'plugins', 'workers'].flatMap(files);
  const bad: string[] = [];
  let edges = 0;
  for (const file of checked)
    for (const to of importsOf(file)) {
      edges++;
      const why = violation(file, to);
      if (why) bad.push(`${file} -> ${to}: ${why}`);
    }
  console.log(`import rules: ${checked.length} files, ${edges} relative imports checked`);
  expect(bad).toEqual([]);
});

/** The first import cycle among `files` (type-only imports count: they tie the modules' designs together), or undefined. */
function cycleIn(checked: string[], importsOfFile = importsOf): string[] | undefined {
  const known = new Set(checked);
  const edges = new Map(checked.map((f) => [f, importsOfFile(f).flatMap((to) => [to + '.ts', to + '/index.ts'].filter((p) => known.has(p)))]));
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (f: string): string[] | undefined => {
    if (state.get(f) === 'open') return [...path.slice(path.indexOf(f)), f];
    if (state.get(f) === 'done') return undefined;
    state.set(f, 'open');
    path.push(f);
    for (const to of edges.get(f)!) {
      const found = visit(to);
      if (found) return found;
    }
    path.pop();
    state.set(f, 'done');
    return undefined;
  };
  for (const f of checked) {
    const found = visit(f);
    if (found) return found;
  }
  return undefined;
}

test('no import cycles: shared types live in their own module (core/tools/types.ts, the Registry in the contract)', () => {
  expect(cycleIn(['core', 'plugins', 'workers'].flatMap(files))).toBeUndefined();
});

test('the rule is not a rubber stamp: forbidden edges are named', () => {
  expect(violation('plugins/orders/store.ts', 'core/errors')).toContain('core/sdk.ts');
  expect(violation('plugins/orders/store.ts', 'plugins/products/store')).toContain('public.ts');
  expect(violation('plugins/orders/store.ts', 'core/platform')).toContain('platform plugins only');
  expect(violation('plugins/agents/chat.ts', 'core/platform')).toBeUndefined();
  expect(violation('plugins/customers/enrich.ts', 'plugins/inventory/public')).toContain("requires: ['inventory']");
  expect(violation('plugins/orders/store.ts', 'plugins/inventory/public')).toBeUndefined();
  expect(violation('core/http/rest.ts', 'plugins/index')).toContain('core never imports');
  expect(violation('core/tools/call.ts', 'core/http/respond')).toContain('transport-neutral');
  expect(violation('core/cli.ts', 'plugins/index')).toBeUndefined();
  expect(violation('workers/maintenance.ts', 'core/http/idempotency')).toContain('workers import only');
  const graph: Record<string, string[]> = { 'core/a.ts': ['core/b'], 'core/b.ts': ['core/c'], 'core/c.ts': ['core/a'] };
  expect(cycleIn(Object.keys(graph), (f) => graph[f])).toEqual(['core/a.ts', 'core/b.ts', 'core/c.ts', 'core/a.ts']);
  expect(cycleIn(['core/a.ts', 'core/b.ts'], (f) => graph[f])).toBeUndefined();
});

/**
 * The console's walls (console/README.md). A plugin's pages (plugins/<name>/console/) run in the
 * browser: they import the console only through console/src/kit (its index.ts), their own folder,
 * and preact; the server side of a plugin never imports them, and nothing of the console imports a
 * plugin: console/build.ts finds the pages and hands them to main.tsx as a generated module.
 */
const KIT = 'console/src/kit';
/** Packages a page may bundle: preact, and the QR code matrix the QR editor previews with. */
const PAGE_PACKAGES = ['preact', 'preact/hooks', 'qrcode/lib/core/qrcode'];

const BUILD_SCRIPTS = ['console/build.ts', 'console/api-types.ts'];

function consoleViolation(from: string, spec: string): string | undefined {
  const inside = (dir: string, path: string) => path === dir || path.startsWith(dir + '/');
  const to = spec.startsWith('.') ? normalize(join(dirname(from), spec)).replace(/\.(tsx?|js)$/, '') : undefined;
  const pagesOf = (path: string) => path.match(/^plugins\/[^/]+\/console(?=\/|$)/)?.[0];
  const pages = pagesOf(from);
  if (pages) {
    if (to === undefined) return PAGE_PACKAGES.includes(spec) ? undefined : `a console page bundles only ${PAGE_PACKAGES.join(', ')}`;
    if (to === KIT || to === `${KIT}/index` || inside(pages, to)) return undefined;
    return 'a console page imports the console only through console/src/kit, and no other file of a plugin';
  }
  if (inside('plugins', from) && to && pagesOf(to)) return "a plugin's server code does not import its console pages";
  // The build scripts read the registry (the page list, the API types), as core/cli.ts does.
  if (BUILD_SCRIPTS.includes(from) && to === 'plugins/index') return undefined;
  if (inside('console', from) && to && inside('plugins', to))
    return 'the console reaches plugin pages only through the list console/build.ts generates';
  return undefined;
}

test("a plugin's console pages import only the kit and preact; the console imports no plugin", () => {
  const checked = [...sources('plugins', true), ...sources('console', true)];
  const bad: string[] = [];
  let pages = 0;
  for (const file of checked) {
    if (/\/console\//.test(file) && file.startsWith('plugins/')) pages++;
    for (const spec of specifiersIn(readFileSync(join(root, file), 'utf8'))) {
      const why = consoleViolation(file, spec);
      if (why) bad.push(`${file} -> ${spec}: ${why}`);
    }
  }
  console.log(`console walls: ${checked.length} files, ${pages} plugin page files`);
  expect(pages).toBeGreaterThan(0);
  expect(bad).toEqual([]);
});

test('the console rule bites', () => {
  const page = 'plugins/qr_codes/console/codes.tsx';
  expect(consoleViolation(page, '../../../console/src/kit')).toBeUndefined();
  expect(consoleViolation(page, './preview')).toBeUndefined();
  expect(consoleViolation(page, 'preact/hooks')).toBeUndefined();
  expect(consoleViolation(page, '../../../console/src/api')).toContain('only through console/src/kit');
  expect(consoleViolation(page, '../store')).toContain('only through console/src/kit');
  expect(consoleViolation(page, '../../../core/sdk')).toContain('only through console/src/kit');
  expect(consoleViolation(page, 'pg')).toContain('bundles only');
  expect(consoleViolation('plugins/qr_codes/index.ts', './console/codes')).toContain('does not import its console pages');
  expect(consoleViolation('plugins/qr_codes/index.ts', './console')).toContain('does not import its console pages');
  expect(consoleViolation('console/src/main.tsx', '../../plugins/qr_codes/console')).toContain('generates');
  expect(consoleViolation('console/src/main.tsx', '../../plugins')).toContain('generates');
  expect(consoleViolation('console/build.ts', '../plugins/index')).toBeUndefined();
  expect(consoleViolation('console/build.ts', '../plugins/qr_codes/console')).toContain('generates');
  expect(consoleViolation('console/src/pages/index.ts', 'svc:plugin-pages')).toBeUndefined();
});

/**
 * Tables are owned (plugins/README.md): a plugin declares the `tables` it owns, and only its own
 * SQL names them. SQL is read where a statement names a table: after FROM, JOIN, UPDATE or INTO
 * (keywords in upper case, as all SQL here is written; prose in comments is lower case). The core
 * and workers name no plugin's table at all.
 */
const tableOwner = new Map(pluginList.flatMap((p) => (p.tables ?? []).map((t) => [t, p.name] as const)));

/** Each statement of `text` naming a table another plugin owns, as `KEYWORD table (owner)`. */
function sqlCrossings(file: string, text: string, owners: ReadonlyMap<string, string> = tableOwner): string[] {
  const self = file.startsWith('plugins/') ? file.split('/')[1] : undefined;
  const out: string[] = [];
  for (const [, keyword, table] of text.matchAll(/\b(FROM|JOIN|UPDATE|INTO)\s+([a-z_][a-z0-9_]*)\b/g)) {
    const owner = owners.get(table);
    if (owner && owner !== self) out.push(`${keyword} ${table} (${owner}'s)`);
  }
  return out;
}

// No exceptions: the older crossings (stock totals in products, collections' memberships, the
// locations table inventory made) went through their owners' public.ts or ctx.call (issues 25, 43).
test("no plugin's SQL names another plugin's table (FROM, JOIN, UPDATE, INTO), and the core names none", () => {
  const checked = ['core', 'plugins', 'workers'].flatMap(files);
  const bad = checked.flatMap((file) =>
    sqlCrossings(file, readFileSync(join(root, file), 'utf8')).map((crossing) => `${file}: ${crossing}: use its public.ts or ctx.call`),
  );
  console.log(`table ownership: ${tableOwner.size} owned tables, ${checked.length} files read`);
  expect(bad).toEqual([]);
});

test("the table rule bites: SQL naming another plugin's table is named, its own tables and prose are not", () => {
  const owners = new Map([
    ['products', 'products'],
    ['reviews', 'reviews'],
  ]);
  expect(sqlCrossings('plugins/reviews/store.ts', 'SELECT id FROM products WHERE store_id = $1', owners)).toEqual(["FROM products (products's)"]);
  expect(sqlCrossings('plugins/reviews/store.ts', 'SELECT r.* FROM reviews r JOIN products p ON p.id = r.product_id', owners)).toEqual([
    "JOIN products (products's)",
  ]);
  expect(sqlCrossings('plugins/reviews/store.ts', "UPDATE products SET name = 'x'", owners)).toHaveLength(1);
  expect(sqlCrossings('plugins/reviews/store.ts', 'INSERT INTO products (id) VALUES ($1)', owners)).toHaveLength(1);
  expect(sqlCrossings('core/tools/call.ts', 'SELECT * FROM reviews', owners)).toHaveLength(1);
  expect(sqlCrossings('plugins/reviews/store.ts', 'SELECT * FROM reviews WHERE store_id = $1', owners)).toEqual([]);
  expect(sqlCrossings('plugins/reviews/store.ts', "// the existence check from products' public.ts", owners)).toEqual([]);
});

test('every table a plugin migration creates is owned by exactly one plugin', () => {
  const created = allMigrations(pluginList)
    .filter((m) => !m.id.startsWith('core/'))
    .flatMap((m) => [...m.sql.matchAll(/CREATE TABLE IF NOT EXISTS ([a-z_][a-z0-9_]*)/g)].map((x) => x[1]));
  expect(created.filter((t) => !tableOwner.has(t))).toEqual([]);
  const declared = pluginList.flatMap((p) => p.tables ?? []);
  expect(declared.length).toBe(new Set(declared).size);
  expect(declared.filter((t) => !created.includes(t))).toEqual([]);
});
