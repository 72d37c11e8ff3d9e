/**
 * Which store a UCP request is for: the one that claimed the hostname it came to (Host), with UCP
 * turned on in its agentic settings. An unclaimed host, or a store with UCP off, is 404: to an
 * agent that host has no UCP business.
 */
import type { Ctx, Store } from '../../../core/sdk';
import { agenticSettings, type AgenticSettings } from '../engine';
import { ucpFail } from './errors';
import { storeForHost } from './hosts';

export interface Scope {
  store: Store;
  settings: AgenticSettings;
  /** This server as the agent reached it: the request's scheme and the store's hostname. */
  origin: string;
}

export async function agenticScope(ctx: Ctx): Promise<Scope> {
  const request = ctx.http!.request;
  const host = (request.headers.get('host') ?? new URL(request.url).host).toLowerCase();
  const store = await storeForHost(ctx.db, host);
  if (!store) throw ucpFail('not_found', `No store answers UCP at ${host}.`);
  const settings = await agenticSettings(ctx.db, store.id);
  if (!settings.ucp.enabled) throw ucpFail('protocol_disabled', `UCP is not enabled for the store at ${host}.`);
  const scheme = new URL(ctx.http!.origin).protocol;
  return { store, settings, origin: `${scheme}//${host}` };
}
