import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { AddressInput } from '../orders/public';
import { errors, fail, iso, type Ctx, type Db, type Row } from '../../core/sdk';
import { priceSession, type Priced, type SessionState } from './price';
import { agenticSettings, type AgenticSettings } from './settings-store';
import type { AgentRef, Message, Session, SessionChanges, SessionStatus } from './types';
import { CheckoutConfig } from './config';

// Declared in config.ts (the plugin's declaration takes it at start); kept here for this module's users.
export { CheckoutConfig };
export type CheckoutCtx = Ctx<Static<typeof CheckoutConfig>>;

/** Who may see a session: a UCP agent by its profile URL, an ACP agent by its API key. */
// svc's own REST channel is the store's (any of its credentials holding `checkout`), as its other
// resources are; a protocol's agent sees only its own sessions.
export const agentKey = (a: AgentRef) =>
  a.protocol === 'ucp' ? `ucp:${a.profile_url ?? ''}` : a.protocol === 'acp' ? `key:${a.api_key_id ?? ''}` : 'api';

const ttlOf = (ctx: Ctx) => Number((ctx.config as { session_ttl_seconds?: number }).session_ttl_seconds ?? 21600);

/** The status a priced session is in: ready when nothing is missing or wrong. */
function statusOf(state: SessionState, p: Priced): { status: SessionStatus; messages: Message[] } {
  const messages = [...p.messages];
  const missing = (path: string, content: string) => messages.push({ type: 'error', code: 'missing', path, content, severity: 'medium' });
  if (!state.line_items.length) missing('$.line_items', 'The cart is empty: add line_items.');
  if (!state.buyer?.email) missing('$.buyer.email', "The buyer's email is missing.");
  if (!state.shipping_address) missing('$.shipping_address', 'The shipping address is missing.');
  else if (p.shipping_options.length && !p.shipping_option_id) missing('$.shipping_option_id', 'Choose a shipping option.');
  return { status: messages.some((m) => m.type === 'error') ? 'incomplete' : 'ready_for_complete', messages };
}

