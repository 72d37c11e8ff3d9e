/**
 * The UCP adapter (release 2026-04-08) of the checkout plugin, as pieces its declaration spreads:
 * routes (REST, MCP binding, `/.well-known/ucp`), the internal operations they run in the Host's
 * store, the order-webhook job, its tables and migration, its setting. README.md beside this file
 * says how each part follows the spec.
 */
import migration from './migrations/001_ucp.sql' with { type: 'text' };
// Declarations only: the handlers' modules are loaded at their first call (actions.ts).
import { ucpActions, ucpJobs, ucpMcpActions, ucpOpActions, ucpReactions } from './actions';

export { UcpConfigFields } from './config';
export { ucpJobs, ucpReactions };

export const ucpTables = ['ucp_signing_keys', 'ucp_idempotency'];
export const ucpMigrations = [{ id: 'checkout/101_ucp', sql: migration }];
export const ucpAllActions = { ...ucpActions, ...ucpMcpActions, ...ucpOpActions };
