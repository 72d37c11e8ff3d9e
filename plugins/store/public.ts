/**
 * What other plugins may read of a store's settings: products (the default currency), orders (the
 * order number prefix, whether prices include tax), tax and invoices. A plugin that imports this
 * file declares `requires: ['store']`.
 */
import type { Db, Row } from '../../core/sdk';

export interface StoreSettings {
  currency: string;
  timezone: string;
  address: { line1: string; line2?: string; city: string; region?: string; postal_code?: string; country: string } | null;
  contact_email: string | null;
  website_url: string | null;
  order_number_prefix: string;
  invoice_prefix: string;
  prices_include_tax: boolean;
  /** The store's own number of the Twilio account (E.164); null: the instance's TWILIO_PHONE_NUMBER. */
  phone_number: string | null;
}

/** A store with no settings row has these (the migration's column defaults say the same). */
export const DEFAULT_SETTINGS: StoreSettings = {
  currency: 'USD',
  timezone: 'UTC',
  address: null,
  contact_email: null,
  website_url: null,
  order_number_prefix: '',
  invoice_prefix: 'INV-',
  prices_include_tax: false,
  phone_number: null,
};

export const settingsFromRow = (r: Row | null | undefined): StoreSettings =>
  r
    ? {
        currency: r.currency,
        timezone: r.timezone,
        address: r.address ?? null,
        contact_email: r.contact_email,
        website_url: r.website_url,
        order_number_prefix: r.order_number_prefix,
        invoice_prefix: r.invoice_prefix,
        prices_include_tax: r.prices_include_tax,
        phone_number: r.phone_number ?? null,
      }
    : { ...DEFAULT_SETTINGS };

/**
 * The settings row as SQL for a statement that reads it with other things (orders' first read): an
 * expression giving the row as JSON, or null (read it with settingsFromRow). `store` is the
 * placeholder of the store id.
 */
export const storeSettingsSql = (store: string) => `(SELECT row_to_json(s) FROM store_settings s WHERE s.store_id = ${store})`;

/** The store's settings, defaults where it set none; one indexed read. */
export async function storeSettings(db: Db, storeId: string): Promise<StoreSettings> {
  const [r] = await db.query('SELECT * FROM store_settings WHERE store_id = $1', [storeId]);
  return settingsFromRow(r);
}
