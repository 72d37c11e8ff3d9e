import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { product, setup, type Harness } from '../kit/setup';
import { keyProxy } from '../kit/key-proxy';
import { conformancePlugins } from '../fixtures/conformance';

/** The suite's scenarios that call its fixture tools. */
const FIXTURE_TOOL_SCENARIOS = [
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  'json-schema-2020-12',
];
const ROOT = join(import.meta.dir, '..', '..');
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);
let h: Harness;
let server: ReturnType<typeof Bun.serve>;
let url: string;

beforeAll(async () => {
  // The suite's fixture tools (test_simple_text, ...): only this file's server has them.
  h = await setup({ extra: conformancePlugins });
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', idleTimeout: 0, fetch: (r) => h.app.handle(r) });
  url = `http://127.0.0.1:${server.port}/agent/mcp`;
});
afterAll(() => server.stop(true));

async function run(cmd: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(cmd, { cwd: mkdtempSync(join(tmpdir(), 'svc-mcp-')), env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

describe('outside MCP clients', () => {
  test('the MCP Inspector CLI lists and calls tools over Streamable HTTP', async () => {
    const p = await h.call('POST', '/products', product({ name: 'Inspected' }));
    const env = { MCP_CATALOG_PATH: join(mkdtempSync(join(tmpdir(), 'svc-insp-')), 'mcp.json') };
    const common = ['--cli', url, '--transport', 'http', '--header', `x-api-key: ${h.key}`];
    const list = await run([bin('mcp-inspector'), ...common, '--method', 'tools/list'], env);
    expect(list.code).toBe(0);
    const names = JSON.parse(list.stdout).tools.map((t: any) => t.name);
    expect(names).toEqual(expect.arrayContaining(['products', 'orders', 'discover_tools']));
    const call = await run(
      [
        bin('mcp-inspector'),
        ...common,
        '--method',
        'tools/call',
        '--tool-name',
        'products',
        '--tool-arg',
        'action=get_product',
        '--tool-arg',
        `id=${p.body.id}`,
      ],
      env,
    );
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout).structuredContent.name).toBe('Inspected');
  }, 120_000);

  test('the MCP Inspector CLI lists resource templates, prompts and icons, and reads a record', async () => {
    const p = await h.call('POST', '/products', product({ name: 'Inspected resource' }));
    const env = { MCP_CATALOG_PATH: join(mkdtempSync(join(tmpdir(), 'svc-insp-')), 'mcp.json') };
    const common = ['--cli', url, '--transport', 'http', '--header', `x-api-key: ${h.key}`];
    const tools = JSON.parse((await run([bin('mcp-inspector'), ...common, '--method', 'tools/list'], env)).stdout).tools;
    const products = tools.find((t: any) => t.name === 'products');
    expect(products.title).toBe('Products');
    expect(products.icons[0]).toMatchObject({ mimeType: 'image/svg+xml', src: expect.stringMatching(/^data:image\/svg\+xml;base64,/) });
    const templates = await run([bin('mcp-inspector'), ...common, '--method', 'resources/templates/list'], env);
    expect(templates.code).toBe(0);
    expect(JSON.parse(templates.stdout).resourceTemplates.map((t: any) => t.uriTemplate)).toContain('svc://products/{id}');
    const prompts = await run([bin('mcp-inspector'), ...common, '--method', 'prompts/list'], env);
    expect(prompts.code).toBe(0);
    // svc's three, then the conformance fixture's (this file's server has them: test/fixtures/conformance.ts).
    expect(JSON.parse(prompts.stdout).prompts.map((x: any) => x.name)).toEqual([
      'daily_operations_summary',
      'review_pending_approvals',
      'low_stock_check',
      'test_simple_prompt',
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
    ]);
    const read = await run([bin('mcp-inspector'), ...common, '--method', 'resources/read', '--uri', `svc://products/${p.body.id}`], env);
    expect(read.code).toBe(0);
    expect(JSON.parse(JSON.parse(read.stdout).contents[0].text).name).toBe('Inspected resource');
  }, 120_000);

  test('the official conformance suite passes every 2025-11-25 check, on its fixture tools, resources and prompts', async () => {
    // The suite sends no credentials; a loopback proxy adds the key and leaves Host/Origin alone.
    const proxy = keyProxy(`http://127.0.0.1:${server.port}`, h.key);
    try {
      const r = await run([
        process.execPath,
        '--bun',
        bin('conformance'),
        'server',
        '--url',
        // Flat tools: json-schema-2020-12 looks for json_schema_2020_12_tool by name in tools/list.
        `http://127.0.0.1:${proxy.port}/agent/mcp?tools=flat`,
        '--requirements',
        '2025-11-25',
        '--expected-failures',
        join(import.meta.dir, 'conformance-expected-failures.yml'),
      ]);
      const summary = r.stdout.slice(r.stdout.indexOf('=== SUMMARY ==='));
      expect(summary).toContain('✓ server-initialize');
      expect(summary).toContain('✓ tools-list');
      expect(summary).toContain('✓ dns-rebinding-protection');
      expect(summary).toContain('✓ server-session-lifecycle');
      // Every tools/call scenario, on the fixture tools (test/fixtures/conformance.ts): none is an expected failure.
      for (const scenario of FIXTURE_TOOL_SCENARIOS) expect(summary).toContain(`✓ ${scenario}`);
      // Nor is any other: the fixture's resources and prompts pass theirs.
      expect(summary).toMatch(/Total: \d+ passed, 0 failed/);
      if (r.code !== 0 || process.env.SHOW_CONFORMANCE) console.error(summary);
      expect(r.stdout).toContain('Baseline check passed');
      expect(r.code).toBe(0);
    } finally {
      proxy.stop(true);
    }
  }, 300_000);
});
