import { expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pluginList } from '../plugins/index';
import { buildConsole, pluginPageEntries, type ConsoleBundle } from './build';
import { arrangePages, type PageDef } from './src/kit/page';

/**
 * How pages reach the console: the registry's plugins bring their console/index.tsx (no list to
 * edit), each page's code is a file of its own loaded when the page is opened, and the navigation
 * is ordered by `order`, main pages before Settings.
 */
const kit = join(import.meta.dir, 'src', 'kit');
const repoDist = join(import.meta.dir, 'dist');

const readBundle = (outdir: string): ConsoleBundle => JSON.parse(readFileSync(join(outdir, 'bundle.txt'), 'utf8'));

/** The files a page loads before anything is opened: the entry and what it imports statically. */
function firstLoad(bundle: ConsoleBundle): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const m of bundle.files[name].matchAll(/(?:^|[;}\s])(?:import|export)\s*(?:[^"'()]*?from\s*)?["']\.\/([^"']+)["']/g)) visit(m[1]);
  };
  visit(bundle.entry);
  return [...seen];
}

test("a new plugin's page is bundled from its own folder alone, and loaded when opened", async () => {
  // Inside the repository (a git-ignored folder), where its tsconfig and node_modules apply, as to a real plugin.
  mkdirSync(join(import.meta.dir, '..', 'dist'), { recursive: true });
  const dir = mkdtempSync(join(import.meta.dir, '..', 'dist', 'console-pages-'));
  try {
    const pluginsDir = join(dir, 'plugins');
    mkdirSync(join(pluginsDir, 'gift_cards', 'console'), { recursive: true });
    mkdirSync(join(pluginsDir, 'no_pages'), { recursive: true });
    mkdirSync(join(pluginsDir, 'not_registered', 'console'), { recursive: true });
    writeFileSync(
      join(pluginsDir, 'gift_cards', 'console', 'index.tsx'),
      `import type { PageDef } from ${JSON.stringify(kit)};
       export const consolePages: PageDef[] = [{ id: 'gift-cards', title: 'Gift cards', order: 55, load: () => import('./gift-cards').then((m) => m.GiftCardsPage) }];`,
    );
    writeFileSync(
      join(pluginsDir, 'gift_cards', 'console', 'gift-cards.tsx'),
      `import { PageHeader } from ${JSON.stringify(kit)};
       export const GiftCardsPage = () => <PageHeader title="Gift cards, from their plugin" />;`,
    );
    writeFileSync(join(pluginsDir, 'not_registered', 'console', 'index.tsx'), `export const consolePages = [{ id: 'stray', title: 'Stray page' }];`);
    // The registry's names decide: a folder the registry does not list brings no page.
    const names = ['gift_cards', 'no_pages'];
    expect(pluginPageEntries(pluginsDir, names).map((e) => e.plugin)).toEqual(['gift_cards']);
    const outdir = join(dir, 'dist');
    const result = await buildConsole({ pluginsDir, names, outdir, types: false });
    expect(result.logs.filter((l) => l.level === 'error')).toEqual([]);
    expect(result.success).toBe(true);
    const bundle = readBundle(outdir);
    const first = firstLoad(bundle)
      .map((f) => bundle.files[f])
      .join('\n');
    const all = Object.values(bundle.files).join('\n');
    expect(first).toContain('Gift cards'); // the navigation's title
    expect(first).not.toContain('Gift cards, from their plugin'); // the page itself comes when opened
    expect(all).toContain('Gift cards, from their plugin');
    expect(all).not.toContain('Stray page');
    expect(all).not.toContain('QR analytics'); // only the plugins named
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the first load carries no page, and stays under 250 KB compressed', () => {
  // `npm test` builds the console first (test/preload.ts does for a lone run).
  const bundle = readBundle(repoDist);
  const first = firstLoad(bundle);
  const text = first.map((f) => bundle.files[f]).join('\n');
  const gzipped = first.reduce((n, f) => n + Bun.gzipSync(bundle.files[f]).length, 0);
  console.log(`console first load: ${first.length} file(s), ${gzipped} bytes gzipped; ${Object.keys(bundle.files).length} files in all`);
  expect(gzipped).toBeLessThan(250 * 1024);
  // Every page's code is elsewhere: a word from the products editor, the QR editor, the members page.
  for (const word of ['Create product', 'Track conversions', 'Invite someone']) {
    expect(text).not.toContain(word);
    expect(Object.values(bundle.files).some((f) => f.includes(word))).toBe(true);
  }
});

test("the registry's plugin pages keep the navigation's order, Settings last, no id twice", async () => {
  const lists: PageDef[][] = [];
  for (const e of pluginPageEntries()) lists.push((await import(e.file)).consolePages);
  const own = ['approvals', 'executions'].map((id, i): PageDef => ({
    id,
    title: id,
    order: [10, 20][i],
    load: async () => () => null,
  }));
  expect(pluginPageEntries().every((e) => pluginList.some((p) => p.name === e.plugin))).toBe(true);
  expect(arrangePages([own, ...lists]).map((p) => p.id)).toEqual([
    'approvals',
    'executions',
    'agents',
    'custom-tools',
    'products',
    'reviews',
    'orders',
    'coupons',
    'tax-rates',
    'invoices',
    'analytics',
    'customers',
    'segments',
    'qr-codes',
    'qr-analytics',
    'inbox',
    'email-messages',
    'email-templates',
    'email-stats',
    'email-domains',
    'campaigns',
    'webhooks',
    'audit-trail',
    'api-keys',
    'members',
    'store',
    'storefront',
    'agentic',
  ]);
  // Each page's code loads, and is a component.
  for (const p of lists.flat()) expect(typeof (await p.load())).toBe('function');
});

test('two pages with one id are refused, naming the id', () => {
  const page = (id: string, order: number): PageDef => ({ id, title: id, order, load: async () => () => null });
  expect(() => arrangePages([[page('orders', 1)], [page('orders', 2)]])).toThrow('"orders"');
  expect(arrangePages([[page('b', 2)], [page('a', 1)]]).map((p) => p.id)).toEqual(['a', 'b']);
});

test('no page declares a resource interface, or writes a scope or a role name', async () => {
  const { readdirSync } = await import('node:fs');
  const repo = join(import.meta.dir, '..');
  const files = [
    ...readdirSync(join(repo, 'console', 'src', 'pages')).map((f) => `console/src/pages/${f}`),
    'console/src/main.tsx',
    ...pluginPageEntries().flatMap((e) => readdirSync(join(e.file, '..')).map((f) => `plugins/${e.plugin}/console/${f}`)),
  ].filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.test.ts'));
  const found: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(repo, file), 'utf8');
    // Shapes come from the generated API types (Resource<'/x/{id}'>, Item<'/x'>, Body<...>).
    for (const m of text.matchAll(/^\s*(?:export\s+)?interface\s+(\w+)/gm)) found.push(`${file}: interface ${m[1]}`);
    // What a user may do comes from the console token (c.may('plugin.action'), c.assignableRoles).
    for (const m of text.matchAll(/['"`]([a-z_]+:(?:read|write))['"`]/g)) found.push(`${file}: scope ${m[1]}`);
    for (const m of text.matchAll(/['"`](owner|admin|approver|staff|viewer)['"`]/g)) found.push(`${file}: role ${m[1]}`);
  }
  expect(files.length).toBeGreaterThan(20);
  expect(found).toEqual([]);
});
