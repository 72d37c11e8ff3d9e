#!/usr/bin/env bun
/**
 * Makes the archive a new embedded database starts from (core/db/seed.ts): initdb, every
 * migration and pg-boss's schema, in memory, dumped as a gzipped tar into node_modules/.cache/svc.
 * Does nothing when the archive for the current migrations is already there, so `npm start` and
 * `npm test` run it every time at little cost.
 *
 *   --out <dir>   also copy it there, replacing older ones (`npm run build` embeds core/db/.seed/'s
 *                 copy: inside core/, so the entry points' common folder stays core/, where
 *                 core/sandbox/pool.ts finds the sandbox worker)
 *
 * Prints the archive's path.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildSeed, SEED_CACHE, SEED_PREFIX, seedFileName, seedFingerprint, writeSeed } from '../core/db/seed';
import { allMigrations } from '../core/migrations';
import { installJobs } from '../core/jobs/run';
import { createRegistry } from '../core/plugins/registry';
import { systemClock } from '../core/clock';
import { pluginList } from '../plugins';
import { allJobs } from '../workers';

const { values } = parseArgs({ args: process.argv.slice(2), options: { out: { type: 'string' } } });
// Plugin settings change no migration and no queue: the archive is the same for every operator.
const registry = createRegistry(pluginList, { env: {} });
const migrations = allMigrations(registry.plugins);

let file = join(SEED_CACHE, seedFileName(seedFingerprint(migrations)));
if (!existsSync(file)) file = writeSeed(migrations, await buildSeed(migrations, (db) => installJobs(db, allJobs(db, systemClock, registry))));
if (values.out) {
  mkdirSync(values.out, { recursive: true });
  for (const other of readdirSync(values.out)) if (other.startsWith(SEED_PREFIX)) rmSync(join(values.out, other), { force: true });
  copyFileSync(file, join(values.out, basename(file)));
  file = join(values.out, basename(file));
}
console.log(file);
process.exit(0); // pg-boss's timers would keep the process alive
