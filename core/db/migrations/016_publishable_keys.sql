-- Publishable keys (svc_pub_..., issue 27): the webchat widget's credential, written into a
-- storefront's page source, so it is public by design. It holds no scope and is not an API key
-- (the x-api-key format refuses it); it only opens webchat conversations from its allowed origins.
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'secret';
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS allowed_origins text[];
