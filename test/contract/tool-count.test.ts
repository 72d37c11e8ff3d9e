import { expect, test } from 'bun:test';
import { mcpClient } from '../kit/mcp';
import { setup } from '../kit/setup';
import { META_TOOLS, OUR_TOOLS, SPEC_CATALOG } from './catalog';

/**
 * The 54 tools of SPEC 4.10 for an all-scopes credential. Names not built yet are listed here and
 * printed; each issue that adds a plugin removes its names. A listed name that appears fails (take
 * it off this list), and so does a tool that disappears without being on it.
 */
const STILL_TO_COME = [
  'loyalty',
  'coupons',
  'fulfillment',
  'reviews',
  'tax',
  'invoices',
  'wholesale',
  'analytics',
  'web_search',
  'discovery',
  'enrichment',
  'embeddings',
  'llm',
  'segments',
  'campaigns',
  'affiliates',
  'documents',
  'image_gen',
  'video_gen',
  'media',
  'remove_bg',
  'workflows',
  'browser',
  'security_scan',
  'store',
  'storefront',
  'api_docs',
  'telemetry',
  'audit_trail',
  'svc_status',
  'local_agent',
  'launch_cluster',
  'voice',
  'supply_chain',
  'phone',
  'wallet',
  'pipeline',
  'qr_codes',
];

test('an all-scopes credential is offered the 54 tools of SPEC 4.10, less the ones still to come', async () => {
  const all = [...Object.keys(SPEC_CATALOG), ...OUR_TOOLS, ...META_TOOLS];
  expect(all.length).toBe(54);
  const h = await setup();
  // Every scope a key may hold, bare ones included: svc_login accepts only `platform` (SPEC 5.4).
  const { client } = await mcpClient(h, { key: await h.newKey([...h.registry.grantable]) });
  const listed = (await client.listTools()).tools.map((t) => t.name).sort();
  await client.close();
  console.log(`tool count: ${listed.length} of ${all.length} listed; still to come (${STILL_TO_COME.length}): ${STILL_TO_COME.join(', ')}`);
  expect(listed).toEqual(all.filter((n) => !STILL_TO_COME.includes(n)).sort());
});

test("each catalog tool that exists has at least the SPEC's actions", async () => {
  const h = await setup();
  for (const [tool, actions] of Object.entries(SPEC_CATALOG)) {
    const plugin = h.registry.byName.get(tool);
    if (!plugin) continue;
    expect(plugin.catalog, `${tool} is declared catalog: true`).toBe(true);
    for (const a of actions) expect(Object.keys(plugin.actions), `${tool}.${a}`).toContain(a);
  }
});
