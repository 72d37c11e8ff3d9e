import type { PDFFont, PDFPage } from 'pdf-lib';
import { decimalsOf, lazy } from '../../core/sdk';
import type { StoreSettings } from '../store/public';
import type { InvoiceOut } from './store';

// Loaded at the first PDF drawn (docs/footprint.md: libraries load on first use).
const pdfLib = lazy(() => require('pdf-lib') as typeof import('pdf-lib'));

/** What a sheet drawn here is called and shows: an invoice, or (documents) a quote or a packing slip. */
export interface Sheet {
  title: string;
  /** Unit prices, amounts and totals; a packing slip shows quantities only. */
  prices: boolean;
  /** The heading of the customer's block. */
  party: string;
  /** The label of `due_at`. */
  due: string;
  /** The amount-due row and the status line (an invoice's; a quote has neither). */
  payable: boolean;
}
export const INVOICE_SHEET: Sheet = { title: 'INVOICE', prices: true, party: 'Bill to', due: 'Due', payable: true };

/** The fields of an invoice a sheet draws. */
export type SheetContent = Pick<
  InvoiceOut,
  | 'number'
  | 'status'
  | 'created_at'
  | 'due_at'
  | 'paid_at'
  | 'bill_to'
  | 'currency'
  | 'lines'
  | 'subtotal'
  | 'discounts'
  | 'tax_lines'
  | 'prices_include_tax'
  | 'total'
  | 'amount_due'
  | 'memo'
>;

/**
 * The invoice (or another sheet of the same shape) as a one-or-more-page A4 PDF. pdf-lib's standard fonts (Helvetica) are metrics
 * only, built into the package, so nothing is read from disk and the compiled binary draws them
 * too; they encode WinAnsi, so other characters print as '?'.
 */
export async function invoicePdf(
  inv: SheetContent,
  store: { name: string; settings: StoreSettings },
  sheet: Sheet = INVOICE_SHEET,
): Promise<Uint8Array> {
  const { PDFDocument, StandardFonts } = pdfLib();
  const doc = await PDFDocument.create();
  doc.setTitle(`${sheet.title[0]}${sheet.title.slice(1).toLowerCase()} ${inv.number}`);
  doc.setProducer('svc');
  doc.setCreationDate(new Date(inv.created_at));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const W = 595.28;
  const H = 841.89;
  const M = 50;
  let page = doc.addPage([W, H]);
  let y = H - M;
  const money = (n: number) => `${n.toFixed(decimalsOf(inv.currency))} ${inv.currency}`;

  const text = (s: string, x: number, f: PDFFont = font, size = 10, p: PDFPage = page) => p.drawText(winAnsi(s), { x, y, size, font: f });
  const right = (s: string, xRight: number, f: PDFFont = font, size = 10) => {
    const t = winAnsi(s);
    page.drawText(t, { x: xRight - f.widthOfTextAtSize(t, size), y, size, font: f });
  };
  const nl = (h = 14) => {
    y -= h;
    if (y < M + 40) {
      page = doc.addPage([W, H]);
      y = H - M;
    }
  };

  // Header: the store on the left, the invoice's number and dates on the right.
  text(store.name, M, bold, 16);
  right(sheet.title, W - M, bold, 16);
  nl(20);
  const a = store.settings.address;
  const storeLines = [...(a ? addressLines(a) : []), store.settings.contact_email ?? '', store.settings.website_url ?? ''].filter(Boolean);
  const meta = [
    `Number: ${inv.number}`,
    `Date: ${inv.created_at.slice(0, 10)}`,
    ...(inv.due_at ? [`${sheet.due}: ${inv.due_at.slice(0, 10)}`] : []),
    ...(inv.paid_at && sheet.payable ? [`Paid: ${inv.paid_at.slice(0, 10)}`] : []),
    ...(sheet.payable ? [`Status: ${inv.status}`] : []),
  ];
  for (let n = 0; n < Math.max(storeLines.length, meta.length); n++) {
    if (storeLines[n]) text(storeLines[n], M);
    if (meta[n]) right(meta[n], W - M);
    nl();
  }
  nl(10);
  text(sheet.party, M, bold, 11);
  nl();
  const b = inv.bill_to;
  for (const l of [b.name ?? '', ...(b.address ? addressLines(b.address) : []), b.email ?? ''].filter(Boolean)) {
    text(l, M);
    nl();
  }
  nl(10);

  // Lines: description, quantity, unit price, amount.
  const cols = { qty: 360, unit: 450, amount: W - M };
  // Without prices the quantity takes the last column.
  const qtyAt = sheet.prices ? cols.qty : cols.amount;
  text('Description', M, bold);
  right('Qty', qtyAt, bold);
  if (sheet.prices) {
    right('Unit price', cols.unit, bold);
    right('Amount', cols.amount, bold);
  }
  nl(6);
  page.drawLine({ start: { x: M, y }, end: { x: W - M, y }, thickness: 0.5, color: pdfLib().rgb(0.6, 0.6, 0.6) });
  nl(12);
  for (const l of inv.lines) {
    text(clip(l.description, font, 10, qtyAt - M - 50), M);
    right(String(l.quantity), qtyAt);
    if (sheet.prices) {
      right(money(l.unit_price), cols.unit);
      right(money(l.amount), cols.amount);
    }
    nl();
  }
  nl(6);
  if (!sheet.prices) return memoAndSave();
  page.drawLine({ start: { x: 300, y: y + 8 }, end: { x: W - M, y: y + 8 }, thickness: 0.5, color: pdfLib().rgb(0.6, 0.6, 0.6) });

  // Totals.
  const row = (label: string, value: string, f: PDFFont = font) => {
    right(label, cols.unit, f);
    right(value, cols.amount, f);
    nl();
  };
  row('Subtotal', money(inv.subtotal));
  for (const d of inv.discounts) row(`Discount ${d.code}`, `-${money(d.amount)}`);
  for (const t of inv.tax_lines) row(`${t.name} ${t.percentage}%${inv.prices_include_tax ? ' (included)' : ''}`, money(t.amount));
  row('Total', money(inv.total), bold);
  if (sheet.payable) row('Amount due', money(inv.amount_due), bold);
  return memoAndSave();

  function memoAndSave() {
    if (inv.memo) {
      nl(10);
      for (const l of wrap(inv.memo, font, 10, W - 2 * M)) {
        text(l, M);
        nl();
      }
    }
    return doc.save();
  }
}

const addressLines = (a: { line1: string; line2?: string; city: string; region?: string; postal_code?: string; country: string }) =>
  [a.line1, a.line2 ?? '', [a.postal_code, a.city, a.region].filter(Boolean).join(' '), a.country].filter(Boolean);

/** WinAnsi is what the standard fonts can draw: Latin-1 and the euro sign; the rest becomes '?'. */
function winAnsi(s: string): string {
  return s.replace(/[^\x20-\x7e\xa0-\xff€]/g, (ch) => (ch === '\n' || ch === '\t' ? ' ' : '?'));
}

function clip(s: string, f: PDFFont, size: number, width: number): string {
  let t = winAnsi(s);
  if (f.widthOfTextAtSize(t, size) <= width) return t;
  while (t.length > 1 && f.widthOfTextAtSize(`${t}...`, size) > width) t = t.slice(0, -1);
  return `${t}...`;
}

function wrap(s: string, f: PDFFont, size: number, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of winAnsi(s).split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (f.widthOfTextAtSize(next, size) > width && line) {
      out.push(line);
      line = word;
    } else line = next;
  }
  if (line) out.push(line);
  return out;
}
