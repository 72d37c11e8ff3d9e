-- get_summary's themes (issue 47): the phrases the model found in a product's latest approved
-- reviews, kept until that set of reviews changes (fingerprint), so a summary read asks the
-- model only when there is something new to read.
CREATE TABLE IF NOT EXISTS review_themes (
  store_id uuid NOT NULL REFERENCES stores(id),
  product_id uuid NOT NULL,
  fingerprint text NOT NULL,
  themes jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (store_id, product_id)
);
