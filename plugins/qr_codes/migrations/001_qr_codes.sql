-- QR codes (issue 29). A code is unique across the instance: its public scan URL
-- ({base_url}/s/{code}) names no store.
CREATE TABLE IF NOT EXISTS qr_codes (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  code text NOT NULL,
  type text NOT NULL,
  destination_url text,
  brand_color text,
  logo_url text,
  -- The logo as fetched once through the egress guard, kept so an image never fetches again.
  logo_base64 text,
  campaign_name text,
  expires_at timestamptz,
  max_scans integer CHECK (max_scans >= 1),
  total_scans integer NOT NULL DEFAULT 0,
  expired_message text,
  landing_page jsonb,
  track_conversions boolean NOT NULL DEFAULT true,
  -- Stored: active, deactivated, maxed_out. `expired` is derived from expires_at when read.
  status text NOT NULL,
  archived_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT qr_codes_code UNIQUE (code)
);
CREATE INDEX IF NOT EXISTS qr_codes_store_seq ON qr_codes (store_id, seq);
CREATE INDEX IF NOT EXISTS qr_codes_store_campaign ON qr_codes (store_id, campaign_name) WHERE campaign_name IS NOT NULL;

-- One row per counted scan (its id is the svc_scan a redirect carries). No raw IP: `fingerprint` is a keyed hash of the client (64 bits).
-- The scan tables carry no foreign keys, on purpose: only the scan statement writes them, from the
-- code row it just claimed (codes are archived, never deleted), and each key check took a share
-- lock on the store and code rows per scan (measured: scans/s about tripled without them).
CREATE TABLE IF NOT EXISTS qr_scans (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL,
  code_id uuid NOT NULL,
  scanned_at timestamptz NOT NULL,
  device text NOT NULL,
  city text NOT NULL,
  fingerprint bigint NOT NULL,
  -- Set when the landing page's call-to-action was followed after this scan.
  converted_at timestamptz
);
-- No index beyond the key: analytics read qr_scan_days, conversions find scans by id, and every
-- index here is one more write on the hottest path.

-- Each device (fingerprint) once per code: a scan whose insert here succeeds is a unique scan.
CREATE TABLE IF NOT EXISTS qr_scan_devices (
  store_id uuid NOT NULL,
  code_id uuid NOT NULL,
  fingerprint bigint NOT NULL,
  PRIMARY KEY (code_id, fingerprint)
);

-- Scans counted by UTC day, device and city as they happen (in the scan's own statement), so
-- analytics add up a few hundred rows instead of reading every scan.
CREATE TABLE IF NOT EXISTS qr_scan_days (
  store_id uuid NOT NULL,
  code_id uuid NOT NULL,
  day date NOT NULL,
  device text NOT NULL,
  city text NOT NULL,
  scans integer NOT NULL,
  unique_scans integer NOT NULL,
  -- Landing page call-to-action conversions of these scans (order conversions are read from orders).
  conversions integer NOT NULL DEFAULT 0,
  PRIMARY KEY (code_id, day, device, city)
);
CREATE INDEX IF NOT EXISTS qr_scan_days_store ON qr_scan_days (store_id, code_id, day);

-- The key of scan fingerprints: one per instance (every node reads the same), made of two
-- gen_random_uuid() values (strong randomness). Not store data: a store never sees it.
CREATE TABLE IF NOT EXISTS qr_fingerprint_key (
  id integer PRIMARY KEY CHECK (id = 1),
  key text NOT NULL
);
INSERT INTO qr_fingerprint_key (id, key) VALUES (1, gen_random_uuid()::text || gen_random_uuid()::text) ON CONFLICT (id) DO NOTHING;
