import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createLogger } from '../../core/log';
import { providerFetch } from '../../core/providers/wire';
import { setup, type Harness } from '../../test/kit/setup';
import { startTelemetry } from '../telemetry';
import type { TelemetrySettings } from '../telemetry/config';
import svc_status from '.';
import { checkIncidents } from './checks';
import { probeProviders, probesOf } from './providers';

/** A fake OpenAI-compatible server: GET /v1/models answers `status`, and each request is kept. */
let status = 200;
const seen: { path: string; auth: string | null }[] = [];
const provider = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch: (req) => {
    seen.push({ path: new URL(req.url).pathname, auth: req.headers.get('authorization') });
    return Response.json(status === 200 ? { object: 'list', data: [] } : { error: { message: 'overloaded' } }, { status });
  },
});

let h: Harness;
beforeAll(async () => {
  h = await setup({ env: { OPENAI_BASE_URL: `http://127.0.0.1:${provider.port}/v1`, OPENAI_API_KEY: 'sk-probe-test' } });
}, 60_000);
afterAll(() => provider.stop(true));

const providers = async () => (await h.call('GET', '/status')).body.providers;
const openIncidents = async () =>
  (await h.call('GET', '/status/incidents?status=open&limit=100')).body.data.filter((i: any) => i.kind === 'provider_failing');

test('three failed probes in a row open a provider incident; two successes close it', async () => {
  const probes = probesOf(h.registry.configOf('svc_status') as any);
  expect(probes.map((p) => p.name)).toEqual(['openai']);
  const probe = () => probeProviders(h.db, h.clock, probes);
  await probe();
  expect(await providers()).toEqual([{ name: 'openai', status: 'operational' }]);
  // The cheapest authenticated GET: the model list, with the operator's key.
  expect(seen.at(-1)).toEqual({ path: '/v1/models', auth: 'Bearer sk-probe-test' });

  status = 503;
  await probe();
  await probe();
  await checkIncidents(h.db, h.clock, 3600);
  expect(await openIncidents()).toEqual([]); // two failures are not yet a pattern
  await probe();
  expect(await providers()).toEqual([{ name: 'openai', status: 'failing' }]);
  await checkIncidents(h.db, h.clock, 3600);
  const [incident] = await openIncidents();
  expect(incident).toMatchObject({ scope: 'instance', title: 'Provider openai is failing', details: { provider: 'openai', failures_in_row: 3 } });
  expect(incident.details.last_error).toContain('HTTP 503');
  expect((await h.call('GET', '/status')).body.status).toBe('degraded');

  status = 200;
  await probe();
  expect(await providers()).toEqual([{ name: 'openai', status: 'failing' }]); // one success is not enough
  await probe();
  expect(await providers()).toEqual([{ name: 'openai', status: 'operational' }]);
  await checkIncidents(h.db, h.clock, 3600);
  expect(await openIncidents()).toEqual([]);
});

test("failed calls count as probes do: svc_status hears each provider call through telemetry's tracer", async () => {
  const telemetry = startTelemetry(h.db, h.registry.configOf('telemetry') as TelemetrySettings, createLogger());
  const started = await svc_status.start!({
    db: h.db,
    clock: h.clock,
    registry: h.registry,
    log: createLogger(),
    config: h.registry.configOf('svc_status'),
    role: 'all',
    print: () => {},
  } as any);
  try {
    status = 401; // a refused key: not retried (wire.ts), so each call ends at once, failed
    const call = providerFetch({ provider: 'openai', timeoutMs: 2000 });
    for (let i = 0; i < 3; i++) await call(`http://127.0.0.1:${provider.port}/v1/models`);
    let now: any[] = [];
    for (let i = 0; i < 50 && now[0]?.status !== 'failing'; i++) {
      await Bun.sleep(20);
      now = await providers();
    }
    expect(now).toEqual([{ name: 'openai', status: 'failing' }]);
  } finally {
    status = 200;
    if (started) await started.stop();
    await telemetry.stop();
  }
}, 30_000);
