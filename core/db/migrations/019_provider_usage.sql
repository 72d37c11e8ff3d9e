-- Every outside provider call, counted per store, UTC day, provider and model (core/providers/usage.ts).
CREATE TABLE IF NOT EXISTS provider_usage (
  store_id uuid NOT NULL REFERENCES stores(id),
  day date NOT NULL,
  provider text NOT NULL,
  model text NOT NULL,
  requests bigint NOT NULL DEFAULT 0,
  input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  images bigint NOT NULL DEFAULT 0,
  video_seconds numeric NOT NULL DEFAULT 0,
  pages bigint NOT NULL DEFAULT 0,
  cost numeric(20, 8) NOT NULL DEFAULT 0,
  PRIMARY KEY (store_id, day, provider, model)
);

-- The operator's cap on a store's provider spend per calendar month, in USD; NULL: none.
ALTER TABLE stores ADD COLUMN IF NOT EXISTS monthly_spend_cap numeric(14, 2);
