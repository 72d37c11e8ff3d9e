import { expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildConsole, pluginPageEntries } from './build';
import { arrangePages, type PageDef } from './src/kit/page';

/**
 * How pages reach the console: a plugin's console/index.tsx is found by the build (no list to
 * edit), and the navigation is ordered by `order`, main pages before Settings.
 */
const repoPlugins = join(import.meta.dir, '..', 'plugins');
const kit = join(import.meta.dir, 'src', 'kit');

test("a new plugin's page is bundled from its own folder alone", async () => {
  // Inside the repository (a git-ignored folder), where its tsconfig and node_modules apply, as to a real plugin.
  mkdirSync(join(import.meta.dir, '..', 'dist'), { recursive: true });
  const dir = mkdtempSync(join(import.meta.dir, '..', 'dist', 'console-pages-'));
  try {
    const pluginsDir = join(dir, 'plugins');
    mkdirSync(join(pluginsDir, 'gift_cards', 'console'), { recursive: true });
    mkdirSync(join(pluginsDir, 'no_pages'), { recursive: true });
    writeFileSync(
      join(pluginsDir, 'gift_cards', 'console', 'index.tsx'),
      `import { PageHeader, type PageDef } from ${JSON.stringify(kit)};
       const GiftCardsPage = () => <PageHeader title="Gift cards, from their plugin" />;
       export const consolePages: PageDef[] = [{ id: 'gift-cards', title: 'Gift cards', order: 55, component: GiftCardsPage }];`,
    );
    expect(pluginPageEntries(pluginsDir).map((e) => e.plugin)).toEqual(['gift_cards']);
    const outdir = join(dir, 'dist');
    const result = await buildConsole({ pluginsDir, outdir });
    expect(result.logs.filter((l) => l.level === 'error')).toEqual([]);
    expect(result.success).toBe(true);
    const js = readFileSync(join(outdir, 'main.js'), 'utf8');
    expect(js).toContain('Gift cards, from their plugin');
    expect(js).not.toContain('QR analytics'); // only the plugins of that folder
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the repository's plugin pages keep the navigation's order, Settings last, no id twice", async () => {
  const lists: PageDef[][] = [];
  for (const e of pluginPageEntries(repoPlugins)) lists.push((await import(e.file)).consolePages);
  const own = ['approvals', 'executions', 'store'].map((id, i): PageDef => ({
    id,
    title: id,
    order: [10, 20, 30][i],
    group: id === 'store' ? 'Settings' : undefined,
    component: () => null,
  }));
  expect(arrangePages([own, ...lists]).map((p) => p.id)).toEqual([
    'approvals',
    'executions',
    'agents',
    'custom-tools',
    'products',
    'orders',
    'customers',
    'qr-codes',
    'qr-analytics',
    'inbox',
    'email-messages',
    'email-templates',
    'email-stats',
    'email-domains',
    'webhooks',
    'api-keys',
    'members',
    'store',
  ]);
});

test('two pages with one id are refused, naming the id', () => {
  const page = (id: string, order: number): PageDef => ({ id, title: id, order, component: () => null });
  expect(() => arrangePages([[page('orders', 1)], [page('orders', 2)]])).toThrow('"orders"');
  expect(arrangePages([[page('b', 2)], [page('a', 1)]]).map((p) => p.id)).toEqual(['a', 'b']);
});
