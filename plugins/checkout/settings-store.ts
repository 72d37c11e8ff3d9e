import { secretBox, setEventSubscriptions, type Db, type Row } from '../../core/sdk';
import { UCP_ORDER_EVENTS } from './ucp/events';

/** A store's agentic settings as the engine and adapters read them (secrets unsealed). */
export interface AgenticSettings {
  ucp: { enabled: boolean; allowed_profiles: string[]; require_signatures: boolean };
  acp: { enabled: boolean; webhook_url: string | null; webhook_secret: string | null };
  payments: { adapter: 'manual' | 'stripe'; manual_mode: 'pending' | 'escalate'; continue_url: string | null; stripe_api_key: string | null };
}

export function settingsOf(r: Row | undefined, unseal = true): AgenticSettings {
  const ucp = r?.ucp ?? {};
  const acp = r?.acp ?? {};
  const pay = r?.payments ?? {};
  const open = (sealed: string | null | undefined, field: string) =>
    unseal && sealed ? secretBox().open(sealed, context(r!.store_id, field)) : null;
  return {
    ucp: { enabled: ucp.enabled ?? false, allowed_profiles: ucp.allowed_profiles ?? [], require_signatures: ucp.require_signatures ?? false },
    acp: {
      enabled: acp.enabled ?? false,
      webhook_url: acp.webhook_url ?? null,
      webhook_secret: open(r?.acp_webhook_secret_sealed, 'acp_webhook_secret'),
    },
    payments: {
      adapter: pay.adapter ?? 'manual',
      manual_mode: pay.manual_mode ?? 'pending',
      continue_url: pay.continue_url ?? null,
      stripe_api_key: open(r?.stripe_api_key_sealed, 'stripe_api_key'),
    },
  };
}

/** The store's agentic settings: both protocols off, manual payments, until the store says otherwise. */
export async function agenticSettings(db: Db, storeId: string): Promise<AgenticSettings> {
  const [r] = await db.query('SELECT * FROM checkout_settings WHERE store_id = $1', [storeId]);
  return settingsOf(r);
}

/** A PATCH of the agentic settings: a field left out keeps its value; null clears a URL or secret. */
export interface AgenticPatch {
  ucp?: { enabled?: boolean; allowed_profiles?: string[]; require_signatures?: boolean };
  acp?: { enabled?: boolean; webhook_url?: string | null; webhook_secret?: string | null };
  payments?: { adapter?: 'manual' | 'stripe'; manual_mode?: 'pending' | 'escalate'; continue_url?: string | null; stripe_api_key?: string | null };
}

/** Sealing context: a sealed value of one store never opens as another's. */
const context = (storeId: string, field: string) => `checkout:${storeId}:${field}`;

/** The settings as the API shows them: secrets only as whether they are set. */
export function settingsView(r: Row | undefined) {
  const s = settingsOf(r, false);
  return {
    object: 'agentic_settings' as const,
    ucp: s.ucp,
    acp: { enabled: s.acp.enabled, webhook_url: s.acp.webhook_url, webhook_secret_set: !!r?.acp_webhook_secret_sealed },
    payments: {
      adapter: s.payments.adapter,
      manual_mode: s.payments.manual_mode,
      continue_url: s.payments.continue_url,
      stripe_api_key_set: !!r?.stripe_api_key_sealed,
    },
    updated_at: r?.updated_at ? new Date(r.updated_at).toISOString() : null,
  };
}

/**
 * The order events this store's agentic settings hear: order updates reach ACP agents only from
 * stores that send ACP webhooks, and every change of a UCP agent's order only from stores with UCP on
 * (ucp/webhooks.ts).
 */
function subscribedTypes(r: Row | undefined): string[] {
  const acpOn = r?.acp?.enabled && r.acp?.webhook_url && r.acp_webhook_secret_sealed;
  const types = new Set<string>(acpOn ? ['order.updated'] : []);
  if (r?.ucp?.enabled) for (const t of UCP_ORDER_EVENTS) types.add(t);
  return [...types];
}

export async function readSettingsView(db: Db, storeId: string) {
  const [r] = await db.query('SELECT * FROM checkout_settings WHERE store_id = $1', [storeId]);
  return settingsView(r);
}

export async function writeSettings(db: Db, storeId: string, patch: AgenticPatch, now: Date) {
  const [cur] = await db.query('SELECT * FROM checkout_settings WHERE store_id = $1 FOR UPDATE', [storeId]);
  const merge = (a: object | undefined, b: object | undefined) => ({ ...(a ?? {}), ...Object.fromEntries(Object.entries(b ?? {})) });
  const { webhook_secret, ...acp } = patch.acp ?? {};
  const { stripe_api_key, ...payments } = patch.payments ?? {};
  const seal = (field: string, v: string | null | undefined, old: string | null) =>
    v === undefined ? old : v === null ? null : secretBox().seal(v, context(storeId, field));
  const [r] = await db.query(
    `INSERT INTO checkout_settings AS c (store_id, ucp, acp, payments, acp_webhook_secret_sealed, stripe_api_key_sealed, updated_at)
     VALUES ($1, $2::text::jsonb, $3::text::jsonb, $4::text::jsonb, $5, $6, $7)
     ON CONFLICT (store_id) DO UPDATE SET ucp = $2::text::jsonb, acp = $3::text::jsonb, payments = $4::text::jsonb,
       acp_webhook_secret_sealed = $5, stripe_api_key_sealed = $6, updated_at = $7 RETURNING *`,
    [
      storeId,
      JSON.stringify(merge(cur?.ucp, patch.ucp)),
      JSON.stringify(merge(cur?.acp, acp)),
      JSON.stringify(merge(cur?.payments, payments)),
      seal('acp_webhook_secret', webhook_secret, cur?.acp_webhook_secret_sealed ?? null),
      seal('stripe_api_key', stripe_api_key, cur?.stripe_api_key_sealed ?? null),
      now,
    ],
  );
  await setEventSubscriptions(db, storeId, 'checkout', subscribedTypes(r));
  return settingsView(r);
}
