/**
 * The `sms` channel for the phone plugin (which requires agents): which agent answers a store's
 * inbound SMS, and its reply through the same chat loop as the API and the webchat.
 */
import type { Ctx, Db, Principal, Row } from '../../core/sdk';
import { chat } from './chat';
import type { AgentDeps } from './store';
import { agentScopes } from './webchat';

/**
 * The store's sms agent: an active agent with the `sms` channel; among several, the store's
 * default agent, else the one made first. Undefined when none (messages are then only kept).
 */
export async function smsAgent(db: Db, storeId: string): Promise<Row | undefined> {
  const [r] = await db.query(
    `SELECT * FROM agents WHERE store_id = $1 AND status = 'active' AND channels @> '["sms"]'::jsonb ORDER BY is_default DESC, seq LIMIT 1`,
    [storeId],
  );
  return r;
}

/**
 * The agent's answer to one text from `phone`, in that number's conversation (`conversationId`,
 * or a new one): the chat loop as the webchat runs it, the texter acting with the agent's own
 * rights (the scopes its tools need) and no more.
 */
export async function smsReply(ctx: Ctx, agent: Row, phone: string, message: string, conversationId?: string) {
  const config = ctx.registry.configOf('agents') as Record<string, any>;
  const deps: AgentDeps = {
    plugins: () => ctx.registry.plugins,
    providers: config as AgentDeps['providers'],
    keepAliveMs: config.keep_alive_ms,
    approvalPollMs: config.approval_poll_ms,
  };
  const principal: Principal = { kind: 'job', plugin: 'phone', storeId: ctx.store.id, scopes: agentScopes(ctx, agent.tools), livemode: false };
  const res = await chat(
    deps,
    { ...ctx, principal },
    { id: agent.id, message, conversation_id: conversationId, stream: false },
    { name: 'sms', visitor: `sms:${phone}`, agent },
  );
  const reply = (await res.json()) as { conversation_id: string; text: string; error: string | null };
  return { conversationId: reply.conversation_id, text: reply.text, error: reply.error };
}
