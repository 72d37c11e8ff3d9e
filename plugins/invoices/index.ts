import { Type } from '@sinclair/typebox';
import { action, conflict, definePlugin, noExample, type ActionsOf, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_invoices.sql' with { type: 'text' };
import { Invoice, InvoiceCreate, InvoiceId, InvoiceList, InvoiceQuery, InvoiceSend } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { pdfResponse, sendInvoice } = onFirstCall(() => import('./send'));
const { createInvoice, getInvoice, listInvoices, markPaid } = onFirstCall(() => import('./store'));

/** SPEC 4.10 `invoices`: numbered invoices of orders or free lines, their PDF, mailed through email. */
const invoices = definePlugin({
  name: 'invoices',
  category: 'commerce',
  description:
    "Invoices of orders (one each) or of free lines for a customer: gapless numbers with the store's prefix, a PDF, mailed with it attached; open until paid.",
  resource: 'invoice',
  catalog: true,
  // SPEC 5.4: commerce, commerce:read, commerce:write.
  scopes: { read: ['commerce', 'commerce:read', 'commerce:write'], write: ['commerce', 'commerce:write'] },
  tables: ['invoices', 'invoice_counters'],
  // orders (get_order) and customers (the bill-to) through ctx.call; store's settings (prefix, address) and email's (SMTP_URL) from their public.ts.
  requires: ['orders', 'customers', 'store', 'email'],
  events: { 'invoice.created': Invoice, 'invoice.paid': Invoice, 'invoice.sent': Invoice },
  errors: { invoice_exists: conflict('This order already has an invoice (one per order).') },
  migrations: [{ id: 'invoices/001_invoices', sql: migration001 }],
  actions: {
    list_invoices: action({
      kind: 'read',
      description: 'List invoices, newest first; filter by status (open, paid), order_id or customer_id.',
      input: InvoiceQuery,
      output: InvoiceList,
      rest: { method: 'GET', path: '/invoices' },
      handler: listInvoices,
    }),
    get_invoice: action({
      kind: 'read',
      description: 'Fetch one invoice: number, bill-to, lines, subtotal, discounts, tax per rate, total, amount due.',
      input: InvoiceId,
      output: Invoice,
      rest: { method: 'GET', path: '/invoices/:id' },
      handler: (ctx, { id }) => getInvoice(ctx, id),
    }),
    create_invoice: action({
      kind: 'write',
      description:
        'Create an invoice from an order (order_id; one per order, a second is 409 invoice_exists; a paid order gives a paid invoice) or from free lines [{description, quantity, unit_price}] with customer_id. Numbered INV-000001 on.',
      input: InvoiceCreate,
      output: Invoice,
      rest: { method: 'POST', path: '/invoices', status: 201 },
      emits: ['invoice.created'],
      errors: ['invoice_exists'],
      example: async ({ make }) => ({
        customer_id: (await make('customers.create_customer')).id,
        lines: [{ description: 'Consulting, 2 hours', quantity: 2, unit_price: 80 }],
      }),
      handler: createInvoice,
    }),
    mark_paid: action({
      kind: 'write',
      description: 'Record that an open invoice was paid; calling it again answers the invoice with the same paid_at.',
      input: InvoiceId,
      output: Invoice,
      rest: { method: 'POST', path: '/invoices/:id/mark_paid' },
      emits: ['invoice.paid'],
      handler: (ctx, { id }) => markPaid(ctx, id),
    }),
    send: action({
      kind: 'write',
      description: "Mail the invoice with its PDF attached (to the billed email, or `to`). Needs the server's SMTP_URL.",
      input: InvoiceSend,
      output: Invoice,
      rest: { method: 'POST', path: '/invoices/:id/send' },
      emits: ['invoice.sent'],
      errors: ['provider_not_configured'],
      example: noExample('needs SMTP_URL, a relay (plugins/invoices/invoices.test.ts sends through a local one)'),
      handler: (ctx, { id, to }) => sendInvoice(ctx, id, to),
    }),
    get_invoice_pdf: action({
      kind: 'read',
      description: 'The invoice as a PDF; tool callers get a signed link to it.',
      input: InvoiceId,
      output: Type.Object({}, { description: 'The PDF (application/pdf).' }),
      rest: { method: 'GET', path: '/invoices/:id/pdf', response: 'raw', contentType: 'application/pdf', asTool: 'link' },
      handler: (ctx, { id }) => pdfResponse(ctx, id),
    }),
  },
});
export default invoices;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'invoices', typeof invoices> {}
}
