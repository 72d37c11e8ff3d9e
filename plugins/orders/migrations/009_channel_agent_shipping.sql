-- Issue 50: where an order came from (`api`, or an agentic protocol: `ucp`, `acp`), the agent that
-- placed it ({protocol, profile_url | api_key_id, name}), and the shipping it was sold with (the
-- checkout's chosen method and its price, part of the total). Older orders came through the API.
ALTER TABLE orders ADD COLUMN IF NOT EXISTS channel text NOT NULL DEFAULT 'api';
ALTER TABLE orders ADD COLUMN IF NOT EXISTS agent jsonb;
ALTER TABLE orders ADD COLUMN IF NOT EXISTS shipping_method text;
ALTER TABLE orders ADD COLUMN IF NOT EXISTS shipping_total_minor bigint NOT NULL DEFAULT 0;
