import { action, definePlugin, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_documents.sql' with { type: 'text' };
import { Document, DocumentCreate, DocumentId, DocumentList, DocumentQuery } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { generateDocument, getDocument, listDocuments } = onFirstCall(() => import('./store'));

/**
 * SPEC 4.10 documents: invoices, quotes and packing slips drawn with the invoices' PDF code (no
 * browser), and custom Handlebars HTML printed by the browser plugin's Chromium; each PDF is a
 * private media asset, reached by signed URL.
 */
const documents = definePlugin({
  name: 'documents',
  category: 'content',
  catalog: true,
  description:
    'Generate PDFs: an invoice, quote or packing slip of an order (or of your data), or your own HTML template printed; list them and get a signed link to each.',
  resource: 'document',
  // SPEC 5.4: documents, documents:read, documents:write.
  scopes: { read: ['documents', 'documents:read', 'documents:write'], write: ['documents', 'documents:write'] },
  tables: ['documents'],
  // invoices' PDF code and an order's invoice, media to keep the PDF, browser to print HTML;
  // orders, customers and store are read through ctx.call as documents (an order's sheet, the issuer).
  requires: ['invoices', 'media', 'browser', 'orders', 'customers', 'store'],
  migrations: [{ id: 'documents/001_documents', sql: migration001 }],
  actions: {
    generate_document: action({
      kind: 'write',
      description:
        'Make a PDF: template invoice, quote or packing_slip of an order (order_id; invoice uses the order’s invoice, making it if it has none) or of data {customer, currency, lines: [{description, quantity, unit_price}], memo}; or custom: html (a Handlebars template, filled with data) printed by headless Chromium. Kept as a private media asset; answers a signed URL.',
      input: DocumentCreate,
      output: Document,
      rest: { method: 'POST', path: '/documents', status: 201 },
      errors: ['provider_not_configured'],
      example: {
        template: 'quote',
        data: {
          customer: { name: 'Ada Lovelace' },
          lines: [{ description: 'Linen apron', quantity: 2, unit_price: 24 }],
          memo: 'Valid for 30 days.',
        },
      },
      handler: generateDocument,
    }),
    list_documents: action({
      kind: 'read',
      description: 'List generated documents, newest first; filter by template or order_id. Each has a fresh signed URL.',
      input: DocumentQuery,
      output: DocumentList,
      rest: { method: 'GET', path: '/documents' },
      handler: listDocuments,
    }),
    get_document: action({
      kind: 'read',
      description: 'One document with a fresh signed URL of its PDF (valid expires_in seconds).',
      input: DocumentId,
      output: Document,
      rest: { method: 'GET', path: '/documents/:id' },
      handler: (ctx, { id, expires_in }) => getDocument(ctx, id, expires_in),
    }),
  },
});
export default documents;
