/**
 * svc itself, built the way `svc serve` builds it (makeServices + createApp) over the benchmark
 * database, with every convention on. Rate limits are set so high that the limiter does all its
 * bookkeeping (leases, headers) but never rejects, otherwise we would be measuring 429s.
 */
import { systemClock } from '../core/clock';
import { openDb } from '../core/db';
import { createApp } from '../core/http/app';
import { makeServices } from '../core/http/services';
import { createRegistry } from '../core/plugins/registry';
import { pluginList } from '../plugins';
import { announce, HIGH_LIMITS, requireEnv } from './child';
import { createLogger } from '../core/log';
import { startTelemetry } from '../plugins/telemetry';
import { installTracer } from '../core/plugins/telemetry';
import type { TelemetrySettings } from '../plugins/telemetry/config';

const db = await openDb({ databaseUrl: requireEnv('BENCH_DB_URL'), poolSize: Number(requireEnv('BENCH_POOL')) });
const registry = createRegistry(pluginList, { env: process.env });
const svc = makeServices({ db, clock: systemClock, registry, limits: HIGH_LIMITS });
const app = createApp(svc);
let served = 0; // requests, counted in interleave mode only
// BENCH_TRACING=interleave (bench/tracing.ts): the tracer runs from the start and is installed and
// removed every BENCH_PHASE_MS, so tracing on and off take turns many times a second within one
// run, and the server counts its requests and its CPU per phase. SIGUSR1 starts the count afresh;
// SIGUSR2 writes the phases to BENCH_RESULT_FILE as JSON.
if (process.env.BENCH_TRACING === 'interleave') {
  // Requests are counted at the rate-limit check every API-key request passes once (REST and MCP
  // alike), so the app itself is served as `svc serve` serves it.
  const check = svc.rateLimiter.check.bind(svc.rateLimiter);
  svc.rateLimiter.check = (...args: Parameters<typeof check>) => (served++, check(...args));
  const { tracer } = startTelemetry(db, registry.configOf('telemetry') as TelemetrySettings, createLogger());
  let on = false;
  let phases: { on: boolean; cpuUs: number; requests: number }[] = [];
  let cpu = process.cpuUsage();
  let count = served;
  const flip = () => {
    const now = process.cpuUsage();
    phases.push({ on, cpuUs: now.user - cpu.user + now.system - cpu.system, requests: served - count });
    cpu = now;
    count = served;
    on = !on;
    installTracer(on ? tracer : undefined);
  };
  installTracer(undefined);
  setInterval(flip, Number(requireEnv('BENCH_PHASE_MS')));
  process.on('SIGUSR1', () => void (phases = []));
  process.on('SIGUSR2', () => void Bun.write(requireEnv('BENCH_RESULT_FILE'), JSON.stringify(phases)));
}
const server = app.listen({ hostname: '127.0.0.1', port: 0 });
announce(server.server!.port!);
