import { Type } from '@sinclair/typebox';
import { iso, listPage, stamps, type Ctx, type Row } from '../../core/sdk';
import { customerIdByPhone } from '../customers/public';
import { smsAgent } from '../agents/public';
import { accountTwilio, checkSignature, storeNumber } from '../voice/public';

type PCtx = Ctx;

const smsUrl = (publicUrl: string, storeId: string) => `${publicUrl}/v1/stores/${storeId}/phone/sms/inbound`;

/** get_number: the store's number and the URL to set as its messaging webhook in Twilio. */
export async function getNumber(ctx: PCtx) {
  const t = accountTwilio(ctx);
  const agent = await smsAgent(ctx.db, ctx.store.id);
  return {
    object: 'phone_number' as const,
    phone_number: await storeNumber(ctx, t),
    sms_url: smsUrl(t.publicUrl, ctx.store.id),
    sms_agent_id: (agent?.id as string | undefined) ?? null,
  };
}

async function withMessages(ctx: Ctx, rows: Row[]) {
  const ids = rows.map((r) => r.id);
  const msgs = ids.length
    ? await ctx.db.query('SELECT * FROM phone_messages WHERE store_id = $1 AND conversation_id = ANY($2::uuid[]) ORDER BY created_at, seq', [
        ctx.store.id,
        ids,
      ])
    : [];
  return rows.map((r) => ({
    object: 'conversation' as const,
    id: r.id,
    phone: r.phone,
    customer_id: r.customer_id,
    last_message_at: iso(r.last_message_at),
    messages: msgs
      .filter((m) => m.conversation_id === r.id)
      .slice(-50)
      .map((m) => ({ direction: m.direction, body: m.body, created_at: iso(m.created_at) })),
    ...stamps(r),
  }));
}

export const listConversations = (ctx: Ctx, input: { limit?: number; starting_after?: string }) =>
  listPage(ctx, { table: 'phone_conversations', path: '/phone/conversations', input }, (rows) => withMessages(ctx, rows));

/**
 * An inbound SMS (Twilio's messaging webhook): signature-checked over the public URL, matched to
 * the store's customer by phone, kept in the sender's conversation. With an sms agent, its reply is
 * queued (phone.reply) in this transaction, only when the message is new: Twilio sending the same
 * MessageSid again queues nothing. The answer is empty TwiML at once (the reply goes out through
 * the Messages API, never inline: Twilio waits 15 s at most).
 */
export async function inboundSms(ctx: PCtx, input: Record<string, string>) {
  const t = accountTwilio(ctx);
  checkSignature(t.auth_token, smsUrl(t.publicUrl, ctx.store.id), input, ctx.http?.request.headers.get('x-twilio-signature') ?? null);
  const from = input.From ?? '';
  const now = ctx.clock.now();
  const customerId = from ? ((await customerIdByPhone(ctx.db, ctx.store.id, from)) ?? null) : null;
  const [conv] = await ctx.db.query(
    `INSERT INTO phone_conversations (id, store_id, phone, customer_id, last_message_at, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $4, $4)
     ON CONFLICT (store_id, phone) DO UPDATE SET last_message_at = $4, updated_at = $4,
       customer_id = coalesce(phone_conversations.customer_id, EXCLUDED.customer_id)
     RETURNING id`,
    [ctx.store.id, from, customerId, now],
  );
  const [kept] = await ctx.db.query(
    `INSERT INTO phone_messages (id, store_id, conversation_id, direction, body, twilio_sid, created_at)
     VALUES (gen_random_uuid(), $1, $2, 'inbound', $3, $4, $5) ON CONFLICT (store_id, twilio_sid) DO NOTHING RETURNING id`,
    [ctx.store.id, conv!.id, input.Body ?? '', input.MessageSid ?? null, now],
  );
  if (kept && from && (input.Body ?? '').trim() && (await smsAgent(ctx.db, ctx.store.id)))
    await ctx.enqueue('reply', { message_id: kept.id }, { singletonKey: `phone.reply:${kept.id}` });
  return new Response('<?xml version="1.0" encoding="UTF-8"?><Response></Response>', { headers: { 'Content-Type': 'text/xml' } });
}

export const Conversation = Type.Object({
  object: Type.Literal('conversation'),
  id: Type.String(),
  phone: Type.String(),
  customer_id: Type.Union([Type.String(), Type.Null()]),
  last_message_at: Type.String(),
  messages: Type.Array(Type.Object({ direction: Type.String(), body: Type.String(), created_at: Type.String() })),
  created_at: Type.String(),
  updated_at: Type.String(),
});
