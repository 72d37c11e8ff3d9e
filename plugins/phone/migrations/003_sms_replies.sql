-- The sms agent's replies (issue 49): an outbound message names the inbound one it answers
-- (`reply_to`), at most one per inbound message, so a retried job sends it once; its twilio_sid is
-- set once Twilio took it. A conversation keeps the agent's conversation it continues.
ALTER TABLE phone_messages ADD COLUMN IF NOT EXISTS reply_to uuid;
CREATE UNIQUE INDEX IF NOT EXISTS phone_messages_reply_to ON phone_messages (store_id, reply_to);
ALTER TABLE phone_conversations ADD COLUMN IF NOT EXISTS agent_id uuid;
ALTER TABLE phone_conversations ADD COLUMN IF NOT EXISTS agent_conversation_id uuid;
