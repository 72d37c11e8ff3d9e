/**
 * The commerce pages of issue 46 in headless Chromium: review moderation (approve, reject, answer,
 * a viewer without buttons) and fulfilment on the order page (ship part, then the rest with
 * tracking); axe-core on each.
 */
import { expect } from 'bun:test';
import { axe, browserTest, shot } from '../test/kit/browser';
import { useWorlds } from '../test/kit/approvals';
import { consoleWorld, signedIn, useBrowser } from '../test/kit/console';
import { addUser } from '../test/kit/users';
import { product } from '../test/kit/setup';

useWorlds();
const browser = useBrowser();

browserTest('reviews: pending reviews are approved, rejected and answered from the console; a viewer sees no moderation buttons', async () => {
  const w = await consoleWorld();
  const owner = await addUser(w.h, 'owner');
  const viewer = await addUser(w.h, 'viewer');
  const p = (await w.h.call('POST', '/products', product())).body.id;
  const good = (await w.h.call('POST', '/reviews', { product_id: p, rating: 5, body: 'Lovely mug.', author_name: 'Ada' })).body;
  const bad = (await w.h.call('POST', '/reviews', { product_id: p, rating: 1, body: 'Spam spam.', author_name: 'Bot' })).body;
  const { page, problems } = await signedIn(browser(), w.base, owner.email);
  await page.goto(`${w.base}/console#/reviews`);
  await page.waitForSelector('text=Lovely mug.');
  await shot(page, 'reviews');
  expect(await axe(page)).toEqual([]);
  await page.getByRole('button', { name: 'Approve review by Ada' }).click();
  await page.locator('text=Lovely mug.').waitFor({ state: 'detached' }); // pending only: it left the list
  await page.getByRole('button', { name: 'Reject review by Bot' }).click();
  await page.waitForSelector('text=No reviews.');
  expect((await w.h.call('GET', `/reviews/${good.id}`)).body.status).toBe('approved');
  expect((await w.h.call('GET', `/reviews/${bad.id}`)).body.status).toBe('rejected');
  await page.getByLabel('Status').selectOption('approved');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByRole('button', { name: 'Answer review by Ada' }).click();
  await page.getByLabel('Public answer').fill('Thank you, Ada!');
  await page.getByRole('button', { name: 'Publish answer' }).click();
  await page.waitForSelector('text=Answer: Thank you, Ada!');
  expect((await w.h.call('GET', `/reviews/${good.id}`)).body.response.body).toBe('Thank you, Ada!');
  expect(await axe(page)).toEqual([]);
  expect(problems).toEqual([]);

  await w.h.call('POST', '/reviews', { product_id: p, rating: 4, body: 'Fine.', author_name: 'Cy' });
  const seen = await signedIn(browser(), w.base, viewer.email);
  await seen.page.goto(`${w.base}/console#/reviews`);
  await seen.page.waitForSelector('text=Fine.');
  expect(await seen.page.getByRole('button', { name: /Approve|Reject|Answer/ }).count()).toBe(0);
});

browserTest('the order page ships part of a paid order, then the rest with tracking, and shows the shipments', async () => {
  const w = await consoleWorld();
  const owner = await addUser(w.h, 'owner');
  const p = (await w.h.call('POST', '/products', product({ name: 'Mug', stock_quantity: 10 }))).body.id;
  const o = (await w.h.call('POST', '/orders', { line_items: [{ product_id: p, quantity: 3 }], status: 'paid' })).body;
  const { page, problems } = await signedIn(browser(), w.base, owner.email);
  await page.goto(`${w.base}/console#/orders/${o.id}`);
  await page.getByLabel('Units of Mug to ship (3 left)').fill('1');
  await page.getByRole('button', { name: 'Ship units' }).click();
  await page.waitForSelector('text=partially fulfilled');
  await shot(page, 'order-fulfilment');
  expect(await axe(page)).toEqual([]);
  await page.getByLabel('Carrier').fill('UPS');
  await page.getByLabel('Tracking number').fill('1Z999');
  await page.getByLabel('Tracking URL').fill('https://ups.example/1Z999');
  await page.getByRole('button', { name: 'Ship units' }).click();
  await page.waitForSelector('.facts .status:has-text("fulfilled")');
  await page.waitForSelector('a:has-text("1Z999")');
  const after = (await w.h.call('GET', `/orders/${o.id}`)).body;
  expect(after).toMatchObject({ status: 'fulfilled', fulfillment_status: 'fulfilled' });
  expect(after.fulfillments.map((f: any) => [f.line_items[0].quantity, f.carrier, f.tracking_number])).toEqual([
    [1, null, null],
    [2, 'UPS', '1Z999'],
  ]);
  expect(await page.getByRole('button', { name: 'Ship units' }).count()).toBe(0);
  expect(await axe(page)).toEqual([]);
  expect(problems).toEqual([]);
});
