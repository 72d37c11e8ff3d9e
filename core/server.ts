import type { Config } from './config';
import { createApp } from './http/app';
import { SERVER_BODY_CAP } from './http/limits';
import { startWorkers } from './jobs/run';
import { makeServices } from './http/services';
import { adminToken, openMigrated, type Composition } from './runtime';
import { refreshStatistics } from './db';
import { addressOf, recordAddress } from './server-address';
import { Lifecycle, remaining, until } from './lifecycle';
import { drainWriteBehinds } from './write-behind';
import { closeSandboxPool } from './sandbox/pool';
import { createLogger } from './log';

/** When the planner's statistics are refreshed after start (then by the maintenance job, every 10 minutes). */
const STATISTICS_DELAY_MS = 30_000;

/**
 * `svc serve`: HTTP for role api, job handlers for role worker, both for all (the default). What it
 * starts registers with the process's lifecycle (core/lifecycle.ts), which stops it all at SIGTERM.
 */
export async function serve(
  config: Config,
  app: Composition,
  log: (line: string) => void = (l) => console.error(l),
  lifecycle = new Lifecycle(config.shutdownGraceMs, log),
) {
  const opened = await openMigrated(config, app, log, { statistics: 'later' });
  // Refreshed a little after start (below), not before the first request is answered.
  let statistics: Promise<unknown> = Promise.resolve();
  // Closed last: the database, then the data-directory lock (opened.close does both).
  lifecycle.register('database', 'close', async () => {
    await statistics;
    await opened.close();
  });
  lifecycle.register('sandbox pool', 'close', closeSandboxPool);
  // Closed first, once requests have drained: events answered and still in memory (audit records of
  // reads, QR scans, email opens: core/write-behind.ts) are written; anything added after this is written before its answer.
  lifecycle.register('records written behind', 'close', () => drainWriteBehinds(opened.db));
  const admin = adminToken(config);
  // Never the token itself: logs are kept and shared; the file is readable by this user only.
  if (admin.created) log(`Admin token created and kept in ${admin.file} (mode 0600); send it as Authorization: Bearer <token>.`);
  if (!admin.token) log('Admin API disabled: set SVC_ADMIN_TOKEN to create stores over HTTP.');
  const svc = makeServices({
    db: opened.db,
    clock: config.clock,
    registry: app.registry,
    limits: config.rateLimits,
    adminToken: admin.token,
    mcpToolsMode: config.mcpTools,
    allowedHosts: config.allowedHosts,
    shutdown: lifecycle.signal,
  });

  let server: ReturnType<ReturnType<typeof createApp>['listen']> | undefined;
  if (config.role !== 'worker') {
    const hostname = process.env.SVC_HOST ?? '0.0.0.0';
    server = createApp(svc, app.pages?.()).listen({ port: config.port, hostname, maxRequestBodySize: SERVER_BODY_CAP });
    // What it binds, as it binds it; on all interfaces, also the address to use from this machine.
    const at = addressOf(hostname, server.server!.port!);
    const where = at.wildcard ? `${at.bound} (all interfaces; from this machine ${at.localUrl})` : at.localUrl;
    log(`svc listening on ${where} (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`})`);
    const forgetAddress = config.databaseUrl ? () => {} : recordAddress(config.dataDir, at.localUrl);
    const http = server.server!;
    // Stops accepting at once; requests in flight get the grace period, then their connections are cut.
    // (Open streams have ended by now: they heard the lifecycle's signal.)
    lifecycle.register('HTTP server', 'drain', async (deadline) => {
      const drained = await until(
        http.stop(false).then(() => true),
        deadline,
      );
      if (!drained) {
        log(`svc: ${http.pendingRequests} request(s) still running after the grace period; closing their connections.`);
        await http.stop(true);
      }
      forgetAddress();
    });
  }
  if (config.role !== 'api') {
    const workers = await startWorkers(opened.db, app.jobs(opened.db, config.clock), log);
    // Jobs in hand finish within the grace period; pg-boss fails the rest, which puts them back for a retry.
    lifecycle.register('workers', 'drain', (deadline) => workers.stop(remaining(deadline)));
  }

  // Plugins' own listeners (the email plugin's DNS and SMTP servers) and their start-up warnings.
  for (const p of app.registry.plugins) {
    if (!p.start) continue;
    const started = await p.start({
      db: opened.db,
      clock: config.clock,
      registry: app.registry,
      log: createLogger().child({ plugin: p.name }),
      config: app.registry.configOf(p.name),
      role: config.role,
      print: log,
    });
    if (started) lifecycle.register(`${p.name} listeners`, 'drain', async () => void (await started.stop()));
  }

  // The embedded database runs in this thread: an ANALYZE at start (a third of a second of CPU)
  // would hold the first requests back. The statistics kept in the data folder serve meanwhile.
  const analyze = setTimeout(() => {
    statistics = refreshStatistics(opened.db).catch((e) => log(`svc: planner statistics not refreshed: ${e instanceof Error ? e.message : e}`));
  }, STATISTICS_DELAY_MS);
  analyze.unref();
  lifecycle.register('statistics refresh', 'drain', async () => clearTimeout(analyze));

  /** Stops everything (tests; `svc serve` stops through its signals). */
  const stop = () => lifecycle.shutdown('stop').then(() => {});
  return { port: server?.server?.port, stop, svc, lifecycle };
}
