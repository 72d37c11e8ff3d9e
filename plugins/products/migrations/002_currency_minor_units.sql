-- Prices were kept in hundredths of the major unit whatever the currency; from now on they are in
-- the currency's own ISO 4217 minor unit (core/money.ts): yen for JPY, fils for KWD. Rows written
-- before are rescaled once; the guard makes running this text again change nothing.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM svc_migrations WHERE id = 'products/002_currency_minor_units') THEN
    UPDATE products SET price_minor = round(price_minor / 100.0), compare_at_minor = round(compare_at_minor / 100.0)
      WHERE currency IN ('BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF');
    UPDATE products SET price_minor = price_minor * 10, compare_at_minor = compare_at_minor * 10
      WHERE currency IN ('BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND');
  END IF;
END
$$;
