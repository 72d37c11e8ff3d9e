import { expect, test } from 'bun:test';
import { Glob } from 'bun';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dir, '../..');

/**
 * A plugin reads only its own settings (ctx.config, typed from its schema). Another plugin's reach
 * it through that plugin's public.ts (email's `emailSettings`), which the import test then sees as
 * a declared dependency; a `configOf('<other>')` anywhere else is a coupling no import shows.
 */
test("no plugin reads another plugin's settings except through that plugin's own files", () => {
  const bad: string[] = [];
  for (const file of new Glob('plugins/*/**/*.{ts,tsx}').scanSync(root)) {
    if (file.endsWith('.test.ts')) continue;
    const self = file.split('/')[1];
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/configOf\(\s*['"`]([a-z_]+)['"`]/g)) if (m[1] !== self) bad.push(`${file}: configOf('${m[1]}')`);
    if (/configOf\(\s*[^'"`\s)]/.test(text)) bad.push(`${file}: configOf with a computed name`);
  }
  expect(bad).toEqual([]);
});

test('no plugin declares a setting the core owns (SVC_PUBLIC_URL, SVC_TRUSTED_PROXIES, SVC_TRUST_PROXY)', async () => {
  const { pluginList } = await import('../../plugins');
  const core = ['SVC_PUBLIC_URL', 'SVC_TRUSTED_PROXIES', 'SVC_TRUST_PROXY', 'SVC_SIGNED_URL_TTL_S'];
  const declared = pluginList.flatMap((p) =>
    Object.entries<any>(p.config?.properties ?? {})
      .filter(([field, prop]) => core.includes(prop.env ?? `SVC_${p.name}_${field}`.toUpperCase()))
      .map(([field]) => `${p.name}.${field}`),
  );
  expect(declared).toEqual([]);
});
