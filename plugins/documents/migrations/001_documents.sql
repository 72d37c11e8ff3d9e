-- Documents (issue 47): each a PDF kept as a private media asset; this row says what it is.
CREATE TABLE IF NOT EXISTS documents (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  template text NOT NULL CHECK (template IN ('invoice', 'packing_slip', 'quote', 'custom')),
  number text,
  order_id uuid,
  media_id uuid NOT NULL,
  filename text NOT NULL,
  size integer NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_store_seq ON documents (store_id, seq);
CREATE INDEX IF NOT EXISTS documents_store_order ON documents (store_id, order_id) WHERE order_id IS NOT NULL;
