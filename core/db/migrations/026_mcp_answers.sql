-- A client's answer to a request svc sent it mid-call (elicitation/create, sampling/createMessage)
-- that reached another api process than the one waiting for it (issue 51: no sticky sessions).
-- The receiving process writes it here and announces its id (LISTEN/NOTIFY, whose payload is too
-- small for a whole answer); the waiting process takes it (DELETE ... RETURNING). Rows nobody took
-- (the call ended, its process died) are removed by the next write after an hour.
CREATE TABLE IF NOT EXISTS mcp_answers (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  session_id text NOT NULL,
  message text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS mcp_answers_created ON mcp_answers (created_at);
