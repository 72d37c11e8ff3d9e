-- Videos a store asked a video model for. The id is the job's a client follows (GET STORE/jobs/{id});
-- provider_id is the provider's own (OpenAI's video_...), polled by the job until completed or failed.
CREATE TABLE IF NOT EXISTS videos (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  prompt text NOT NULL,
  model text NOT NULL,
  seconds integer,
  size text,
  visibility text NOT NULL DEFAULT 'public' CHECK (visibility IN ('public', 'private')),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'in_progress', 'completed', 'failed')),
  progress integer NOT NULL DEFAULT 0,
  provider_id text NOT NULL,
  media_id uuid,
  error jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz
);
CREATE INDEX IF NOT EXISTS videos_store_seq ON videos (store_id, seq);
