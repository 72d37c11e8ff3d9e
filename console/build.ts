#!/usr/bin/env bun
/**
 * Builds the admin console (issue 27): console/src/main.tsx (Preact) and the webchat widget
 * (console/src/widget.ts) into console/dist/, minified. `npm start`, `npm run build` and `npm test`
 * run it first; console/serve.ts embeds the output in the server (and the compiled binary) and
 * serves it under names carrying a hash of the content, cached for a year.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const here = import.meta.dir;
const out = join(here, 'dist');
mkdirSync(out, { recursive: true });

const result = await Bun.build({
  entrypoints: [join(here, 'src/main.tsx'), join(here, 'src/widget.ts')],
  outdir: out,
  naming: '[name].[ext]',
  minify: true,
  target: 'browser',
  define: { 'process.env.NODE_ENV': '"production"' },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
copyFileSync(join(here, 'src/app.css'), join(out, 'app.css'));
