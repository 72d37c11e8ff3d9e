-- A store's settings (issue 46). The name stays on the core's stores row; the rest is here, one
-- row per store written on the first update_settings (no row: every default).
CREATE TABLE IF NOT EXISTS store_settings (
  store_id uuid PRIMARY KEY REFERENCES stores(id),
  currency text NOT NULL DEFAULT 'USD',
  timezone text NOT NULL DEFAULT 'UTC',
  address jsonb,
  contact_email text,
  website_url text,
  order_number_prefix text NOT NULL DEFAULT '',
  invoice_prefix text NOT NULL DEFAULT 'INV-',
  prices_include_tax boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL
);
