-- People: accounts, their role in each store, and invitations (issue 11).
CREATE TABLE IF NOT EXISTS users (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  name text NOT NULL DEFAULT '',
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS users_email ON users (lower(email));

CREATE TABLE IF NOT EXISTS store_memberships (
  user_id uuid NOT NULL REFERENCES users(id),
  store_id uuid NOT NULL REFERENCES stores(id),
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'approver', 'staff', 'viewer')),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, store_id)
);
CREATE INDEX IF NOT EXISTS store_memberships_store ON store_memberships (store_id);

-- The link's token is stored hashed; it is shown once, in the response that creates it.
CREATE TABLE IF NOT EXISTS invitations (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  email text NOT NULL,
  role text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  invited_by uuid,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  created_at timestamptz NOT NULL
);

-- Browser sessions (cookie holds the token; the row holds its hash).
CREATE TABLE IF NOT EXISTS user_sessions (
  token_hash text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id),
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);

-- Failed sign-ins per account and per client address: each failure delays the next attempt.
CREATE TABLE IF NOT EXISTS login_throttle (
  key text PRIMARY KEY,
  failures integer NOT NULL DEFAULT 0,
  next_at timestamptz NOT NULL
);

-- Keys that sign users' access tokens; the private half sealed with SVC_SECRET_KEY.
CREATE TABLE IF NOT EXISTS token_signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  private_sealed text NOT NULL,
  public_jwk jsonb NOT NULL,
  created_at timestamptz NOT NULL
);

-- OAuth 2.1: clients, grants (one user's consent for one client in one store), codes, refresh tokens.
CREATE TABLE IF NOT EXISTS oauth_clients (
  client_id text PRIMARY KEY,
  secret_hash text,
  name text NOT NULL,
  redirect_uris text[] NOT NULL,
  kind text NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS oauth_grants (
  id uuid PRIMARY KEY,
  client_id text NOT NULL REFERENCES oauth_clients(client_id),
  user_id uuid NOT NULL REFERENCES users(id),
  store_id uuid NOT NULL REFERENCES stores(id),
  scopes text[] NOT NULL,
  resource text NOT NULL,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS oauth_codes (
  code_hash text PRIMARY KEY,
  grant_id uuid NOT NULL REFERENCES oauth_grants(id),
  redirect_uri text NOT NULL,
  code_challenge text,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);

CREATE TABLE IF NOT EXISTS oauth_refresh_tokens (
  token_hash text PRIMARY KEY,
  grant_id uuid NOT NULL REFERENCES oauth_grants(id),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);
