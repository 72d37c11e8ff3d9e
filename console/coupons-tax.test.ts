/**
 * The coupons and tax rates pages of the admin console in headless Chromium: a coupon created
 * from the form shows in the list with its status and use, and is deactivated; a tax rate is
 * created, edited and deleted; each step checked through the API; axe-core on both pages.
 */
import { expect } from 'bun:test';
import { axe, browserTest, shot } from '../test/kit/browser';
import { useWorlds } from '../test/kit/approvals';
import { consoleWorld, signedIn, useBrowser } from '../test/kit/console';
import { addUser } from '../test/kit/users';

useWorlds();
const browser = useBrowser();

browserTest(
  'coupons: create one (amount off, limits), see its status, deactivate it; tax rates: create, edit, delete',
  async () => {
    const w = await consoleWorld();
    const owner = await addUser(w.h, 'owner');
    // One made through the API, to show in the list beside the one the form creates.
    await w.h.call('POST', '/coupons', { code: 'SPRING10', percent_off: 10 });
    const { page, problems } = await signedIn(browser(), w.base, owner.email);

    await page.goto(`${w.base}/console#/coupons`);
    await page.waitForSelector('text=SPRING10');
    await page.getByLabel('Code').fill('WELCOME5');
    await page.getByLabel('Discount').selectOption('amount');
    await page.getByLabel('Amount').fill('5');
    await page.getByLabel('Currency').fill('usd');
    await page.getByLabel('Usage limit').fill('100');
    await page.getByLabel('Ends').fill('2099-12-31T23:59');
    await page.getByRole('button', { name: 'Create coupon' }).click();
    await page.waitForSelector('text=Coupon WELCOME5 created.');
    const made = (await w.h.call('GET', '/coupons?code=WELCOME5')).body.data[0];
    expect(made).toMatchObject({ code: 'WELCOME5', amount_off: 5, currency: 'USD', percent_off: null, usage_limit: 100, active: true });
    expect(made.ends_at.startsWith('2099-12-31') || made.ends_at.startsWith('2100-01-01')).toBe(true);
    const row = page.locator('tr', { hasText: 'WELCOME5' });
    expect(await row.innerText()).toContain('5.00 USD');
    expect(await row.innerText()).toContain('0 of 100');
    expect(await row.locator('.status').innerText()).toBe('active');
    // The API's refusal is shown, naming the field: the same code again.
    await page.getByLabel('Code').fill('welcome5');
    await page.getByLabel('Discount').selectOption('amount'); // the form was reset after the first
    await page.getByLabel('Amount').fill('5');
    await page.getByLabel('Currency').fill('USD');
    await page.getByRole('button', { name: 'Create coupon' }).click();
    expect(await page.locator('[role="alert"]').innerText()).toContain('code');
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: 'Deactivate WELCOME5' }).click();
    await page.waitForSelector('tr:has-text("WELCOME5") .status:has-text("inactive")');
    expect((await w.h.call('GET', `/coupons/${made.id}`)).body.active).toBe(false);
    await shot(page, 'coupons');

    await page.goto(`${w.base}/console#/tax-rates`);
    await page.waitForSelector('text=No tax rates yet.');
    await page.getByLabel('Name').fill('CA sales tax');
    await page.getByLabel('Country', { exact: true }).fill('us');
    await page.getByLabel('Region').fill('CA');
    await page.getByLabel('Percentage').fill('7.25');
    await page.getByRole('button', { name: 'Create rate' }).click();
    await page.waitForSelector('text=CA sales tax saved.');
    const rates = (await w.h.call('GET', '/tax/rates')).body.data;
    expect(rates).toHaveLength(1);
    expect(rates[0]).toMatchObject({ name: 'CA sales tax', country: 'US', region: 'CA', percentage: 7.25, tax_class: 'standard' });
    expect(await page.locator('tr', { hasText: 'CA sales tax' }).innerText()).toContain('7.25%');
    expect(await axe(page)).toEqual([]);

    await page.getByRole('button', { name: 'Edit CA sales tax' }).click();
    expect(await page.getByLabel('Percentage').inputValue()).toBe('7.25');
    await page.getByLabel('Percentage').fill('8.875');
    await page.getByLabel('Region').fill('');
    await page.getByRole('button', { name: 'Save rate' }).click();
    await page.waitForSelector('td:has-text("8.875%")');
    expect((await w.h.call('GET', `/tax/rates/${rates[0].id}`)).body).toMatchObject({ percentage: 8.875, region: null });
    await shot(page, 'tax-rates');

    await page.getByRole('button', { name: 'Delete CA sales tax' }).click();
    await page.waitForSelector('text=No tax rates yet.');
    expect((await w.h.call('GET', `/tax/rates/${rates[0].id}`)).status).toBe(404);
    // The only error the browser saw is the refusal provoked above.
    expect(problems).toEqual(['Failed to load resource: the server responded with a status of 409 (Conflict)']);
  },
  120_000,
);
