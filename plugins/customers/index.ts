import { action, definePlugin, onFirstCall } from '../../core/sdk';
import { conflict } from '../../core/sdk';
import migration001 from './migrations/001_customers.sql' with { type: 'text' };
import migration002 from './migrations/002_erasure_search.sql' with { type: 'text' };
import { Customer, CustomerCreate, CustomerDeleted, CustomerId, CustomerList, CustomerQuery, CustomerUpdate } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { createCustomer, customerRow, eraseCustomer, listCustomers, toCustomer, updateCustomer } = onFirstCall(() => import('./store'));
const { enrichCustomer } = onFirstCall(() => import('./enrich'));

export default definePlugin({
  name: 'customers',
  category: 'commerce',
  // SPEC 5.4 accepts `crm` for the customers tool; as a bare scope it grants read and write.
  resource: 'customer',
  catalog: true,
  scopes: { read: ['customers', 'customers:read', 'crm'], write: ['customers', 'customers:write', 'crm'] },
  // customer.deleted (additive, SPEC 9.5) carries only the id: an erased customer's data is not copied into webhooks.
  events: { 'customer.created': Customer, 'customer.updated': Customer, 'customer.deleted': CustomerDeleted },
  errors: { duplicate_email: conflict('Another customer of the store has this email.') },
  // enrich_customer reads the customer's orders through orders.list_orders, as this plugin.
  calls: ['orders'],
  tables: ['customers'],
  migrations: [
    { id: 'customers/001_customers', sql: migration001 },
    { id: 'customers/002_erasure_search', sql: migration002 },
  ],
  actions: {
    list_customers: action({
      kind: 'read',
      description:
        "List the store's customers, newest first. Search with q (part of a name or email, ignoring case); email finds one address " +
        '(case-insensitive); metadata (key-value pairs that must all match) and created (gt, gte, lt, lte) narrow further. Paginate with starting_after.',
      input: CustomerQuery,
      output: CustomerList,
      rest: { method: 'GET', path: '/customers' },
      handler: listCustomers,
    }),
    get_customer: action({
      kind: 'read',
      description: 'Fetch one customer by id, with tags, metadata, addresses and the last enrichment.',
      input: CustomerId,
      output: Customer,
      rest: { method: 'GET', path: '/customers/:id' },
      handler: async (ctx, { id }) => toCustomer(await customerRow(ctx, id)),
    }),
    create_customer: action({
      kind: 'write',
      description: 'Create a customer. Only email is required; it must be unique in the store (case-insensitive).',
      input: CustomerCreate,
      output: Customer,
      rest: { method: 'POST', path: '/customers', status: 201 },
      // A new address each time: a second customer made in the same store must not be a 409.
      example: async () => ({
        email: `ada.${crypto.randomUUID().slice(0, 8)}@example.com`,
        first_name: 'Ada',
        last_name: 'Lovelace',
        tags: ['newsletter'],
      }),
      emits: ['customer.created'],
      errors: ['duplicate_email'],
      handler: createCustomer,
    }),
    update_customer: action({
      kind: 'write',
      description: "Change a customer's fields; fields left out keep their value, null clears a name or phone, metadata keys merge.",
      input: CustomerUpdate,
      output: Customer,
      rest: { method: 'PATCH', path: '/customers/:id' },
      emits: ['customer.updated'],
      errors: ['duplicate_email'],
      handler: updateCustomer,
    }),
    delete_customer: action({
      kind: 'destructive',
      description:
        'Erase a customer (GDPR/CCPA right to erasure): name, email, phone, addresses, tags, metadata and enrichment are scrubbed ' +
        'for good, also in earlier copies (webhook event payloads, the tool-call audit log, idempotent replays, agent conversations), ' +
        'and the customer disappears from lists and lookups; their orders stay, pointing at the erased id. Cannot be undone.',
      input: CustomerId,
      output: CustomerDeleted,
      rest: { method: 'DELETE', path: '/customers/:id' },
      emits: ['customer.deleted'],
      handler: (ctx, { id }) => eraseCustomer(ctx, id),
    }),
    enrich_customer: action({
      kind: 'write',
      description:
        "Recompute a customer's order statistics (count, total spent, average order value, first and last order; cancelled orders excluded) " +
        "and segment hints (prospect, new, repeat, vip, lapsed) from this store's orders, store them on the customer and return it. " +
        'Uses no outside data provider.',
      input: CustomerId,
      output: Customer,
      rest: { method: 'POST', path: '/customers/:id/enrich' },
      emits: ['customer.updated'],
      handler: (ctx, { id }) => enrichCustomer(ctx, id),
    }),
  },
});
