/**
 * The admin console in headless Chromium (issue 27), against a real server on 127.0.0.1 over the
 * test database (PGlite, or PostgreSQL with DATABASE_URL): sign-in, the live approvals inbox in two
 * tabs, approve and reject, a viewer, products, API keys; axe-core on every page at 390 px and
 * at desktop width; screenshots in /tmp/console-shots for a person to look at.
 */
import { expect } from 'bun:test';
import { axe, browserTest, DESKTOP, overflowX, PHONE, shot } from '../test/kit/browser';
import { useWorlds } from '../test/kit/approvals';
import { card, consoleWorld, signedIn, useBrowser } from '../test/kit/console';
import { addUser } from '../test/kit/users';
import { CONSOLE_CSP } from './serve';
import { createStore } from '../core/keys';

useWorlds();

const browser = useBrowser();

browserTest(
  'sign in; a held call appears live in two tabs; approving in one removes it from both and the chat goes on; reject with a reason',
  async () => {
    const w = await consoleWorld();
    const owner = await addUser(w.h, 'owner');
    const { context, page, problems } = await signedIn(browser(), w.base, owner.email);
    const other = await context.newPage();
    await other.goto(`${w.base}/console#/products`);
    await other.waitForSelector('h1:has-text("Products")');

    const chat = await w.chat(w.agent.id, 'Add a lamp');
    const held = await chat.held();
    // No reload: the stream brings it to both tabs; the one not on the inbox shows it unread in its title.
    await card(page, 'products.create_product').waitFor();
    await other.waitForFunction(() => document.title.startsWith('(1) '));
    expect(await other.locator('nav .badge').textContent()).toBe('1');
    await other.goto(`${w.base}/console#/approvals`);
    await card(other, 'products.create_product').waitFor();
    expect(await card(page, 'products.create_product').textContent()).toContain('Gated Lamp');
    expect(await card(page, 'products.create_product').textContent()).toContain('Clerk');
    expect(await card(page, 'products.create_product').textContent()).toMatch(/29 min|30 min/);
    await shot(page, 'approvals-desktop');
    expect(await axe(page)).toEqual([]);

    await card(page, 'products.create_product').getByLabel('Comment (approve) or reason (reject)').fill('Looks right');
    await card(page, 'products.create_product').getByRole('button', { name: 'Approve' }).click();
    await card(page, 'products.create_product').waitFor({ state: 'detached' });
    await card(other, 'products.create_product').waitFor({ state: 'detached' });
    // The worker runs the approved call; the waiting chat gets the result and goes on.
    await w.runJobs(held.execution_id, 'run');
    expect(await chat.finished).toContain('Created the lamp.');
    expect((await w.exec(held.execution_id)).approval).toMatchObject({ decision: 'approved', comment: 'Looks right' });
    expect(await w.productCount()).toBe(1);

    const again = await w.chat(w.agent.id, 'Add another');
    const second = await again.held();
    await card(other, 'Second Lamp').waitFor();
    await card(other, 'Second Lamp').getByLabel('Comment (approve) or reason (reject)').fill('We have enough lamps');
    await card(other, 'Second Lamp').getByRole('button', { name: 'Reject' }).click();
    await card(page, 'Second Lamp').waitFor({ state: 'detached' });
    expect(await again.finished).toContain('We have enough lamps');
    expect((await w.exec(second.execution_id)).approval).toMatchObject({ decision: 'rejected', reason: 'We have enough lamps' });
    await page.waitForSelector('text=No tool call is waiting for approval.');

    // The audit log and one call's detail.
    await page.goto(`${w.base}/console#/executions`);
    await page.locator('a', { hasText: 'products.create_product' }).first().click();
    await page.waitForSelector('h2:has-text("Approval")');
    await shot(page, 'execution-detail');
    expect(await axe(page)).toEqual([]);
    await page.setViewportSize(PHONE); // long JSON lines on a phone: readable and reachable by keyboard
    expect(await overflowX(page)).toBe(0);
    expect(await axe(page)).toEqual([]);
    await page.setViewportSize(DESKTOP);
    expect(problems).toEqual([]);
    // The access token lives in the page's memory only: not in storage, cookies it can read, or the page source.
    const kept = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }));
    expect(kept).not.toContain('eyJ');
    expect(await page.content()).not.toContain('eyJ');
    expect((await context.cookies()).find((c) => c.name === 'svc_session')?.httpOnly).toBe(true);

    // First load, as README reports it: a signed-in tab opening the console until the inbox is
    // live and usable (the page parsed, the script ran, the session, token and stream answered).
    const fresh = await context.newPage();
    await fresh.goto(`${w.base}/console#/approvals`);
    await fresh.waitForSelector('.live.on');
    const load = await fresh.evaluate(() => {
      // Every script the page fetched: the entry, and the chunks of the page opened (loaded on demand).
      const scripts = performance.getEntriesByType('resource').filter((e: any) => new URL(e.name).pathname.endsWith('.js')) as any[];
      return {
        interactiveMs: performance.now(),
        jsBytes: scripts.reduce((n, e) => n + e.encodedBodySize, 0),
        files: scripts.map((e) => new URL(e.name).pathname),
      };
    });
    console.log(
      `console first load: interactive in ${Math.round(load.interactiveMs)} ms, ${load.jsBytes} bytes of compressed JavaScript in ${load.files.length} files`,
    );
    // The inbox's code came, and no other page's: a page is loaded when it is opened.
    expect(load.files.some((f) => /\/approvals-[^/]*\.js$/.test(f))).toBe(true);
    expect(load.files.filter((f) => /\/(products|codes|agents|members)-[^/]*\.js$/.test(f))).toEqual([]);
    // README reports it measured alone (about 0.2 to 0.45 s); the bound leaves room for a machine
    // shared with other test runs, and still fails a console that takes seconds to start.
    expect(load.interactiveMs).toBeLessThan(1500);
    expect(load.jsBytes).toBeLessThan(250 * 1024);
  },
  120_000,
);

