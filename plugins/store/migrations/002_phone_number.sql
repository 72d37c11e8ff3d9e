-- The store's own Twilio number (issue 49): calls and SMS replies go out from it instead of the
-- instance's TWILIO_PHONE_NUMBER; null uses that one.
ALTER TABLE store_settings ADD COLUMN IF NOT EXISTS phone_number text;
