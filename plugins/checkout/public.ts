/**
 * What other plugins may use of checkout: the store's agentic settings (the `agentic` plugin's
 * GET/PATCH STORE/agentic), and the engine for adapters living elsewhere (engine.ts).
 * A plugin importing this file declares `requires: ['checkout']`.
 */
import { onFirstCall } from '../../core/sdk';

export { agenticSettings, readSettingsView, writeSettings, type AgenticPatch, type AgenticSettings } from './settings-store';

// The signing keys' module (and the signatures under it): loaded at the first call, not when a
// plugin importing this file starts (plugins/README.md).
const keys = onFirstCall(() => import('./ucp/keys'));
export const rotateUcpSigningKeys = keys.rotateKeys;
export const ucpSigningKeys = keys.signingKeysView;
export { ROTATION_GRACE_DAYS } from './ucp/config';
