-- A store's stages, in order, as one row (absent: the default stages, plugins/pipeline/stages.ts).
CREATE TABLE IF NOT EXISTS pipeline_stages (
  store_id uuid PRIMARY KEY REFERENCES stores(id),
  stages jsonb NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS deals (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  title text NOT NULL,
  customer_id uuid,
  value_minor bigint NOT NULL CHECK (value_minor >= 0),
  currency text NOT NULL,
  stage text NOT NULL,
  close_date date,
  -- [{from, to, at, actor: {type, id}}], appended by every move, never edited
  stage_history jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS deals_store_seq ON deals (store_id, seq);
CREATE INDEX IF NOT EXISTS deals_store_stage ON deals (store_id, stage, seq);
