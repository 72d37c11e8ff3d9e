-- A campaign: one marketing template sent to a segment's members, as a job (send.ts).
CREATE TABLE IF NOT EXISTS campaigns (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  name text NOT NULL,
  segment_id uuid NOT NULL,
  template_id uuid NOT NULL,
  from_address text,
  status text NOT NULL CHECK (status IN ('scheduled', 'sending', 'paused', 'sent', 'cancelled')),
  send_at timestamptz NOT NULL,
  send_rate_per_minute integer NOT NULL,
  conversion_window_days integer NOT NULL,
  -- Why sending stopped by itself (a missing setting, a deleted template): {code, message}.
  last_error jsonb,
  started_at timestamptz,
  finished_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS campaigns_store_seq ON campaigns (store_id, seq);

-- The audience, taken when sending starts: one row per member and campaign (the primary key), so a
-- retried or resumed send never mails anyone twice. `pending` rows are sent in `seq` order.
CREATE TABLE IF NOT EXISTS campaign_recipients (
  campaign_id uuid NOT NULL REFERENCES campaigns(id),
  customer_id uuid NOT NULL,
  store_id uuid NOT NULL,
  seq bigserial NOT NULL,
  email text,
  first_name text,
  last_name text,
  status text NOT NULL CHECK (status IN ('pending', 'sent', 'skipped')),
  -- skipped: no_email, not_accepting_marketing, suppressed.
  reason text,
  message_id uuid,
  sent_at timestamptz,
  PRIMARY KEY (campaign_id, customer_id)
);
CREATE INDEX IF NOT EXISTS campaign_recipients_pending ON campaign_recipients (campaign_id, seq) WHERE status = 'pending';
