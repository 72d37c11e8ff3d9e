/**
 * The webchat widget (issue 27, SPEC 2.4 channel `webchat`): a storefront on another origin (a
 * second local HTTP server) embeds /widget.js with a publishable key; headless Chromium chats,
 * reloads and goes on with the same conversation; a page on an origin the key does not allow is
 * refused; an agent without the webchat channel refuses; a visitor is rate-limited; the agent's
 * tools run with the scopes they need and no more.
 */
import { expect, test } from 'bun:test';
import { createApp } from '../core/http/app';
import { axe, browserTest, PHONE, shot } from '../test/kit/browser';
import { useBrowser } from '../test/kit/console';
import { createCall, stops, useWorlds, world } from '../test/kit/approvals';
import { openai } from '../test/kit/fake-models';
import { consoleRoutes } from './serve';

useWorlds();

const browser = useBrowser();

/** A shop: a page embedding the widget, served on its own port (its own origin). */
function shop(svcBase: string, storeId: string, agentId: string, key: () => string) {
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () =>
      new Response(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A shop</title></head><body><h1>Lamps</h1>
<script src="${svcBase}/widget.js" data-store="${storeId}" data-agent="${agentId}" data-key="${key()}" async></script></body></html>`,
        { headers: { 'content-type': 'text/html; charset=utf-8' } },
      ),
  });
  stops.push(() => server.stop(true));
  return `http://127.0.0.1:${server.port}`;
}

async function webchatWorld(replies: Parameters<typeof world>[0], agentOver: Record<string, unknown> = {}) {
  const w = await world(replies);
  const listening = createApp(w.h.svc, consoleRoutes()).listen({ port: 0, hostname: '127.0.0.1' });
  stops.push(() => void listening.stop(true));
  const base = `http://127.0.0.1:${listening.server!.port}`;
  const agent = await w.h.call('POST', '/agents', {
    name: 'Shop helper',
    model: 'openai/gpt-test',
    system_prompt: 'Help shoppers.',
    tools: ['products'],
    channels: ['webchat'],
    ...agentOver,
  });
  expect(agent.status).toBe(201);
  return { ...w, base, agent: agent.body as { id: string } };
}

async function publishable(w: Awaited<ReturnType<typeof webchatWorld>>, origins: string[]) {
  const r = await w.h.call('POST', '/api-keys/publishable', { allowed_origins: origins });
  expect(r.status).toBe(201);
  expect(r.body.key).toMatch(/^svc_pub_/);
  return r.body as { id: string; key: string };
}

const post = (base: string, origin: string, body: object) =>
  fetch(`${base}/v1/webchat/chat`, { method: 'POST', headers: { 'content-type': 'text/plain', origin }, body: JSON.stringify(body) });
const visitor = () => crypto.randomUUID().replaceAll('-', '');

browserTest(
  'the widget chats from a page on an allowed origin, and the conversation goes on after a reload; another origin is refused',
  async () => {
    const w = await webchatWorld([openai.text('Hello ', 'from the shop.'), openai.text('We have three lamps.')]);
    // The allowed shop's origin is known only once it listens: its page reads the key made after.
    let pub = '';
    const allowedUrl = shop(w.base, w.h.store.id, w.agent.id, () => pub);
    const key = await publishable(w, [allowedUrl]);
    pub = key.key;
    const page = await browser().newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    try {
      await page.goto(allowedUrl);
      await page.getByRole('button', { name: 'Chat with us' }).click();
      await page.getByLabel('Your message').fill('Hi, any lamps?');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.locator('.msg.agent', { hasText: 'Hello from the shop.' }).waitFor();
      await shot(page, 'widget');
      // On a phone the open panel stays inside the screen, and axe finds nothing serious in the shop's page with it.
      const desktop = page.viewportSize()!;
      await page.setViewportSize(PHONE);
      const box = (await page.getByRole('dialog', { name: 'Chat with us' }).boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      expect(await axe(page)).toEqual([]);
      await shot(page, 'widget-phone');
      await page.setViewportSize(desktop);

      await page.reload();
      await page.getByRole('button', { name: 'Chat with us' }).click();
      await page.locator('.msg.me', { hasText: 'Hi, any lamps?' }).waitFor(); // the transcript came back
      await page.getByLabel('Your message').fill('How many?');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.locator('.msg.agent', { hasText: 'We have three lamps.' }).waitFor();
      // One conversation: the model heard the first exchange with the second message.
      expect(w.sentToModel(1)).toContain('Hi, any lamps?');
      expect(w.sentToModel(1)).toContain('Hello from the shop.');
      expect(errors).toEqual([]);

      // The same page on an origin the key does not allow: the browser gets no CORS answer.
      const otherUrl = shop(w.base, w.h.store.id, w.agent.id, () => key.key);
      await page.goto(otherUrl);
      await page.getByRole('button', { name: 'Chat with us' }).click();
      await page.getByLabel('Your message').fill('Hello?');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.locator('.msg.note', { hasText: 'not available' }).waitFor();
      const refused = await post(w.base, otherUrl, { key: key.key, agent_id: w.agent.id, visitor_id: visitor(), message: 'Hello?' });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      expect((await refused.json()).error.code).toBe('origin_not_allowed');
      expect(w.fake.requests.length).toBe(2);
    } finally {
      await page.close();
    }
  },
  120_000,
);

test('an agent without the webchat channel refuses the widget, an unknown one is 404; a publishable key is no API key', async () => {
  const w = await webchatWorld([], { channels: ['api'] });
  const key = await publishable(w, ['https://shop.example.com']);
  const r = await post(w.base, 'https://shop.example.com', { key: key.key, agent_id: w.agent.id, visitor_id: visitor(), message: 'Hi' });
  expect(r.status).toBe(403);
  expect(r.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
  expect((await r.json()).error.code).toBe('channel_not_enabled');
  const unknownId = crypto.randomUUID();
  const unknown = await post(w.base, 'https://shop.example.com', { key: key.key, agent_id: unknownId, visitor_id: visitor(), message: 'Hi' });
  expect(unknown.status).toBe(404);
  expect((await unknown.json()).error).toMatchObject({ code: 'resource_missing', param: 'agent_id', message: `No such agent: '${unknownId}'.` });
  const asApiKey = await w.h.call('GET', '/products', undefined, { 'x-api-key': key.key });
  expect(asApiKey.status).toBe(401);
  const listed = (await w.h.call('GET', '/api-keys')).body.data.find((k: any) => k.id === key.id);
  expect(listed).toMatchObject({ kind: 'publishable', allowed_origins: ['https://shop.example.com'], scopes: [] });
});

test('a visitor sending more than 10 messages a minute gets 429 with Retry-After', async () => {
  const w = await webchatWorld(Array.from({ length: 12 }, () => openai.text('ok')));
  const key = await publishable(w, ['https://shop.example.com']);
  const me = visitor();
  for (let i = 0; i < 10; i++) {
    const r = await post(w.base, 'https://shop.example.com', { key: key.key, agent_id: w.agent.id, visitor_id: me, message: `m${i}` });
    expect(r.status).toBe(200);
    await r.text();
  }
  const over = await post(w.base, 'https://shop.example.com', { key: key.key, agent_id: w.agent.id, visitor_id: me, message: 'again' });
  expect(over.status).toBe(429);
  expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
  // Another visitor is not held back by this one.
  const other = await post(w.base, 'https://shop.example.com', { key: key.key, agent_id: w.agent.id, visitor_id: visitor(), message: 'hi' });
  expect(other.status).toBe(200);
  await other.text();
});

test("a visitor's tool calls run with the agent's tools' scopes only, and another visitor cannot continue the conversation", async () => {
  const call = createCall();
  const w = await webchatWorld([openai.tools(call), openai.text('Done.')]);
  const patch = await w.h.call('PATCH', `/agents/${w.agent.id}/tool-config`, {
    tool_overrides: { products: { requires_approval: ['create_product'] } },
  });
  expect(patch.status).toBe(200);
  const key = await publishable(w, ['https://shop.example.com']);
  const me = visitor();
  const r = await post(w.base, 'https://shop.example.com', { key: key.key, agent_id: w.agent.id, visitor_id: me, message: 'Add a lamp' });
  const conversation = r.headers.get('x-conversation-id')!;
  const reader = r.body!.getReader();
  let text = '';
  while (!text.includes('approval_required')) text += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  const [held] = await w.h.db.query(`SELECT principal FROM tool_executions WHERE store_id = $1 AND status = 'pending_approval'`, [w.h.store.id]);
  const principal = typeof held.principal === 'string' ? JSON.parse(held.principal) : held.principal;
  expect(principal.key_id).toBe(key.id);
  expect(principal.scopes.sort()).toEqual(['products', 'products:read', 'products:write']);

  const stranger = await post(w.base, 'https://shop.example.com', {
    key: key.key,
    agent_id: w.agent.id,
    visitor_id: visitor(),
    message: 'What did they say?',
    conversation_id: conversation,
  });
  expect(stranger.status).toBe(404);
});
