-- Signing secrets are sealed from now on (AES-256-GCM, core/secrets.ts), like custom tool secrets:
-- sealed_secret holds them; `secret` keeps only those stored in plain text before this migration,
-- which deliveries still use.
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS sealed_secret text;
ALTER TABLE webhook_endpoints ALTER COLUMN secret DROP NOT NULL;
