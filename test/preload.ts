import { afterAll } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { closeSharedDb } from './kit/db';

// Tool secrets need a key; on PostgreSQL there is no data directory to generate one into. Tests of
// the key loading itself pass their own environment.
process.env.SVC_SECRET_KEY ??= randomBytes(32).toString('base64');

// Runs once for the whole test run (preload): drop the throwaway database at the end.
afterAll(closeSharedDb);
