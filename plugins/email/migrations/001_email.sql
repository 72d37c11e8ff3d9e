-- Templates: the current version in email_templates, every version (the current one included)
-- in email_template_versions, so a message can name the version it used and old ones stay readable.
CREATE TABLE IF NOT EXISTS email_templates (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  name text NOT NULL,
  slug text NOT NULL,
  category text NOT NULL,
  subject text NOT NULL,
  html text NOT NULL,
  text text NOT NULL,
  version integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT email_templates_store_slug UNIQUE (store_id, slug)
);
CREATE INDEX IF NOT EXISTS email_templates_store_seq ON email_templates (store_id, seq);

CREATE TABLE IF NOT EXISTS email_template_versions (
  template_id uuid NOT NULL REFERENCES email_templates(id) ON DELETE CASCADE,
  store_id uuid NOT NULL,
  version integer NOT NULL,
  subject text NOT NULL,
  html text NOT NULL,
  text text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (template_id, version)
);

-- Sending domains, each with its own DKIM key pair (the private half sealed with SVC_SECRET_KEY).
CREATE TABLE IF NOT EXISTS email_domains (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  domain text NOT NULL,
  status text NOT NULL,
  dkim_public text NOT NULL,
  dkim_private_sealed text NOT NULL,
  findings jsonb,
  verified_at timestamptz,
  checked_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT email_domains_store_domain UNIQUE (store_id, domain)
);
CREATE INDEX IF NOT EXISTS email_domains_store_seq ON email_domains (store_id, seq);
-- The DNS listener answers by domain label across stores.
CREATE INDEX IF NOT EXISTS email_domains_domain ON email_domains (domain);

CREATE TABLE IF NOT EXISTS email_messages (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  to_addresses jsonb NOT NULL,
  from_address text NOT NULL,
  reply_to text,
  subject text NOT NULL,
  html text,
  text text,
  category text NOT NULL,
  template_id uuid,
  template_version integer,
  tags jsonb NOT NULL DEFAULT '[]',
  attachments jsonb,
  headers jsonb,
  status text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  smtp_response text,
  message_id_header text NOT NULL,
  -- The secret part of this message's tracking and unsubscribe links, and the URLs its clicks may reach.
  tracking_token text NOT NULL,
  links jsonb NOT NULL DEFAULT '[]',
  thread_id uuid,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  sent_at timestamptz
);
CREATE INDEX IF NOT EXISTS email_messages_store_seq ON email_messages (store_id, seq);
CREATE INDEX IF NOT EXISTS email_messages_store_created ON email_messages (store_id, created_at);

-- Addresses the store must not mail again (hard bounce, complaint, unsubscribe).
CREATE TABLE IF NOT EXISTS email_suppressions (
  store_id uuid NOT NULL REFERENCES stores(id),
  address text NOT NULL,
  reason text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (store_id, address)
);

CREATE TABLE IF NOT EXISTS email_events (
  id uuid PRIMARY KEY,
  seq bigserial NOT NULL,
  store_id uuid NOT NULL,
  message_id uuid NOT NULL,
  event text NOT NULL,
  details jsonb NOT NULL,
  -- An open no person made (mail-privacy prefetch, scanners): kept, but not counted in stats.
  machine boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS email_events_message ON email_events (message_id, seq);
CREATE INDEX IF NOT EXISTS email_events_store_created ON email_events (store_id, created_at, event);
