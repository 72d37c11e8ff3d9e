import type { Config } from './config';
import { createApp } from './http/app';
import { startWorkers } from './jobs/run';
import { makeServices } from './http/services';
import { adminToken, openMigrated, type Composition } from './runtime';
import { addressOf, recordAddress } from './server-address';

/** `svc serve`: HTTP for role api, job handlers for role worker, both for all (the default). */
export async function serve(config: Config, app: Composition, log: (line: string) => void = (l) => console.error(l)) {
  const opened = await openMigrated(config, app);
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
  });

  let server: ReturnType<ReturnType<typeof createApp>['listen']> | undefined;
  let forgetAddress = () => {};
  if (config.role !== 'worker') {
    const hostname = process.env.SVC_HOST ?? '0.0.0.0';
    server = createApp(svc).listen({ port: config.port, hostname });
    // What it binds, as it binds it; on all interfaces, also the address to use from this machine.
    const at = addressOf(hostname, server.server!.port!);
    const where = at.wildcard ? `${at.bound} (all interfaces; from this machine ${at.localUrl})` : at.localUrl;
    log(`svc listening on ${where} (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`})`);
    if (!config.databaseUrl) forgetAddress = recordAddress(config.dataDir, at.localUrl);
  }
  const workers = config.role !== 'api' ? await startWorkers(opened.db, app.jobs(opened.db, config.clock), log) : undefined;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await server?.stop();
      forgetAddress();
      await workers?.stop();
      await opened.close();
    })());
  return { port: server?.server?.port, stop, svc };
}
