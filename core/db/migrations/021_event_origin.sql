-- Who caused an event and in which request ({actor: {type, id}, request_id}), kept beside the body
-- for reactions (the audit trail reads it); webhook receivers never see it.
ALTER TABLE events ADD COLUMN IF NOT EXISTS origin jsonb;
