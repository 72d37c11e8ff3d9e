#!/usr/bin/env bun
/**
 * Builds the admin console (issue 27): console/src/main.tsx (Preact) and the webchat widget
 * (console/src/widget.ts) into console/dist/, minified. `npm start`, `npm run build` and `npm test`
 * run it first; console/serve.ts embeds the output in the server (and the compiled binary) and
 * serves it under names carrying a hash of the content, cached for a year.
 *
 * Plugins bring their own pages: every `plugins/<name>/console/index.tsx` is found here and handed
 * to main.tsx as the virtual module `svc:plugin-pages` (its `consolePages` lists), so adding a page
 * edits nothing outside the plugin's folder. Nothing is written for it: the list is made afresh on
 * every build.
 */
import type { BunPlugin } from 'bun';
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const here = import.meta.dir;
export const PLUGIN_PAGES_MODULE = 'svc:plugin-pages';

/** Each plugin folder of `pluginsDir` with console pages, by name. */
export function pluginPageEntries(pluginsDir: string): { plugin: string; file: string }[] {
  return readdirSync(pluginsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => ({ plugin: d.name, file: join(pluginsDir, d.name, 'console', 'index.tsx') }))
    .filter((e) => existsSync(e.file))
    .sort((a, b) => a.plugin.localeCompare(b.plugin));
}

/** The source of `svc:plugin-pages`: one import per plugin, and their pages in one list. */
export function pluginPagesSource(entries: { plugin: string; file: string }[]): string {
  const imports = entries.map((e, i) => `import { consolePages as p${i} } from ${JSON.stringify(e.file)};`);
  return `${imports.join('\n')}\nexport const pluginPages = [${entries.map((_, i) => `p${i}`).join(', ')}];\n`;
}

function pluginPages(pluginsDir: string): BunPlugin {
  return {
    name: 'plugin-pages',
    setup(build) {
      build.onResolve({ filter: /^svc:plugin-pages$/ }, () => ({ path: PLUGIN_PAGES_MODULE, namespace: 'svc' }));
      build.onLoad({ filter: /.*/, namespace: 'svc' }, () => ({ contents: pluginPagesSource(pluginPageEntries(pluginsDir)), loader: 'ts' }));
    },
  };
}

/** Bundles the console; `pluginsDir` is where pages are looked for (a test points it elsewhere). */
export async function buildConsole({ pluginsDir = join(here, '..', 'plugins'), outdir = join(here, 'dist') } = {}) {
  mkdirSync(outdir, { recursive: true });
  const result = await Bun.build({
    entrypoints: [join(here, 'src/main.tsx'), join(here, 'src/widget.ts')],
    outdir,
    naming: '[name].[ext]',
    minify: true,
    target: 'browser',
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [pluginPages(pluginsDir)],
  });
  if (result.success) copyFileSync(join(here, 'src/app.css'), join(outdir, 'app.css'));
  return result;
}

if (import.meta.main) {
  const result = await buildConsole();
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    process.exit(1);
  }
}
