-- Issue 21, additive (SPEC 9.5).
-- Secret rolling: the secret replaced by POST /webhooks/:id/roll-secret stays valid (sealed like the
-- current one) until previous_secret_expires_at; deliveries carry a signature made with each.
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS previous_sealed_secret text;
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS previous_secret_expires_at timestamptz;
-- The API version an endpoint was created under: event payloads are delivered in its shape.
-- Endpoints from before this column received the then latest shape, v2026-03-07; they keep it.
-- The default only fills those rows: the application always names the version.
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS api_version text NOT NULL DEFAULT 'v2026-03-07';
ALTER TABLE webhook_endpoints ALTER COLUMN api_version DROP DEFAULT;
