// What other plugins (documents) may use: HTML printed to PDF by the browser, under the browser's
// own settings (SVC_CHROMIUM_PATH, its timeouts) and its egress guard.
import { metered, type Ctx } from '../../core/sdk';
import { navigate, printPdf } from './pages';
import { chromiumPath, settingsOf, withScratchPage } from './sessions';

/** Where a printed document is said to live: a name that resolves nowhere, so its relative links load nothing. */
const DOCUMENT_URL = 'https://document.svc.invalid/';

/**
 * `html` printed to an A4 PDF (a CSS `@page` size wins) in a throwaway browser context: the page
 * runs no script, and each image or stylesheet it names is fetched through the egress guard (or
 * left out). 400 provider_not_configured naming SVC_CHROMIUM_PATH when it is unset; metered as
 * one chromium page at the caller's store.
 */
export async function htmlToPdf(ctx: Ctx, html: string, opts: { landscape?: boolean } = {}): Promise<Uint8Array> {
  const s = settingsOf(ctx);
  chromiumPath(s);
  const limits = { timeoutMs: s.timeout_s * 1000, maxBytes: s.max_resource_bytes, signal: ctx.shutdown, width: 1280, height: 800 };
  const meter = { db: ctx.db, clock: ctx.clock, storeId: ctx.store.id, prices: (s as { provider_prices?: string }).provider_prices };
  return metered(meter, 'chromium', 'headless', async () => ({
    value: await withScratchPage(s, limits, async (b, page) => {
      page.guard.serve = { url: DOCUMENT_URL, html };
      await navigate(b, page, DOCUMENT_URL, limits);
      return printPdf(b, page, opts);
    }),
    usage: { requests: 1, pages: 1 },
  }));
}

/** Whether the browser can run here (SVC_CHROMIUM_PATH set), for a caller checking before it writes. */
export const browserConfigured = (ctx: Ctx) => !!settingsOf(ctx).chromium_path;
