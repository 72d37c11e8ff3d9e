-- Client ID Metadata Documents: a client whose client_id is an https URL is kept as a row of
-- oauth_clients (kind 'metadata_document', for the grants that reference it) until its document's
-- HTTP cache lifetime ends; then the document is fetched again.
ALTER TABLE oauth_clients ADD COLUMN IF NOT EXISTS metadata_expires_at timestamptz;
