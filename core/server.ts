import type { Config } from './config';
import { createApp } from './http/app';
import { purgeIdempotencyKeys } from './http/idempotency';
import { purgeRateWindows } from './http/rate-limit';
import { purgeMcpSessions } from './mcp/sessions';
import { makeServices } from './http/services';
import { adminToken, openMigrated } from './runtime';
import { plugins } from '../plugins';

const MAINTENANCE_MS = 10 * 60_000;

/** `svc serve`: HTTP for role api/all; the worker role has no job handlers yet (workers issue). */
export async function serve(config: Config, log: (line: string) => void = (l) => console.error(l)) {
  const opened = await openMigrated(config);
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
  });

  let server: ReturnType<ReturnType<typeof createApp>['listen']> | undefined;
  if (config.role !== 'worker') {
    server = createApp(svc).listen({ port: config.port, hostname: process.env.SVC_HOST ?? '0.0.0.0' });
    log(`svc listening on http://127.0.0.1:${server.server!.port} (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`})`);
  }
  const maintenance = async () => {
    await purgeIdempotencyKeys(opened.db, config.clock).catch((e) => log(`idempotency purge failed: ${e.message}`));
    await purgeRateWindows(opened.db, config.clock).catch((e) => log(`rate window purge failed: ${e.message}`));
    await purgeMcpSessions(opened.db, config.clock).catch((e) => log(`MCP session purge failed: ${e.message}`));
  };
  const timer = setInterval(maintenance, MAINTENANCE_MS);
  void maintenance();

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      clearInterval(timer);
      await server?.stop();
      await opened.close();
    })());
  return { port: server?.server?.port, stop, svc };
}
