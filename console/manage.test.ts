/**
 * The admin console's custom tools, agents and webhooks pages in headless Chromium (issue 27): a
 * JavaScript tool made, test-run and given a secret that never comes back; an HTTP tool; an agent
 * made and edited with the custom tool picked and an approval override; a webhook
 * endpoint whose failed deliveries show each attempt's request and response, resent one by one and
 * replayed together. axe-core on each page, at desktop width and at 390 px.
 */
import { expect } from 'bun:test';
import { axe, browserTest, overflowX, PHONE, shot } from '../test/kit/browser';
import { stops, useWorlds } from '../test/kit/approvals';
import { consoleWorld, signedIn, useBrowser } from '../test/kit/console';
import { addUser } from '../test/kit/users';
import { deliveryIds, placeOrder, run } from '../test/kit/webhooks';
import { startReceiver } from '../test/kit/webhook-receiver';
import { RETRY_DELAYS_S } from '../workers/webhook-state';

useWorlds();
const browser = useBrowser();

browserTest(
  'custom tools: make a JavaScript tool, test-run it, set a secret that is never shown again; make an HTTP tool; an agent picks the custom tool',
  async () => {
    const w = await consoleWorld();
    const owner = await addUser(w.h, 'owner');
    const { context, page, problems } = await signedIn(browser(), w.base, owner.email);
    await page.goto(`${w.base}/console#/custom-tools`);
    await page.getByRole('link', { name: 'New tool' }).click();
    await page.getByLabel('Name').fill('order_stock');
    await page.getByLabel('Description').fill('Order stock from the supplier.');
    await page.getByLabel(/^Code/).fill('return { ordered: params.quantity * 2 };');
    await page.getByRole('button', { name: 'Create tool' }).click();
    await page.waitForSelector('h1:has-text("Tool: order_stock")');
    await page.waitForSelector('text=Saved.'); // the new tool's page, the notice kept

    // The test run runs the saved code in the sandbox and shows its answer.
    await page.getByLabel('Input', { exact: true }).fill('{"quantity": 21}');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('pre.json', { hasText: '"ordered": 42' }).waitFor();

    // Secrets: the name is listed once saved, the value is in neither the page nor the API.
    await page.getByLabel('Secret 1 name').fill('SUPPLIER_TOKEN');
    await page.getByLabel('Secret 1 value').fill('s3cret-value-7');
    await page.getByRole('button', { name: 'Save secrets' }).click();
    await page.waitForSelector('text=Set now: SUPPLIER_TOKEN.');
    expect(await page.getByLabel('Secret 1 value').inputValue()).toBe('');
    expect(await page.content()).not.toContain('s3cret-value-7');
    const listed = (await w.h.call('GET', '/tools')).body.data.find((t: any) => t.name === 'order_stock');
    expect(listed.secret_names).toEqual(['SUPPLIER_TOKEN']);
    expect(JSON.stringify(listed)).not.toContain('s3cret-value-7');
    await shot(page, 'custom-tool-edit');
    expect(await axe(page)).toEqual([]);

    // The other kind: an HTTP tool, its URL and headers kept.
    await page.goto(`${w.base}/console#/custom-tools/new`);
    await page.waitForSelector('h1:has-text("New custom tool")');
    // A blank form, nothing of the tool open before.
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('');
    expect(await page.getByRole('heading', { name: 'Secrets' }).count()).toBe(0);
    await page.getByLabel('Kind').selectOption('http');
    await page.getByLabel('Name', { exact: true }).fill('check_supplier');
    await page.getByLabel('Description').fill('Ask the supplier for stock.');
    await page.getByLabel('URL').fill('https://supplier.example.com/stock');
    await page.getByLabel(/^Headers/).fill('{"Authorization": "Bearer {{SUPPLIER_TOKEN}}"}');
    await page.getByRole('button', { name: 'Create tool' }).click();
    await page.waitForSelector('h1:has-text("Tool: check_supplier")');
    const http = (await w.h.call('GET', '/tools')).body.data.find((t: any) => t.name === 'check_supplier');
    expect(http).toMatchObject({
      execution_type: 'http',
      execution_config: { url: 'https://supplier.example.com/stock', headers: { Authorization: 'Bearer {{SUPPLIER_TOKEN}}' } },
    });
    await page.goto(`${w.base}/console#/custom-tools`);
    await page.locator('tr', { hasText: 'check_supplier' }).waitFor();
    await shot(page, 'custom-tools');
    expect(await axe(page)).toEqual([]);

    // An agent made in the console: the picker offers the store's custom tools beside the built-in ones.
    await page.goto(`${w.base}/console#/agents/new`);
    await page.getByLabel('Name', { exact: true }).fill('Buyer');
    await page.getByLabel('System prompt').fill('Keep the shelves full.');
    await page.getByLabel('webchat').check();
    await page.getByLabel('inventory', { exact: true }).check();
    await page.getByLabel('order_stock (custom)').check();
    // Approval per chosen tool: every call of the custom tool, and one action of inventory.
    await page.getByLabel('order_stock: needs approval').selectOption({ label: 'every action' });
    await page.getByLabel('inventory: needs approval').selectOption({ label: 'the actions ticked' });
    await page.getByLabel('transfer_stock').check();
    // The rules are written in the overrides' JSON, where the other settings go.
    expect(JSON.parse(await page.getByLabel('Approval overrides (tool_overrides, JSON)').inputValue())).toEqual({
      order_stock: { requires_approval: true },
      inventory: { requires_approval: ['transfer_stock'] },
    });
    await shot(page, 'agent-approval-rules');
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.waitForSelector('h1:has-text("Agent: Buyer")');
    await page.waitForSelector('text=Saved.');
    const made = (await w.h.call('GET', '/agents')).body.data.find((a: any) => a.name === 'Buyer');
    expect(made).toMatchObject({ system_prompt: 'Keep the shelves full.', channels: ['api', 'webchat'] });
    expect([...made.tools].sort()).toEqual(['inventory', 'order_stock']);
    expect((await w.h.call('GET', `/agents/${made.id}/tool-config`)).body.tool_overrides).toEqual({
      order_stock: { requires_approval: true },
      inventory: { requires_approval: ['transfer_stock'] },
    });
    // The rules read back as saved.
    expect(await page.getByLabel('inventory: needs approval').inputValue()).toBe('some');
    expect(await page.getByLabel('transfer_stock').isChecked()).toBe(true);
    // Edited: a new name, one tool fewer.
    await page.getByLabel('Name', { exact: true }).fill('Stock buyer');
    await page.getByLabel('inventory', { exact: true }).uncheck();
    // And the custom tool's rule taken back: the tool's own setting applies again.
    await page.getByLabel('order_stock: needs approval').selectOption({ label: 'as the tool is set' });
    await page.getByRole('button', { name: 'Save agent' }).click();
    await page.waitForSelector('h1:has-text("Agent: Stock buyer")');
    for (let i = 0; i < 50 && (await w.h.call('GET', `/agents/${made.id}`)).body.tools.length !== 1; i++) await Bun.sleep(50);
    expect((await w.h.call('GET', `/agents/${made.id}`)).body).toMatchObject({ name: 'Stock buyer', tools: ['order_stock'] });
    const overridesNow = async () => (await w.h.call('GET', `/agents/${made.id}/tool-config`)).body.tool_overrides;
    for (let i = 0; i < 50 && (await overridesNow()).order_stock; i++) await Bun.sleep(50);
    expect(await overridesNow()).toEqual({ inventory: { requires_approval: ['transfer_stock'] } });
    expect(problems).toEqual([]);
  },
  120_000,
);

