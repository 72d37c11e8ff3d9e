/** The UCP operations' names (ops.ts runs them): declared apart so the routes' declarations (actions.ts) need not load ops.ts. */
export const OPERATIONS = [
  'create_checkout',
  'get_checkout',
  'update_checkout',
  'complete_checkout',
  'cancel_checkout',
  'get_order',
  'search_catalog',
  'lookup_catalog',
  'get_product',
] as const;
export type Op = (typeof OPERATIONS)[number];

/** Operations that change something: they take an Idempotency-Key and run in a transaction. */
export const WRITES: ReadonlySet<Op> = new Set(['create_checkout', 'update_checkout', 'complete_checkout', 'cancel_checkout']);

/** The job that sends a UCP agent its order's current state (webhooks.ts). */
export const WEBHOOK_JOB = 'ucp_order_webhook';
