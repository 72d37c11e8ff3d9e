#!/usr/bin/env bun
/**
 * Builds the admin console (issue 27): console/src/main.tsx (Preact) and the webchat widget
 * (console/src/widget.ts) into console/dist/, minified. `npm start`, `npm run build`, `npm test` and
 * `npm run typecheck` run it first; console/serve.ts embeds the output in the server (and the
 * compiled binary) and serves it under names carrying a hash of the content, cached for a year.
 *
 * The console's API types (console/src/api-types.ts) are generated first, from the registry's
 * OpenAPI document (console/api-types.ts).
 *
 * Plugins bring their own pages: for every plugin of the registry (plugins/index.ts) with a
 * `plugins/<name>/console/index.tsx`, that file is handed to main.tsx through the virtual module
 * `svc:plugin-pages` (its `consolePages` lists), so adding a page edits nothing outside the
 * plugin's folder. A page's code is loaded when it is first opened (`load: () => import(...)`):
 * the bundle is split, and the first load carries the shell, the kit and the page list only.
 *
 * Output: `dist/bundle.txt`, one JSON object `{ entry, css, files }` (the entry's and the style
 * sheet's names, and every file's text), which serve.ts imports as text; `dist/widget.js` (the widget, one file at a fixed address).
 */
import type { BunPlugin } from 'bun';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pluginList } from '../plugins/index';
import { writeApiTypes } from './api-types';

const here = import.meta.dir;
export const PLUGIN_PAGES_MODULE = 'svc:plugin-pages';

/** The registry's plugins (by name, in the registry's order) that bring console pages. */
export function pluginPageEntries(
  pluginsDir = join(here, '..', 'plugins'),
  names: string[] = pluginList.map((p) => p.name),
): { plugin: string; file: string }[] {
  return names.map((plugin) => ({ plugin, file: join(pluginsDir, plugin, 'console', 'index.tsx') })).filter((e) => existsSync(e.file));
}

/** The source of `svc:plugin-pages`: one import per plugin, and their pages in one list. */
export function pluginPagesSource(entries: { plugin: string; file: string }[]): string {
  const imports = entries.map((e, i) => `import { consolePages as p${i} } from ${JSON.stringify(e.file)};`);
  return `${imports.join('\n')}\nexport const pluginPages = [${entries.map((_, i) => `p${i}`).join(', ')}];\n`;
}

function pluginPages(entries: { plugin: string; file: string }[]): BunPlugin {
  return {
    name: 'plugin-pages',
    setup(build) {
      build.onResolve({ filter: /^svc:plugin-pages$/ }, () => ({ path: PLUGIN_PAGES_MODULE, namespace: 'svc' }));
      build.onLoad({ filter: /.*/, namespace: 'svc' }, () => ({ contents: pluginPagesSource(entries), loader: 'ts' }));
    },
  };
}

export interface ConsoleBundle {
  /** The entry's file name (the page's one script tag). */
  entry: string;
  /** The style sheet's file name. */
  css: string;
  /** Every file of the console by name (each carries a hash of its content): the entry, the chunks it loads, the style sheet. */
  files: Record<string, string>;
}

const common = { minify: true, target: 'browser', define: { 'process.env.NODE_ENV': '"production"' } } as const;

/**
 * Bundles the console. `pluginsDir` and `names` say where pages are looked for (a test points them
 * elsewhere); `types: false` skips generating the API types (a test's pages need none).
 */
export async function buildConsole({
  pluginsDir = join(here, '..', 'plugins'),
  names = pluginList.map((p) => p.name),
  outdir = join(here, 'dist'),
  types = true,
} = {}) {
  if (types) await writeApiTypes();
  const staging = join(outdir, 'console');
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const result = await Bun.build({
    ...common,
    entrypoints: [join(here, 'src/main.tsx')],
    outdir: staging,
    splitting: true,
    naming: { entry: '[name]-[hash].[ext]', chunk: '[name]-[hash].[ext]' },
    plugins: [pluginPages(pluginPageEntries(pluginsDir, names))],
  });
  if (!result.success) return result;
  const widget = await Bun.build({ ...common, entrypoints: [join(here, 'src/widget.ts')], outdir, naming: '[name].[ext]' });
  if (!widget.success) return widget;
  const style = readFileSync(join(here, 'src/app.css'), 'utf8');
  const css = `app-${Bun.hash(style).toString(36)}.css`;
  const files: Record<string, string> = { [css]: style };
  let entry = '';
  for (const out of result.outputs) {
    const name = basename(out.path);
    files[name] = await out.text();
    if (out.kind === 'entry-point') entry = name;
  }
  const bundle: ConsoleBundle = { entry, css, files };
  writeFileSync(join(outdir, 'bundle.txt'), JSON.stringify(bundle));
  rmSync(staging, { recursive: true, force: true });
  return result;
}

if (import.meta.main) {
  const result = await buildConsole();
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    process.exit(1);
  }
}
