import Handlebars from 'handlebars';
import { Value } from '@sinclair/typebox/value';
import type { Static } from '@sinclair/typebox';
import { checkCurrency, errors, fromMinor, iso, listPage, rowOr404, SvcError, toMinor, type Ctx, type Row } from '../../core/sdk';
import { htmlToPdf } from '../browser/public';
import { INVOICE_SHEET, invoiceOfOrder, invoicePdf, issuer, orderSheet, type Sheet, type SheetContent } from '../invoices/public';
import { storeMedia } from '../media/public';
import { SheetData, type DocumentCreate, type DocumentQuery } from './schemas';

type Template = Static<typeof DocumentCreate>['template'];

const SHEETS: Record<Exclude<Template, 'custom'>, Sheet> = {
  invoice: INVOICE_SHEET,
  quote: { title: 'QUOTE', prices: true, party: 'Prepared for', due: 'Valid until', payable: false },
  packing_slip: { title: 'PACKING SLIP', prices: false, party: 'Ship to', due: 'Ship by', payable: false },
};
const PREFIX = { quote: 'Q-', packing_slip: 'PS-', invoice: '' } as const;

/** One isolated Handlebars (no helper registered elsewhere leaks in); output HTML-escaped. */
const hb = Handlebars.create();

/** A document row as the API shows it; `link` is its media asset's URL (null once deleted). */
function present(r: Row, link: { url: string | null; url_expires_at: string | null }) {
  return {
    object: 'document' as const,
    id: r.id as string,
    template: r.template as Template,
    number: (r.number as string | null) ?? null,
    order_id: (r.order_id as string | null) ?? null,
    media_id: r.media_id as string,
    filename: r.filename as string,
    content_type: 'application/pdf' as const,
    size: Number(r.size),
    url: link.url,
    url_expires_at: link.url_expires_at,
    created_at: iso(r.created_at),
  };
}

/** A fresh signed URL of the document's PDF, through media (run as documents, which requires it). */
async function linkOf(ctx: Ctx, mediaId: string, expiresIn?: number) {
  try {
    const m = await ctx.call('media.get_media', { id: mediaId, ...(expiresIn ? { expires_in: expiresIn } : {}) });
    return { url: m.url as string, url_expires_at: (m.url_expires_at as string | null) ?? null };
  } catch (err) {
    if (err instanceof SvcError && err.code === 'resource_missing') return { url: null, url_expires_at: null };
    throw err;
  }
}

/** `data` checked against what the drawn templates read (400 naming the field). */
function sheetData(data: Record<string, unknown>): Static<typeof SheetData> {
  const first = Value.Errors(SheetData, data).First();
  if (first) {
    const path = first.path.split('/').filter(Boolean).join('.');
    throw errors.validation(`data${path ? `.${path}` : ''}: ${first.message}.`, `data${path ? `.${path}` : ''}`);
  }
  return data as Static<typeof SheetData>;
}

/** A sheet drawn from `data`: amounts exact in minor units, the total the sum of the lines. */
function fromData(ctx: Ctx, d: Static<typeof SheetData>, currencyDefault: string, number: string, needPrices: boolean): SheetContent {
  const currency = d.currency ? checkCurrency(d.currency, 'data.currency') : currencyDefault;
  const lines = d.lines.map((l, n) => {
    if (needPrices && l.unit_price === undefined) throw errors.validation(`data.lines.${n}.unit_price is required.`, `data.lines.${n}.unit_price`);
    const unit = toMinor(l.unit_price ?? 0, currency, `data.lines.${n}.unit_price`);
    return { description: l.description, quantity: l.quantity, unit, amount: unit * l.quantity };
  });
  const total = lines.reduce((s, l) => s + l.amount, 0);
  const c = d.customer ?? {};
  return {
    number: d.number ?? number,
    status: 'open',
    created_at: iso(ctx.clock.now()),
    due_at: d.due_date ? `${d.due_date}T00:00:00.000Z` : null,
    paid_at: null,
    bill_to: { name: c.name ?? c.address?.name ?? null, email: c.email ?? null, address: c.address ?? null },
    currency,
    lines: lines.map((l) => ({
      description: l.description,
      quantity: l.quantity,
      unit_price: fromMinor(l.unit, currency),
      amount: fromMinor(l.amount, currency),
    })),
    subtotal: fromMinor(total, currency),
    discounts: [],
    tax_lines: [],
    prices_include_tax: false,
    total: fromMinor(total, currency),
    amount_due: fromMinor(total, currency),
    memo: d.memo ?? null,
  };
}

