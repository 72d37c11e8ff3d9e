-- Order amounts were kept in hundredths of the major unit whatever the currency; from now on they
-- are in the currency's own ISO 4217 minor unit (core/money.ts), as products are. Rows written
-- before are rescaled once; the guard makes running this text again change nothing.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM svc_migrations WHERE id = 'orders/002_currency_minor_units') THEN
    UPDATE order_line_items i SET unit_price_minor = round(i.unit_price_minor / 100.0), total_minor = round(i.total_minor / 100.0)
      FROM orders o WHERE o.id = i.order_id AND o.currency IN ('BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF');
    UPDATE order_line_items i SET unit_price_minor = i.unit_price_minor * 10, total_minor = i.total_minor * 10
      FROM orders o WHERE o.id = i.order_id AND o.currency IN ('BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND');
    UPDATE orders SET total_minor = round(total_minor / 100.0) WHERE currency IN ('BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF');
    UPDATE orders SET total_minor = total_minor * 10 WHERE currency IN ('BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND');
  END IF;
END
$$;