browserTest(
  "webhooks: an endpoint's failed deliveries show each attempt's request and response; resend one, replay the rest; at 390 px",
  async () => {
    const w = await consoleWorld();
    const owner = await addUser(w.h, 'owner');
    const rx = await startReceiver(() => ({ status: 500, body: 'receiver down for maintenance' }));
    stops.push(() => rx.close());
    const { context, page, problems } = await signedIn(browser(), w.base, owner.email, PHONE);
    await page.goto(`${w.base}/console#/webhooks`);
    await page.getByLabel('URL (https)').fill(rx.url());
    await page.getByLabel('Events').fill('order.created');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await page.getByLabel('Signing secret').inputValue()).toMatch(/^whsec_/);
    await page.locator('a', { hasText: rx.url() }).waitFor();

    // Two orders; every attempt of both deliveries fails (the worker's attempts, on the spot).
    const orders = [await placeOrder(w.h), await placeOrder(w.h)];
    for (const id of await deliveryIds(w.h, 'pending')) for (let i = 0; i <= RETRY_DELAYS_S.length; i++) await run(w.h, id);
    await page.locator('a', { hasText: rx.url() }).click();
    await page.waitForSelector('.card:has-text("order.created") .status:has-text("failed")');
    const failed = page.locator('.card', { hasText: 'failed' });
    expect(await failed.count()).toBe(2);
    const first = failed.first();
    // The request: the endpoint and the exact body sent; the attempts: status and the answer's text.
    await first.getByText('Request (the same body on every attempt)').click();
    expect(await first.locator('details p.mono').textContent()).toBe(`POST ${rx.url()}`);
    const shown = JSON.parse((await first.locator('pre.json').textContent())!);
    expect(orders.map((o) => o.id)).toContain(shown.data.id);
    const sent = rx.received.find((r) => r.body?.data?.id === shown.data.id)!;
    expect(shown).toEqual(JSON.parse(sent.raw));
    const attempts = first.getByRole('region', { name: /^Attempts of order\.created/ });
    expect(await attempts.locator('tbody tr').count()).toBe(RETRY_DELAYS_S.length + 1);
    expect(await attempts.locator('tbody tr').first().textContent()).toContain('500');
    expect(await attempts.locator('tbody tr').first().textContent()).toContain('receiver down for maintenance');
    expect(await overflowX(page)).toBe(0); // the attempts table scrolls in its card, the page does not
    await shot(page, 'webhook-deliveries-phone');
    expect(await axe(page)).toEqual([]);

    // The receiver is back: resend one, then replay the other; the worker delivers both.
    rx.respond(() => 200);
    await first.getByRole('button', { name: 'Resend' }).click();
    await page.waitForSelector('text=Delivery sent again.');
    expect(await deliveryIds(w.h, 'pending')).toHaveLength(1);
    await page.getByRole('button', { name: 'Replay failed deliveries' }).click();
    await page.waitForSelector('text=Failed deliveries queued again.');
    expect(await deliveryIds(w.h, 'pending')).toHaveLength(2);
    for (const id of await deliveryIds(w.h, 'pending')) expect((await run(w.h, id)).outcome).toBe('succeeded');
    await page.reload();
    await page.waitForSelector('.card .status:has-text("succeeded")');
    expect(await page.locator('.card .status', { hasText: 'succeeded' }).count()).toBe(2);
    await page.goto(`${w.base}/console#/webhooks`);
    await page.locator('tr', { hasText: rx.url() }).waitFor();
    await shot(page, 'webhooks-phone');
    expect(await axe(page)).toEqual([]);
    expect(problems).toEqual([]);
  },
  120_000,
);
