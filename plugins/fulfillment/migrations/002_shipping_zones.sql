-- Issue 50: where a store ships and at what price. A zone names countries (optionally regions and
-- postal code prefixes) or is the rest of the world (every country no other zone names); its
-- methods are [{id, name, rate_type, amount_minor, weight_rates: [{up_to_grams, amount_minor}],
-- free_over_minor, min_days, max_days}] in the store's currency.
CREATE TABLE IF NOT EXISTS shipping_zones (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  name text NOT NULL,
  countries text[] NOT NULL DEFAULT '{}',
  regions text[] NOT NULL DEFAULT '{}',
  postal_code_prefixes text[] NOT NULL DEFAULT '{}',
  rest_of_world boolean NOT NULL DEFAULT false,
  currency text NOT NULL,
  methods jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS shipping_zones_store_seq ON shipping_zones (store_id, seq);
