/**
 * Which store a UCP request is for: core picks it from the Host the request came to (routes
 * declare `rest.host`: a claimed hostname, or the instance's only store; none is 404). Here: its
 * agentic settings, with UCP on (else 404: to an agent that host has no UCP business), and this
 * server's origin as the agent reached it.
 */
import { hostOf, type Ctx, type Store } from '../../../core/sdk';
import { agenticSettings, type AgenticSettings } from '../engine';
import { ucpFail } from './errors';

export interface Scope {
  store: Store;
  settings: AgenticSettings;
  /** This server as the agent reached it: the request's scheme and the Host it named. */
  origin: string;
}

export async function agenticScope(ctx: Ctx): Promise<Scope> {
  const request = ctx.http!.request;
  const host = (request.headers.get('host') ?? new URL(request.url).host).toLowerCase();
  const settings = await agenticSettings(ctx.db, ctx.store.id);
  if (!settings.ucp.enabled) throw ucpFail('protocol_disabled', `UCP is not enabled for the store at ${hostOf(request)}.`);
  const scheme = new URL(ctx.http!.origin).protocol;
  return { store: ctx.store, settings, origin: `${scheme}//${host}` };
}
