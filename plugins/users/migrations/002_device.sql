-- The device authorization grant (RFC 8628): a code the device polls with (stored hashed) and a
-- short code the human types on /auth/device. Once approved it points at the grant it made.
CREATE TABLE IF NOT EXISTS oauth_device_codes (
  device_code_hash text PRIMARY KEY,
  user_code text NOT NULL UNIQUE,
  client_id text NOT NULL REFERENCES oauth_clients(client_id),
  scopes text[] NOT NULL,
  resource text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'used')),
  grant_id uuid REFERENCES oauth_grants(id),
  interval_s integer NOT NULL,
  last_polled_at timestamptz,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);
