-- Messages of one conversation in the order they arrived, also within one clock tick (created_at ties).
ALTER TABLE phone_messages ADD COLUMN IF NOT EXISTS seq bigserial;
