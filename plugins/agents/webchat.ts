import { Type } from '@sinclair/typebox';
import { action, errors, fail, rowOr404, SvcError, type Ctx, type Principal } from '../../core/sdk';
import { resolvePublishableKey } from '../../core/platform';
import { chat } from './chat';
import type { AgentDeps } from './store';

/**
 * The webchat channel (SPEC 2.4, issue 27): the storefront widget (console/src/widget.ts, served at
 * /widget.js) chats with an agent of the store through a publishable key (svc_pub_). The key is
 * public, so what it allows is narrow: only agents with the `webchat` channel, only from the key's
 * allowed origins (the browser's Origin header; CORS answers only those), a few messages per minute
 * per visitor, and the agent's tools run with the scopes those tools need and nothing more.
 *
 * The widget posts text/plain JSON with no custom header: a CORS "simple" request, so no preflight.
 */
export const webchatErrors = {
  origin_not_allowed: {
    status: 403,
    type: 'permission_error' as const,
    description: "The page's origin is not one of the publishable key's allowed origins.",
  },
  channel_not_enabled: {
    status: 403,
    type: 'permission_error' as const,
    description: 'The agent does not have the webchat channel.',
  },
};

const Body = Type.Object({ body: Type.Optional(Type.Any()), content_type: Type.Optional(Type.String()) }, { additionalProperties: true });
const VISITOR = /^[A-Za-z0-9_-]{16,64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The scopes an agent's own tools need: its tool categories' scopes, and custom tools' when it names any. */
export function agentScopes(ctx: Pick<Ctx, 'registry'>, tools: string[]): string[] {
  const scopes = new Set<string>();
  for (const name of tools) {
    const plugin = ctx.registry.byName.get(name);
    if (plugin) for (const s of [...plugin.scopes.read, ...plugin.scopes.write]) scopes.add(s);
    else scopes.add('ai:write'); // a custom tool (by name, or all of them: CUSTOM_TOOLSET): their scope in core/tools
  }
  return [...scopes];
}

/** Counts a message for this visitor (and the address) in the current minute; 429 over the limit. */
async function countMessage(ctx: Ctx, storeId: string, who: string[], perMinute: number) {
  const now = ctx.clock.now();
  const window = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  for (const [i, visitor] of who.entries()) {
    const [row] = await ctx.db.query<{ count: number }>(
      `INSERT INTO webchat_rate (store_id, visitor, window_start, count) VALUES ($1, $2, $3, 1)
       ON CONFLICT (store_id, visitor, window_start) DO UPDATE SET count = webchat_rate.count + 1 RETURNING count`,
      [storeId, visitor, window],
    );
    // The address may carry several visitors (an office, a phone network): five times the limit.
    if (row.count > perMinute * (i === 0 ? 1 : 5)) throw errors.rateLimited(Math.ceil((window.getTime() + 60_000 - now.getTime()) / 1000));
  }
  if (Math.random() < 0.01) await ctx.db.query('DELETE FROM webchat_rate WHERE window_start < $1', [new Date(window.getTime() - 3_600_000)]);
}

const cors = (origin: string) => ({ 'Access-Control-Allow-Origin': origin, Vary: 'Origin', 'Access-Control-Expose-Headers': 'X-Conversation-Id' });

function envelope(ctx: Ctx, e: SvcError, headers: Record<string, string>) {
  return new Response(JSON.stringify({ error: { type: e.type, code: e.code, message: e.message, param: e.param, request_id: ctx.requestId } }), {
    status: e.status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...e.headers, ...headers },
  });
}

export const webchatActions = (deps: (ctx: Ctx) => AgentDeps) => ({
  webchat_chat: action({
    kind: 'write',
    description:
      "The storefront widget's chat (webchat channel): a publishable key, the agent, the visitor's id and a message; the reply streams as server-sent events. Only from the key's allowed origins.",
    input: Body,
    output: Type.Object({}, { additionalProperties: true, description: 'Server-sent events, as the agent chat (SPEC 4.2).' }),
    rest: {
      method: 'POST',
      path: '/v1/webchat/chat',
      auth: 'public',
      scope: 'global',
      body: 'raw',
      response: 'raw',
      contentType: 'text/event-stream',
    },
    errors: ['origin_not_allowed', 'channel_not_enabled'],
    handler: async (ctx, input) => {
      const origin = ctx.http?.request.headers.get('origin') ?? '';
      let allowed: Record<string, string> = {};
      try {
        let body: Record<string, any>;
        try {
          body = JSON.parse(new TextDecoder().decode(input.body ?? new Uint8Array()));
        } catch {
          throw errors.validation('The body must be JSON: {key, agent_id, visitor_id, message, conversation_id?}.');
        }
        const key = await resolvePublishableKey(ctx.db, ctx.clock, body.key);
        // No CORS answer for another origin: its page cannot even read the refusal.
        if (!key.allowedOrigins.includes(origin))
          throw fail('origin_not_allowed', `This publishable key may not be used from ${origin ? `'${origin}'` : 'a page without an Origin'}.`);
        allowed = cors(origin);
        if (typeof body.agent_id !== 'string' || !UUID.test(body.agent_id)) throw errors.validation('agent_id must be an agent id.', 'agent_id');
        if (typeof body.visitor_id !== 'string' || !VISITOR.test(body.visitor_id))
          throw errors.validation('visitor_id must be 16 to 64 letters, digits, - or _.', 'visitor_id');
        if (typeof body.message !== 'string' || !body.message.trim() || body.message.length > 4000)
          throw errors.validation('message must be text of 1 to 4000 characters.', 'message');
        if (body.conversation_id !== undefined && (typeof body.conversation_id !== 'string' || !UUID.test(body.conversation_id)))
          throw errors.validation('conversation_id must be a conversation id.', 'conversation_id');
        const agent = await rowOr404(ctx.db, { table: 'agents', storeId: key.store.id, id: body.agent_id, noun: 'agent', param: 'agent_id' });
        if (!agent.channels.includes('webchat'))
          throw fail('channel_not_enabled', `Agent '${agent.id}' does not have the webchat channel; add 'webchat' to its channels.`, 'agent_id');
        await countMessage(
          ctx,
          key.store.id,
          [`visitor:${body.visitor_id}`, `ip:${ctx.http?.clientIp ?? 'unknown'}`],
          ctx.config.webchat_messages_per_minute as number,
        );
        // The visitor acts with the agent's own rights (the scopes its tools need), under the key's id.
        const principal: Principal = {
          kind: 'api_key',
          keyId: key.id,
          storeId: key.store.id,
          scopes: agentScopes(ctx, agent.tools),
          livemode: false,
        };
        const as: Ctx = { ...ctx, store: key.store, principal, storePath: `/v1/stores/${key.store.id}` };
        const res = await chat(
          deps(as),
          as,
          { id: agent.id, message: body.message, conversation_id: body.conversation_id },
          { name: 'webchat', visitor: body.visitor_id, agent },
        );
        for (const [k, v] of Object.entries(allowed)) res.headers.set(k, v);
        return res;
      } catch (e) {
        if (e instanceof SvcError) return envelope(ctx, e, allowed);
        throw e;
      }
    },
  }),
});
