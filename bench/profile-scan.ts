/**
 * `bun --cpu-prof bench/profile-scan.ts`: the QR scan route (`GET /s/{code}`, 1,999 uncapped codes
 * rotated, a phone's User-Agent) under `wrk -t1 -c32` for PROFILE_SECONDS (default 8), served from
 * this process so the profile shows the whole server side, batch writes included.
 */
import { join } from 'node:path';
import { systemClock } from '../core/clock';
import { openDb } from '../core/db';
import { createApp } from '../core/http/app';
import { makeServices } from '../core/http/services';
import { createRegistry } from '../core/plugins/registry';
import { pluginList } from '../plugins';
import { HIGH_LIMITS } from './child';
import { createBenchDb } from './seed';
import { requireWrk, runWrk } from './wrk';

process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
const wrk = requireWrk();
const bench = await createBenchDb(1);
const db = await openDb({ databaseUrl: bench.url, poolSize: 10 });
const codesFile = join(import.meta.dir, `.qr-profile-codes-${process.pid}.txt`);
try {
  await db.query(
    `INSERT INTO qr_codes (id, store_id, code, type, destination_url, status, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'p' || g, 'custom', 'https://shop.example.com/p/' || g, 'active', now(), now() FROM generate_series(1, 1999) g`,
    [bench.storeId],
  );
  await Bun.write(codesFile, Array.from({ length: 1999 }, (_, i) => `p${i + 1}`).join('\n') + '\n');
  const app = createApp(makeServices({ db, clock: systemClock, registry: createRegistry(pluginList), limits: HIGH_LIMITS })).listen({
    hostname: '127.0.0.1',
    port: 0,
  });
  const run = (seconds: number) =>
    runWrk(wrk, {
      url: `http://127.0.0.1:${app.server!.port}`,
      seconds,
      connections: 32,
      threads: 1,
      headers: {
        'user-agent':
          'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      },
      script: `${import.meta.dir}/get-rotate.lua`,
      scriptArgs: ['/s/', codesFile],
    });
  await run(2);
  const cpu = process.cpuUsage();
  const r = await run(Number(process.env.PROFILE_SECONDS ?? 8));
  const used = process.cpuUsage(cpu);
  console.log(
    `${Math.round(r.rps)} scans/s, p99 ${r.p99} ms, ${((used.user + used.system) / r.requests).toFixed(1)} µs server CPU/scan, errors ${r.errors}`,
  );
  await app.stop();
} finally {
  await Bun.file(codesFile)
    .delete()
    .catch(() => {});
  await db.close();
  await bench.drop();
}
