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

const db = await openDb({ databaseUrl: requireEnv('BENCH_DB_URL'), poolSize: Number(requireEnv('BENCH_POOL')) });
const svc = makeServices({ db, clock: systemClock, registry: createRegistry(pluginList), limits: HIGH_LIMITS });
const app = createApp(svc).listen({ hostname: '127.0.0.1', port: 0 });
announce(app.server!.port!);
