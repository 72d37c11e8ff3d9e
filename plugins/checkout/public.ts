/**
 * What other plugins may use of checkout: the store's agentic settings (the `agentic` plugin's
 * GET/PATCH STORE/agentic), and the engine for adapters living elsewhere (engine.ts).
 * A plugin importing this file declares `requires: ['checkout']`.
 */
export { agenticSettings, readSettingsView, writeSettings, type AgenticPatch, type AgenticSettings } from './settings-store';
export { rotateKeys as rotateUcpSigningKeys, signingKeysView as ucpSigningKeys, ROTATION_GRACE_DAYS } from './ucp/keys';
