/**
 * The invoices, store settings and storefront pages of the admin console in headless Chromium:
 * the PDF downloaded with the console's credential, an invoice marked paid, settings and the
 * theme saved through the API, the preview downloaded; axe-core on every page.
 */
import { expect } from 'bun:test';
import { readFileSync } from 'node:fs';
import { axe, browserTest, shot } from '../test/kit/browser';
import { useWorlds } from '../test/kit/approvals';
import { consoleWorld, signedIn, useBrowser } from '../test/kit/console';
import { addUser } from '../test/kit/users';

useWorlds();
const browser = useBrowser();

browserTest(
  'invoices: download the PDF and mark one paid; store settings saved; the theme saved and its preview downloaded',
  async () => {
    const w = await consoleWorld();
    const owner = await addUser(w.h, 'owner');
    const c = (await w.h.call('POST', '/customers', { email: 'ada@example.com', first_name: 'Ada' })).body;
    const inv = (await w.h.call('POST', '/invoices', { customer_id: c.id, lines: [{ description: 'Workshop', quantity: 1, unit_price: 50 }] })).body;
    const { page, problems } = await signedIn(browser(), w.base, owner.email);

    await page.goto(`${w.base}/console#/invoices`);
    await page.waitForSelector(`text=${inv.number}`);
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'PDF' }).click()]);
    expect(file.suggestedFilename()).toBe(`${inv.number}.pdf`);
    expect(
      readFileSync((await file.path())!)
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: 'Mark paid' }).click();
    await page.waitForSelector('.status:has-text("paid")');
    expect((await w.h.call('GET', `/invoices/${inv.id}`)).body.status).toBe('paid');
    await shot(page, 'invoices');

    await page.goto(`${w.base}/console#/store`);
    await page.getByLabel('Invoice prefix').fill('ACME-');
    await page.getByLabel('City').fill('Berlin');
    await page.getByLabel('Street').fill('Hauptstr. 1');
    await page.getByLabel('Country').fill('DE');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForSelector('text=Saved.');
    expect((await w.h.call('GET', '/store')).body.settings).toMatchObject({ invoice_prefix: 'ACME-', address: { city: 'Berlin', country: 'DE' } });
    expect(await axe(page)).toEqual([]);

    await page.goto(`${w.base}/console#/storefront`);
    await page.getByLabel('Hero title').fill('<b>Spring</b> sale');
    await page.getByLabel('Layout').selectOption('minimal');
    await page.getByRole('button', { name: 'Save theme' }).click();
    await page.waitForSelector('text=Saved.');
    expect((await w.h.call('GET', '/storefront')).body.theme).toMatchObject({ hero_title: '<b>Spring</b> sale', layout: 'minimal' });
    // The sample shows the title as text.
    expect(await page.locator('section[aria-label="Theme sample"] h2').innerText()).toBe('<b>Spring</b> sale');
    const [preview] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download preview' }).click()]);
    expect(readFileSync((await preview.path())!, 'utf8')).toContain('&lt;b&gt;Spring&lt;/b&gt; sale');
    expect(await axe(page)).toEqual([]);
    await shot(page, 'storefront');
    expect(problems).toEqual([]);
  },
  120_000,
);

browserTest(
  "agentic commerce: UCP's signing keys listed and rotated from the page",
  async () => {
    const w = await consoleWorld();
    const owner = await addUser(w.h, 'owner');
    expect((await w.h.call('PATCH', '/agentic', { ucp: { enabled: true } })).status).toBe(200);
    const { page, problems } = await signedIn(browser(), w.base, owner.email);
    await page.goto(`${w.base}/console#/agentic`);
    await page.waitForSelector('td:has-text("svc-1 (signing)")');
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: 'Rotate the signing key' }).click();
    await page.waitForSelector('td:has-text("svc-2 (signing)")');
    // The old key is still listed, now with the end of its grace period.
    expect(await page.locator('tr:has(td:has-text("svc-1")) td').last().innerText()).not.toBe('no end');
    expect((await w.h.call('GET', '/agentic/ucp/signing-keys')).body.data.map((k: any) => k.kid)).toEqual(['svc-2', 'svc-1']);
    await shot(page, 'agentic');
    expect(problems).toEqual([]);
  },
  120_000,
);
