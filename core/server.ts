import type { Config } from './config';
import { createApp } from './http/app';
import { startWorkers } from './jobs/run';
import { makeServices } from './http/services';
import { adminToken, openMigrated, type Composition } from './runtime';

/** `svc serve`: HTTP for role api, job handlers for role worker, both for all (the default). */
export async function serve(config: Config, app: Composition, log: (line: string) => void = (l) => console.error(l)) {
  const opened = await openMigrated(config, app);
  const admin = adminToken(config);
  if (admin.created) log(`Admin token (shown once, also kept in ${admin.file}): ${admin.token}`);
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
  if (config.role !== 'worker') {
    server = createApp(svc).listen({ port: config.port, hostname: process.env.SVC_HOST ?? '0.0.0.0' });
    log(`svc listening on http://127.0.0.1:${server.server!.port} (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`})`);
  }
  const workers = config.role !== 'api' ? await startWorkers(opened.db, app.jobs(opened.db, config.clock), log) : undefined;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await server?.stop();
      await workers?.stop();
      await opened.close();
    })());
  return { port: server?.server?.port, stop, svc };
}
