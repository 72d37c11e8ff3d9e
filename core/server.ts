import type { Config } from './config';
import { createApp } from './http/app';
import { coreJobs, startWorkers } from './jobs/workers';
import { makeServices } from './http/services';
import { adminToken, openMigrated } from './runtime';
import { Lifecycle, remaining, until } from './lifecycle';
import { closeSandboxPool } from './sandbox/pool';
import { plugins } from '../plugins';

/**
 * `svc serve`: HTTP for role api, job handlers for role worker, both for all (the default). What it
 * starts registers with the process's lifecycle (core/lifecycle.ts), which stops it all at SIGTERM.
 */
export async function serve(config: Config, log: (line: string) => void = (l) => console.error(l), lifecycle = new Lifecycle(config.shutdownGraceMs, log)) {
  const opened = await openMigrated(config);
  // Closed last: the database, then the data-directory lock (opened.close does both).
  lifecycle.register('database', 'close', opened.close);
  lifecycle.register('sandbox pool', 'close', closeSandboxPool);
  const admin = adminToken(config);
  if (admin.created) log(`Admin token (shown once, also kept in ${admin.file}): ${admin.token}`);
  if (!admin.token) log('Admin API disabled: set SVC_ADMIN_TOKEN to create stores over HTTP.');
  const svc = makeServices({
    db: opened.db,
    clock: config.clock,
    plugins,
    limits: config.rateLimits,
    adminToken: admin.token,
    mcpToolsMode: config.mcpTools,
    allowedHosts: config.allowedHosts,
    shutdown: lifecycle.signal,
  });

  let server: ReturnType<ReturnType<typeof createApp>['listen']> | undefined;
  if (config.role !== 'worker') {
    server = createApp(svc).listen({ port: config.port, hostname: process.env.SVC_HOST ?? '0.0.0.0' });
    log(`svc listening on http://127.0.0.1:${server.server!.port} (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`})`);
    const http = server.server!;
    // Stops accepting at once; requests in flight get the grace period, then their connections are cut.
    // (Open streams have ended by now: they heard the lifecycle's signal.)
    lifecycle.register('HTTP server', 'drain', async (deadline) => {
      const drained = await until(http.stop(false).then(() => true), deadline);
      if (!drained) {
        log(`svc: ${http.pendingRequests} request(s) still running after the grace period; closing their connections.`);
        await http.stop(true);
      }
    });
  }
  if (config.role !== 'api') {
    const workers = await startWorkers(opened.db, coreJobs(opened.db, config.clock, { plugins }), log);
    // Jobs in hand finish within the grace period; pg-boss fails the rest, which puts them back for a retry.
    lifecycle.register('workers', 'drain', (deadline) => workers.stop(remaining(deadline)));
  }

  /** Stops everything (tests; `svc serve` stops through its signals). */
  const stop = () => lifecycle.shutdown('stop').then(() => {});
  return { port: server?.server?.port, stop, svc, lifecycle };
}
