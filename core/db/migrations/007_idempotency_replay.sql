-- A replay returns the first answer's exact bytes: response_text keeps them (jsonb reorders keys;
-- response_body stays only for records written before this migration). A streamed answer (agent
-- chat) is recorded when its stream ends; until then the row holds a lease (locked_until) that the
-- streaming process renews, so a process that dies mid-stream frees the key within minutes.
ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS response_text text;
ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS response_headers jsonb;
ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS locked_until timestamptz;
ALTER TABLE idempotency_keys ALTER COLUMN response_body DROP NOT NULL;
ALTER TABLE idempotency_keys ALTER COLUMN response_status DROP NOT NULL;
