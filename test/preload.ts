import { afterAll } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { closeSharedDb } from './kit/db';

// Tool secrets need a key; on PostgreSQL there is no data directory to generate one into. Tests of
// the key loading itself pass their own environment.
process.env.SVC_SECRET_KEY ??= randomBytes(32).toString('base64');

// Runs once for the whole test run (preload): drop the throwaway database at the end.
afterAll(closeSharedDb);

// The admin console's bundle (console/build.ts): `npm test` builds it first; a lone `bun test` of a
// file builds it here when it is missing (the server embeds it, so no test can load without it).
if (!existsSync(new URL('../console/dist/bundle.txt', import.meta.url)))
  Bun.spawnSync([process.execPath, 'console/build.ts'], { stdio: ['ignore', 'inherit', 'inherit'] });
