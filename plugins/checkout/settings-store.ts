import { secretBox, type Db, type Row } from '../../core/sdk';

/** A store's agentic settings as the engine and adapters read them (secrets unsealed). */
export interface AgenticSettings {
  ucp: { enabled: boolean; allowed_profiles: string[]; require_signatures: boolean };
  acp: { enabled: boolean; webhook_url: string | null; webhook_secret: string | null };
  payments: { adapter: 'manual' | 'stripe'; manual_mode: 'pending' | 'escalate'; continue_url: string | null; stripe_api_key: string | null };
}

export function settingsOf(r: Row | undefined): AgenticSettings {
  const ucp = r?.ucp ?? {};
  const acp = r?.acp ?? {};
  const pay = r?.payments ?? {};
  const open = (sealed: string | null | undefined) => (sealed ? secretBox().open(sealed) : null);
  return {
    ucp: { enabled: ucp.enabled ?? false, allowed_profiles: ucp.allowed_profiles ?? [], require_signatures: ucp.require_signatures ?? false },
    acp: { enabled: acp.enabled ?? false, webhook_url: acp.webhook_url ?? null, webhook_secret: open(r?.acp_webhook_secret_sealed) },
    payments: {
      adapter: pay.adapter ?? 'manual',
      manual_mode: pay.manual_mode ?? 'pending',
      continue_url: pay.continue_url ?? null,
      stripe_api_key: open(r?.stripe_api_key_sealed),
    },
  };
}

/** The store's agentic settings: both protocols off, manual payments, until the store says otherwise. */
export async function agenticSettings(db: Db, storeId: string): Promise<AgenticSettings> {
  const [r] = await db.query('SELECT * FROM checkout_settings WHERE store_id = $1', [storeId]);
  return settingsOf(r);
}