/** The PDF of a drawn template, and its number. */
async function drawn(ctx: Ctx, template: Exclude<Template, 'custom'>, i: Static<typeof DocumentCreate>, id: string) {
  const store = await issuer(ctx);
  let content: SheetContent;
  if (i.order_id) {
    const order = await ctx.call('orders.get_order', { id: i.order_id }, { notFoundParam: 'order_id' });
    if (template === 'invoice') {
      // An order's invoice is its one invoice: the one it has, else the one made now (create_invoice).
      content = (await invoiceOfOrder(ctx, order.id)) ?? (await ctx.call('invoices.create_invoice', { order_id: order.id }));
    } else {
      content = await orderSheet(ctx, order.id, `${PREFIX[template]}${order.order_number}`);
      // A packing slip goes where the parcel goes.
      if (template === 'packing_slip' && order.shipping_address)
        content.bill_to = { ...content.bill_to, name: order.shipping_address.name ?? content.bill_to.name, address: order.shipping_address };
    }
  } else {
    const d = sheetData(i.data!);
    content = fromData(ctx, d, store.settings.currency, `${PREFIX[template] || 'D-'}${id.slice(0, 8).toUpperCase()}`, template !== 'packing_slip');
  }
  return { bytes: await invoicePdf(content, store, SHEETS[template]), number: content.number };
}

/** custom: the Handlebars HTML with `data` (plus `store`, and `order` with order_id), printed by Chromium. */
async function custom(ctx: Ctx, i: Static<typeof DocumentCreate>) {
  let render: HandlebarsTemplateDelegate;
  try {
    hb.parse(i.html!);
    render = hb.compile(i.html!, { strict: false });
  } catch (e) {
    throw errors.validation(`html is not a Handlebars template: ${(e as Error).message.split('\n')[0]}`, 'html');
  }
  const order = i.order_id ? await ctx.call('orders.get_order', { id: i.order_id }, { notFoundParam: 'order_id' }) : undefined;
  const store = await issuer(ctx);
  let html: string;
  try {
    html = render({ ...(i.data ?? {}), store, ...(order ? { order } : {}) });
  } catch (e) {
    throw errors.validation(`html could not be rendered with data: ${(e as Error).message.split('\n')[0]}`, 'html');
  }
  return { bytes: await htmlToPdf(ctx, html, { landscape: i.landscape }), number: null };
}

export async function generateDocument(ctx: Ctx, i: Static<typeof DocumentCreate>) {
  const t = i.template;
  if (t === 'custom') {
    if (!i.html) throw errors.validation('custom needs html: the Handlebars template of the page to print.', 'html');
  } else {
    if (!i.order_id === !i.data) throw errors.validation(`${t} draws an order (order_id) or your data (data): give one of them.`, 'order_id');
  }
  const id = crypto.randomUUID();
  const { bytes, number } = t === 'custom' ? await custom(ctx, i) : await drawn(ctx, t, i, id);
  const filename = i.filename ?? `${t.replace('_', '-')}${number ? `-${number}` : ''}.pdf`;
  const media = await storeMedia(ctx, { bytes, filename: filename.endsWith('.pdf') ? filename : `${filename}.pdf`, visibility: 'private' });
  const [r] = await ctx.db.query(
    `INSERT INTO documents (id, store_id, template, number, order_id, media_id, filename, size, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [id, ctx.store.id, t, number, i.order_id ?? null, media.id, media.filename, media.size, ctx.clock.now()],
  );
  return present(r, i.expires_in ? await linkOf(ctx, media.id, i.expires_in) : media);
}

export async function getDocument(ctx: Ctx, id: string, expiresIn?: number) {
  const r = await rowOr404(ctx.db, { table: 'documents', storeId: ctx.store.id, id, noun: 'document' });
  return present(r, await linkOf(ctx, r.media_id, expiresIn));
}

export const listDocuments = (ctx: Ctx, input: Static<typeof DocumentQuery>) =>
  listPage(
    ctx,
    { table: 'documents', path: '/documents', input, filters: { 'template = $': input.template, 'order_id = $': input.order_id } },
    async (rows) => {
      const out = [];
      for (const r of rows) out.push(present(r, await linkOf(ctx, r.media_id)));
      return out;
    },
  );
