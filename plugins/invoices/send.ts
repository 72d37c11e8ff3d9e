import { errors, type Ctx } from '../../core/sdk';
import { emailSettings } from '../email/public';
import { invoicePdf } from './pdf';
import { invoiceRow, toInvoice } from './store';

/** The store as the PDF shows it: its name as of now (ctx.store is the credential's view) and its settings. */
export async function issuer(ctx: Ctx) {
  const s = await ctx.call('store.get_store', {});
  return { name: s.name, settings: s.settings };
}

/** The invoice's PDF for the REST route (and its signed link). */
export async function pdfResponse(ctx: Ctx, id: string): Promise<Response> {
  const inv = toInvoice(await invoiceRow(ctx, id));
  const bytes = await invoicePdf(inv, await issuer(ctx));
  return new Response(Buffer.from(bytes), {
    headers: { 'Content-Type': 'application/pdf', 'Content-Disposition': `inline; filename="${inv.number.replace(/[^\w.-]/g, '_')}.pdf"` },
  });
}

/** Mail the invoice with its PDF attached, through email's send_email (queued there, delivered by its job). */
export async function sendInvoice(ctx: Ctx, id: string, to: string | undefined) {
  const r = await invoiceRow(ctx, id, 'FOR UPDATE');
  // Ownership first (404 above), then the setting: without a relay the mail would only sit queued.
  if (!emailSettings(ctx.registry).smtp_url) throw errors.notConfigured('SMTP_URL', 'sending an invoice mails it through the SMTP relay');
  const inv = toInvoice(r);
  const recipient = to ?? inv.bill_to.email;
  if (!recipient) throw errors.validation('This invoice has no billed email: give `to`.', 'to');
  const store = await issuer(ctx);
  const settings = store.settings;
  const pdf = await invoicePdf(inv, store);
  const amount = `${inv.amount_due} ${inv.currency}`;
  await ctx.call('email.send_email', {
    to: recipient,
    subject: `Invoice ${inv.number} from ${store.name}`,
    text:
      inv.status === 'paid'
        ? `Hello,\n\nattached is invoice ${inv.number} (total ${inv.total} ${inv.currency}), paid. Thank you.\n\n${store.name}`
        : `Hello,\n\nattached is invoice ${inv.number}; the amount due is ${amount}.\n\n${store.name}`,
    ...(settings.contact_email ? { reply_to: settings.contact_email } : {}),
    attachments: [
      { filename: `${inv.number.replace(/[^\w.-]/g, '_')}.pdf`, content_type: 'application/pdf', content: Buffer.from(pdf).toString('base64') },
    ],
  });
  const now = ctx.clock.now();
  const [u] = await ctx.db.query('UPDATE invoices SET sent_at = $3, updated_at = $3 WHERE store_id = $1 AND id = $2 RETURNING *', [
    ctx.store.id,
    id,
    now,
  ]);
  const sent = toInvoice(u);
  ctx.emit('invoice.sent', sent);
  return sent;
}
