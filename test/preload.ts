import { afterAll } from 'bun:test';
import { closeSharedDb } from './db';

// Runs once for the whole test run (preload): drop the throwaway database at the end.
afterAll(closeSharedDb);
