import { type Ctx } from '../../core/sdk';
import { smsAgent, smsReply } from '../agents/public';
import { accountTwilio, storeNumber, twilioPost } from '../voice/public';

/**
 * The `phone.reply` job: the store's sms agent answers one inbound message through the chat loop,
 * and the answer goes back through Twilio's Messages API. Each step is recorded before the next, so
 * a job run again (its worker died) neither asks the agent twice nor sends twice once Twilio
 * answered: the outbound row (one per inbound message, `reply_to`) is written before the send, its
 * `twilio_sid` after. Only a crash between Twilio's answer and that write can send again (Twilio's
 * Messages API takes no idempotency key).
 */
export async function replyJob(ctx: Ctx, input: { message_id: string }) {
  const [m] = await ctx.db.query(
    `SELECT m.id, m.body, m.conversation_id, c.phone, c.agent_id, c.agent_conversation_id
     FROM phone_messages m JOIN phone_conversations c ON c.id = m.conversation_id
     WHERE m.store_id = $1 AND m.id = $2 AND m.direction = 'inbound'`,
    [ctx.store.id, input.message_id],
  );
  if (!m) return { replied: false, reason: 'message_not_found' };
  let [out] = await ctx.db.query('SELECT * FROM phone_messages WHERE store_id = $1 AND reply_to = $2', [ctx.store.id, m.id]);
  if (!out) {
    const agent = await smsAgent(ctx.db, ctx.store.id);
    if (!agent) return { replied: false, reason: 'no_sms_agent' };
    // The number's conversation with this agent goes on; another agent starts its own.
    const cid = m.agent_id === agent.id ? (m.agent_conversation_id ?? undefined) : undefined;
    const r = await smsReply(ctx, agent, m.phone, m.body, cid);
    // No text (the provider failed): thrown, so the job is tried again later.
    if (!r.text.trim()) throw new Error(`The sms agent gave no answer${r.error ? `: ${r.error}` : ''}.`);
    const now = ctx.clock.now();
    [out] = await ctx.db.transaction(async (tx) => {
      await tx.query('UPDATE phone_conversations SET agent_id = $3, agent_conversation_id = $4, updated_at = $5 WHERE store_id = $1 AND id = $2', [
        ctx.store.id,
        m.conversation_id,
        agent.id,
        r.conversationId,
        now,
      ]);
      return tx.query(
        `INSERT INTO phone_messages (id, store_id, conversation_id, direction, body, reply_to, created_at)
         VALUES (gen_random_uuid(), $1, $2, 'outbound', $3, $4, $5) ON CONFLICT (store_id, reply_to) DO NOTHING RETURNING *`,
        [ctx.store.id, m.conversation_id, r.text.trim(), m.id, now],
      );
    });
    out ??= (await ctx.db.query('SELECT * FROM phone_messages WHERE store_id = $1 AND reply_to = $2', [ctx.store.id, m.id]))[0];
  }
  if (out.twilio_sid) return { replied: true, message_sid: out.twilio_sid };
  const t = accountTwilio(ctx);
  const sent = await twilioPost(t, 'Messages.json', { To: m.phone, From: await storeNumber(ctx, t), Body: out.body });
  const now = ctx.clock.now();
  await ctx.db.query('UPDATE phone_messages SET twilio_sid = $3 WHERE store_id = $1 AND id = $2', [ctx.store.id, out.id, sent.sid ?? null]);
  await ctx.db.query('UPDATE phone_conversations SET last_message_at = $3, updated_at = $3 WHERE store_id = $1 AND id = $2', [
    ctx.store.id,
    m.conversation_id,
    now,
  ]);
  return { replied: true, message_sid: sent.sid ?? null };
}