browserTest(
  'a viewer sees held calls without approve buttons, and the API refuses the viewer anyway',
  async () => {
    const w = await consoleWorld();
    const viewer = await addUser(w.h, 'viewer');
    const { context, page, problems } = await signedIn(browser(), w.base, viewer.email, PHONE);
    const held = await (await w.chat(w.agent.id, 'Add a lamp')).held();
    await card(page, 'products.create_product').waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Reject' }).count()).toBe(0);
    await page.waitForSelector('text=may see held calls but not decide them');
    await shot(page, 'approvals-viewer-phone');
    expect(await axe(page)).toEqual([]);
    expect(problems).toEqual([]);
    // What the buttons would have sent, with the viewer's own token: refused.
    const answer = await page.evaluate(
      async ({ storeId, id }) => {
        const t = await (
          await fetch('/auth/console/token', {
            method: 'POST',
            headers: { 'x-svc-console': '1', 'content-type': 'application/json' },
            body: JSON.stringify({ store_id: storeId }),
          })
        ).json();
        const r = await fetch(`/v1/stores/${storeId}/tool-executions/${id}/approve`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.access_token}`, 'content-type': 'application/json' },
          body: '{}',
        });
        return { status: r.status, body: await r.json() };
      },
      { storeId: w.h.store.id, id: held.execution_id },
    );
    expect(answer.status).toBe(403);
    expect((await w.exec(held.execution_id)).status).toBe('pending_approval');
    // A viewer's navigation has no API keys page; products are read-only.
    expect(await page.locator('nav a', { hasText: 'API keys' }).count()).toBe(0);
    await page.goto(`${w.base}/console#/products`);
    await page.waitForSelector('h1:has-text("Products")');
    expect(await page.getByRole('link', { name: 'New product' }).count()).toBe(0);

    // The same person owns another store: the picker switches, and the owner's pages appear.
    const second = await createStore(w.h.db, w.h.clock, { name: 'Second shop', plan: 'pro' });
    await addUser(w.h, 'owner', { email: viewer.email, storeId: second.id });
    await page.reload();
    await page.getByLabel('Store').selectOption(second.id);
    await page.waitForSelector('nav a:has-text("API keys")', { state: 'attached' });
    await page.goto(`${w.base}/console#/store`);
    await page.waitForSelector('dd:has-text("Second shop")');
    expect(await axe(page)).toEqual([]);
  },
  120_000,
);

browserTest(
  'create a product; roll a key and the old one keeps working until its expiry; every page passes axe at 390 px',
  async () => {
    const w = await consoleWorld();
    const owner = await addUser(w.h, 'owner');
    const { context, page, problems } = await signedIn(browser(), w.base, owner.email, PHONE);
    // The phone layout: navigation behind the Menu button.
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.locator('nav a', { hasText: 'Products' }).click();
    await page.getByRole('link', { name: 'New product' }).click();
    await page.getByLabel('Name').fill('Desk <b>Lamp</b>');
    await page.getByLabel('SKU').fill('LAMP-1');
    await page.getByLabel('Price').fill('24.50');
    await page.getByLabel('Status').selectOption('active');
    await shot(page, 'product-new-phone');
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.waitForSelector('td:has-text("LAMP-1")');
    // Shown as text, never as markup.
    expect(await page.locator('td a', { hasText: 'Desk <b>Lamp</b>' }).count()).toBe(1);
    await shot(page, 'products-phone');
    expect(await axe(page)).toEqual([]);
    const list = await w.h.call('GET', '/products?q=LAMP-1');
    expect(list.body.data[0]).toMatchObject({ name: 'Desk <b>Lamp</b>', sku: 'LAMP-1', status: 'active', pricing_data: { retail: 24.5 } });
    // Search, edit, archive.
    await page.getByLabel('Search name or SKU').fill('lamp-1');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('td a', { hasText: 'Desk' }).click();
    await page.getByLabel('Price').fill('19.00');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForSelector('td:has-text("19.00")');
    await page.locator('td a', { hasText: 'Desk' }).click();
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.waitForSelector('text=No products.');
    expect((await w.h.call('GET', '/products?status=archived')).body.data[0]).toMatchObject({ sku: 'LAMP-1', pricing_data: { retail: 19 } });

    const old = await w.h.newKey(['products:read']);
    await page.goto(`${w.base}/console#/api-keys`);
    const row = page.locator('tr', { hasText: 'products:read' }).first();
    await row.waitFor();
    const shown = (await row.locator('td.mono').textContent())!.replace('…', '');
    expect(old.startsWith(shown)).toBe(true);
    await row.getByRole('button', { name: /^Roll/ }).click();
    const secret = await page.locator('.secret input').inputValue();
    expect(secret).toMatch(/^svc_test_/);
    expect(secret).not.toBe(old);
    expect(await overflowX(page)).toBe(0);
    await shot(page, 'api-keys-rolled-phone');
    expect(await axe(page)).toEqual([]);
    const products = (key: string) => w.h.call('GET', '/products', undefined, { 'x-api-key': key });
    expect((await products(secret)).status).toBe(200);
    expect((await products(old)).status).toBe(200);

    // Create a key: its secret is shown once and works; revoking it stops it at once.
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByLabel('Scopes').fill('orders:read');
    await page.getByRole('button', { name: 'Create key' }).click();
    const created = await page.locator('.secret input').inputValue();
    const orders = (key: string) => w.h.call('GET', '/orders', undefined, { 'x-api-key': key });
    expect((await orders(created)).status).toBe(200);
    expect((await products(created)).status).toBe(403); // only the scope it was made with
    const newRow = page.locator('tr').filter({ has: page.locator('td.scopes', { hasText: /^orders:read$/ }) });
    expect(created.startsWith((await newRow.locator('td.mono').textContent())!.replace('…', ''))).toBe(true);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(created); // never shown again
    await newRow.getByRole('button', { name: /^Revoke/ }).click(); // the confirm dialog is accepted
    await newRow.waitFor({ state: 'detached' });
    expect((await orders(created)).status).toBe(401);

    // A widget key: made for the shop's origin, shown once with the tag to embed, never rolled.
    await page.getByLabel('Allowed origins').fill('https://shop.example.com');
    await page.getByRole('button', { name: 'Create widget key' }).click();
    const widgetKey = await page.locator('.secret input').inputValue();
    expect(widgetKey).toMatch(/^svc_pub_/);
    const tag = await page.locator('.secret textarea').inputValue();
    expect(tag).toContain(`data-key="${widgetKey}"`);
    expect(tag).toContain(`data-store="${w.h.store.id}"`);
    expect(tag).toContain(`src="${w.base}/widget.js"`);
    const widgetRow = page.locator('tr', { hasText: 'widget: https://shop.example.com' });
    expect(await widgetRow.getByRole('button', { name: /^Roll/ }).count()).toBe(0);
    await shot(page, 'api-keys-widget-phone');
    expect(await overflowX(page)).toBe(0);
    expect(await axe(page)).toEqual([]);
    // The key opens chats from its origin alone: from there, only the unknown agent is refused.
    const chat = (origin: string) =>
      fetch(`${w.base}/v1/webchat/chat`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', origin },
        body: JSON.stringify({ key: widgetKey, agent_id: crypto.randomUUID(), visitor_id: 'v'.repeat(32), message: 'Hi' }),
      }).then(async (r) => ({ status: r.status, error: ((await r.json()) as any).error }));
    expect(await chat('https://shop.example.com')).toMatchObject({ status: 404, error: { param: 'agent_id' } });
    expect(await chat('https://elsewhere.example.com')).toMatchObject({ status: 403, error: { code: 'origin_not_allowed' } });
    await page.getByRole('button', { name: 'Done' }).click();

    // Members: invite (the link is shown once), change a role, remove someone.
    const clerk = await addUser(w.h, 'staff');
    await page.goto(`${w.base}/console#/members`);
    await page.getByLabel(`Role of ${clerk.email}`).selectOption('viewer');
    const roleOf = async () => (await w.h.call('GET', '/members')).body.data.find((m: any) => m.user_id === clerk.id)?.role;
    for (let i = 0; i < 100 && (await roleOf()) !== 'viewer'; i++) await Bun.sleep(50);
    expect(await roleOf()).toBe('viewer');
    await page.getByLabel('Email').fill('new.person@example.com');
    await page.getByRole('button', { name: 'Invite' }).click();
    expect(await page.getByLabel('Invitation link').inputValue()).toContain('/auth/invitation?token=');
    await page.getByRole('button', { name: `Remove ${clerk.email}` }).click();
    await page.locator('tr', { hasText: clerk.email }).waitFor({ state: 'detached' });

    const loaded = { executions: 'p.count', members: 'tbody tr', store: 'text=Plan' };
    for (const [p, selector] of Object.entries(loaded)) {
      await page.goto(`${w.base}/console#/${p}`);
      await page.waitForSelector(selector);
      await shot(page, `${p}-phone`);
      expect(await overflowX(page)).toBe(0);
      expect(await axe(page)).toEqual([]);
    }
    expect(problems).toEqual([]);

    // A day later (the default roll window) the old secret stops; the new one works.
    w.h.clock.advance(24 * 3600_000 + 60_000);
    await Bun.sleep(5_100); // the key cache (5 s) lets a key go no later than this
    expect((await products(old)).status).toBe(401);
    expect((await products(secret)).status).toBe(200);
  },
  120_000,
);

browserTest(
  'the agent playground streams tool_use and approval_required, and goes on once approved; agents, tools, orders, customers, webhooks pass axe',
  async () => {
    const w = await consoleWorld();
    const owner = await addUser(w.h, 'owner');
    await w.h.call('POST', '/customers', { email: 'ada@example.com', first_name: 'Ada' });
    const { context, page, problems } = await signedIn(browser(), w.base, owner.email);
    await page.goto(`${w.base}/console#/agents/${w.agent.id}`);
    await page.waitForSelector('text=Playground');
    // The form fills in once the agent is read: wait for its tools and overrides to show.
    await page.getByLabel('products', { exact: true }).and(page.locator(':checked')).waitFor();
    const overrides = page.getByLabel('Approval overrides (tool_overrides, JSON)');
    for (let i = 0; i < 50 && !(await overrides.inputValue()).includes('create_product'); i++) await page.waitForTimeout(100);
    expect(await overrides.inputValue()).toContain('create_product');
    await page.getByLabel('Message').fill('Add a lamp');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.msg.event', { hasText: 'tool_use products' }).waitFor();
    await page.locator('.msg.event', { hasText: 'approval_required products' }).waitFor();
    await shot(page, 'agent-playground');
    expect(await axe(page)).toEqual([]);
    // On a phone the call's JSON wraps inside the log instead of running out of it.
    await page.setViewportSize(PHONE);
    expect(await page.locator('.chat-log').evaluate((e) => e.scrollWidth - e.clientWidth)).toBe(0);
    await page.setViewportSize(DESKTOP);
    // Decided in another tab's inbox; the playground's chat goes on (the worker runs the call).
    const inbox = await context.newPage();
    await inbox.goto(`${w.base}/console#/approvals`);
    await card(inbox, 'products.create_product').getByRole('button', { name: 'Approve' }).click();
    await card(inbox, 'products.create_product').waitFor({ state: 'detached' });
    const [held] = await w.h.db.query(`SELECT id FROM tool_executions WHERE store_id = $1 AND status = 'approved'`, [w.h.store.id]);
    await w.runJobs(held.id, 'run');
    await page.locator('.msg.text', { hasText: 'Created the lamp.' }).waitFor();
    expect(await w.productCount()).toBe(1);

    // An order: mark it paid, then cancel it with a reason.
    const item = await w.h.call('POST', '/products', {
      name: 'Shade',
      sku: `SH-${Date.now()}`,
      status: 'active',
      pricing_data: { retail: 12 },
      stock_quantity: 5,
    });
    const order = await w.h.call('POST', '/orders', { line_items: [{ product_id: item.body.id, quantity: 2 }] });
    expect(order.status).toBe(201);
    await page.goto(`${w.base}/console#/orders`);
    await page.locator('a', { hasText: `#${order.body.order_number}` }).click();
    await page.getByRole('button', { name: 'Mark paid' }).click();
    await page.waitForSelector('.facts .status:has-text("paid")');
    await shot(page, 'order-detail');
    expect(await axe(page)).toEqual([]);
    await page.getByLabel('Cancellation reason').fill('Customer asked');
    await page.getByRole('button', { name: 'Cancel order' }).click();
    await page.waitForSelector('.facts .status:has-text("cancelled")');
    expect((await w.h.call('GET', `/orders/${order.body.id}`)).body).toMatchObject({ status: 'cancelled', cancel_reason: 'Customer asked' });
    // Another: paid, then fulfilled; the list filtered by status shows it and not the cancelled one.
    const second = await w.h.call('POST', '/orders', { line_items: [{ product_id: item.body.id, quantity: 1 }] });
    await page.goto(`${w.base}/console#/orders/${second.body.id}`);
    await page.getByRole('button', { name: 'Mark paid' }).click();
    await page.getByRole('button', { name: 'Mark fulfilled' }).click();
    await page.waitForSelector('.facts .status:has-text("fulfilled")');
    expect((await w.h.call('GET', `/orders/${second.body.id}`)).body.status).toBe('fulfilled');
    await page.goto(`${w.base}/console#/orders`);
    await page.getByLabel('Status').selectOption('fulfilled');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.locator('a', { hasText: `#${order.body.order_number}` }).waitFor({ state: 'detached' });
    expect(await page.locator('a', { hasText: `#${second.body.order_number}` }).count()).toBe(1);

    // A customer found by search and edited.
    await page.goto(`${w.base}/console#/customers`);
    await page.getByLabel('Search').fill('ada@');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('td a', { hasText: 'Ada' }).click();
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForSelector('td a:has-text("Ada Lovelace")'); // saved: back on the list
    expect((await w.h.call('GET', '/customers?q=ada@')).body.data[0]).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace' });

    // The log with the calls made above: one page of them, so no pager.
    await page.goto(`${w.base}/console#/executions`);
    await page.locator('tbody tr', { hasText: 'products.create_product' }).first().waitFor();
    expect(await page.getByRole('button', { name: 'Older' }).isVisible()).toBe(false);
    await shot(page, 'executions');
    expect(await axe(page)).toEqual([]);

    const loaded = {
      agents: 'tbody tr',
      'agents/new': 'text=Create agent',
      'custom-tools/new': 'text=Create tool',
      orders: 'tbody tr',
      customers: 'text=Ada',
      webhooks: 'text=New endpoint',
    };
    for (const [p, selector] of Object.entries(loaded)) {
      await page.goto(`${w.base}/console#/${p}`);
      await page.waitForSelector(selector);
      await shot(page, p.replace('/', '-'));
      expect(await axe(page)).toEqual([]);
    }
    expect(problems).toEqual([]);
  },
  120_000,
);

browserTest(
  'the page carries a CSP with no inline script; the token exchange refuses another origin; the session is needed',
  async () => {
    const w = await consoleWorld();
    const page = await fetch(`${w.base}/console`);
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    const js = html.match(/src="(\/console\/[^"]+\.js)"/)![1];
    const asset = await fetch(`${w.base}${js}`);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    // A page's file, named in the entry and loaded when the page opens: served beside it, as long.
    const chunk = (await asset.text()).match(/"\.\/(approvals-[^"]+\.js)"/)![1];
    const pageFile = await fetch(`${w.base}/console/${chunk}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(pageFile.status).toBe(200);
    expect(pageFile.headers.get('content-type')).toContain('javascript');
    expect(pageFile.headers.get('cache-control')).toContain('immutable');
    expect(await pageFile.text()).toContain('No tool call is waiting for approval.');

    expect((await fetch(`${w.base}/auth/console/session`)).status).toBe(401);
    const owner = await addUser(w.h, 'owner');
    const { context } = await signedIn(browser(), w.base, owner.email);
    const cookies = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    await context.close();
    const exchange = (headers: Record<string, string>) =>
      fetch(`${w.base}/auth/console/token`, {
        method: 'POST',
        headers: { cookie: cookies, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ store_id: w.h.store.id }),
      });
    const forged = await exchange({ origin: 'http://evil.example', 'x-svc-console': '1' });
    expect(forged.status).toBe(403);
    expect((await forged.json()).error.code).toBe('cross_site_request');
    expect((await exchange({ origin: w.base })).status).toBe(403);
    const ok = await exchange({ origin: w.base, 'x-svc-console': '1' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toContain('no-store');
    expect((await ok.json()).role).toBe('owner');
  },
  120_000,
);