/** The session as the engine answers it, from its row (an expired one reads as canceled). */
export function toSession(r: Row, now: Date): Session {
  const { _order, ...view } = r.view;
  const expired = r.status !== 'completed' && r.status !== 'canceled' && new Date(r.expires_at).getTime() <= now.getTime();
  return {
    ...view,
    object: 'checkout_session',
    id: r.id,
    status: expired ? 'canceled' : r.status,
    channel: r.channel,
    agent: r.agent,
    messages: expired
      ? [{ type: 'error', code: 'expired', content: 'This checkout session expired; start a new one.', severity: 'high' }]
      : view.messages,
    order_id: r.order_id ?? null,
    expired,
    expires_at: iso(r.expires_at),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** The priced view stored with the session (everything but the row's own columns). */
export async function viewOf(ctx: Ctx, state: SessionState, p: Priced, settings?: AgenticSettings) {
  const pay = (settings ?? (await agenticSettings(ctx.db, ctx.store.id))).payments;
  const { status, messages } = statusOf(state, p);
  return {
    status,
    view: {
      currency: p.currency,
      prices_include_tax: p.prices_include_tax,
      line_items: p.lines,
      buyer: state.buyer ?? null,
      shipping_address: state.shipping_address ?? null,
      billing_address: state.billing_address ?? null,
      shipping_options: p.shipping_options,
      shipping_option_id: p.shipping_option_id,
      discount_codes: state.discount_codes,
      discounts: p.discounts,
      tax_lines: p.tax_lines,
      totals: p.totals,
      messages,
      payment_handler: pay.adapter,
      continue_url: null,
      order_number: null,
      // What completion orders (not shown): the priced lines and the buyer's customer.
      _order: { lines: p.orderable, customer_id: p.customer_id },
    },
  };
}

/** `changes` applied to `state` (left out keeps, null clears); lines get ids the session keeps. */
function applyChanges(state: SessionState, c: SessionChanges): SessionState {
  const next = { ...state };
  if (c.line_items !== undefined) {
    next.line_items = c.line_items.map((l, n) => {
      const same = state.line_items.find((o) => o.item_id.toLowerCase() === l.item_id.toLowerCase());
      return { id: same?.id ?? `li_${n + 1}_${crypto.randomUUID().slice(0, 8)}`, item_id: l.item_id, quantity: l.quantity };
    });
  }
  if (c.buyer !== undefined) next.buyer = c.buyer === null ? null : { ...(state.buyer ?? {}), ...c.buyer };
  if (c.shipping_address !== undefined) next.shipping_address = c.shipping_address;
  if (c.billing_address !== undefined) next.billing_address = c.billing_address;
  if (c.shipping_option_id !== undefined) next.shipping_option_id = c.shipping_option_id;
  if (c.discount_codes !== undefined) next.discount_codes = [...new Set(c.discount_codes)];
  return next;
}

const addressCheck = TypeCompiler.Compile(AddressInput);

/** An address as orders will take it (a protocol adapter maps its own shape first): 400 naming the field. */
function checkAddress(a: unknown, param: string) {
  if (a == null) return;
  const first = addressCheck.Errors(a).First();
  if (first)
    throw errors.validation(`Invalid ${param}${first.path.replaceAll('/', '.')}: ${first.message}.`, `${param}${first.path.replaceAll('/', '.')}`);
}

function checkChanges(c: SessionChanges) {
  checkAddress(c.shipping_address, 'shipping_address');
  checkAddress(c.billing_address, 'billing_address');
  if (c.line_items && c.line_items.length > 100) throw errors.validation('At most 100 line_items.', 'line_items');
  for (const [n, l] of (c.line_items ?? []).entries())
    if (!Number.isInteger(l.quantity) || l.quantity < 1 || l.quantity > 100000)
      throw errors.validation(`Invalid line_items.${n}.quantity: must be a whole number from 1 to 100000.`, `line_items.${n}.quantity`);
  if (c.discount_codes && c.discount_codes.length > 5) throw errors.validation('At most 5 discount_codes.', 'discount_codes');
}

const EMPTY: SessionState = {
  line_items: [],
  buyer: null,
  shipping_address: null,
  billing_address: null,
  shipping_option_id: null,
  discount_codes: [],
};

/** Prices a cart and creates nothing (MCP Apps' cart.quote). */
export async function quoteCart(ctx: Ctx, changes: SessionChanges) {
  checkChanges(changes);
  const state = applyChanges(EMPTY, changes);
  const p = await priceSession(ctx.db, ctx.store.id, state, { now: ctx.clock.now() });
  const { _order, ...view } = (await viewOf(ctx, state, p)).view;
  return view;
}

export async function createSession(ctx: Ctx, agent: AgentRef, changes: SessionChanges): Promise<Session> {
  checkChanges(changes);
  const now = ctx.clock.now();
  const state = applyChanges(EMPTY, changes);
  const p = await priceSession(ctx.db, ctx.store.id, state, { now });
  const { status, view } = await viewOf(ctx, state, p);
  const [r] = await ctx.db.query(
    `INSERT INTO checkout_sessions (id, store_id, channel, agent, agent_key, status, state, view, expires_at, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3::text::jsonb, $4, $5, $6::text::jsonb, $7::text::jsonb, $8, $9, $9) RETURNING *`,
    [
      ctx.store.id,
      agent.protocol,
      JSON.stringify(agent),
      agentKey(agent),
      status,
      JSON.stringify(state),
      JSON.stringify(view),
      new Date(now.getTime() + ttlOf(ctx) * 1000),
      now,
    ],
  );
  return toSession(r, now);
}

/** The session row of this agent, or 404 (another agent's or another store's reads as unknown). */
export async function sessionRow(db: Db, storeId: string, agent: AgentRef, id: string, lock = false) {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw errors.notFound(`checkout session: '${id}'`, 'id');
  const [r] = await db.query(`SELECT * FROM checkout_sessions WHERE store_id = $1 AND id = $2 AND agent_key = $3${lock ? ' FOR UPDATE' : ''}`, [
    storeId,
    id,
    agentKey(agent),
  ]);
  if (!r) throw errors.notFound(`checkout session: '${id}'`, 'id');
  return r;
}

export async function getSession(ctx: Ctx, agent: AgentRef, id: string): Promise<Session> {
  return toSession(await sessionRow(ctx.db, ctx.store.id, agent, id), ctx.clock.now());
}

/** A session that can still change: not completed, canceled nor expired (409 naming which). */
export function assertOpen(r: Row, now: Date) {
  if (r.status === 'completed') throw fail('checkout_session_completed', 'This checkout session is already completed.', 'id');
  if (r.status === 'canceled') throw fail('checkout_session_canceled', 'This checkout session was canceled.', 'id');
  if (new Date(r.expires_at).getTime() <= now.getTime())
    throw fail('checkout_session_expired', 'This checkout session expired; start a new one.', 'id');
}

export async function updateSession(ctx: Ctx, agent: AgentRef, id: string, changes: SessionChanges): Promise<Session> {
  checkChanges(changes);
  const now = ctx.clock.now();
  const r = await sessionRow(ctx.db, ctx.store.id, agent, id, true);
  assertOpen(r, now);
  const state = applyChanges(r.state, changes);
  const p = await priceSession(ctx.db, ctx.store.id, state, { now });
  const { status, view } = await viewOf(ctx, state, p);
  const [u] = await ctx.db.query(
    `UPDATE checkout_sessions SET status = $3, state = $4::text::jsonb, view = $5::text::jsonb, updated_at = $6 WHERE store_id = $1 AND id = $2 RETURNING *`,
    [ctx.store.id, r.id, status, JSON.stringify(state), JSON.stringify(view), now],
  );
  return toSession(u, now);
}

export async function cancelSession(ctx: Ctx, agent: AgentRef, id: string): Promise<Session> {
  const now = ctx.clock.now();
  const r = await sessionRow(ctx.db, ctx.store.id, agent, id, true);
  assertOpen(r, now);
  const [u] = await ctx.db.query(`UPDATE checkout_sessions SET status = 'canceled', updated_at = $3 WHERE store_id = $1 AND id = $2 RETURNING *`, [
    ctx.store.id,
    r.id,
    now,
  ]);
  return toSession(u, now);
}
