import { beforeAll, describe, expect, test } from 'bun:test';
import notes from '../fixtures/notes';
import { events, fakeServer, openai } from '../kit/fake-models';
import { mcpClient } from '../kit/mcp';
import { setup, type Harness } from '../kit/setup';

/**
 * A raw REST answer a model cannot read (the notes fixture's CSV export, `asTool: 'link'`) reaches
 * MCP clients as a signed link: it serves the bytes without a credential until it expires, and a
 * tampered or expired link is 403 with the error envelope.
 */
let h: Harness;
beforeAll(async () => {
  h = await setup({ extra: [notes] });
  for (const [title, pinned] of [
    ['Call the supplier', true],
    ['Order, "quoted" labels', false],
  ] as const)
    expect((await h.call('POST', '/notes', { title, pinned })).status).toBe(201);
}, 120_000);

async function exportLink(args: Record<string, unknown> = {}) {
  const { client } = await mcpClient(h, { query: '?tools=flat' });
  try {
    const out: any = await client.callTool({ name: 'notes_export_notes', arguments: args });
    expect(out.isError).toBeFalsy();
    return out.structuredContent as { object: string; url: string; expires_at: string; content_type: string };
  } finally {
    await client.close();
  }
}

/** A GET with no credential at all, as a browser or a spreadsheet would fetch the link. */
async function fetchLink(url: string) {
  const res = await h.app.handle(new Request(url));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('a raw answer offered as a signed link', () => {
  test('the tool answers {url, expires_at}; the link serves the CSV without a credential', async () => {
    const link = await exportLink();
    expect(link).toMatchObject({ object: 'signed_link', content_type: 'text/csv' });
    expect(link.url).toStartWith('http://svc.test/v1/signed/');
    // SVC_SIGNED_URL_TTL_S defaults to 900 seconds, from the store's clock.
    expect(Date.parse(link.expires_at) - h.clock.now().getTime()).toBe(900_000);
    const got = await fetchLink(link.url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toStartWith('text/csv');
    expect(got.headers.get('cache-control')).toBe('private, no-store');
    expect(got.text.split('\r\n').slice(0, 3)).toEqual([
      'title,pinned,created_at',
      `Call the supplier,true,${h.clock.now().toISOString()}`,
      `"Order, ""quoted"" labels",false,${h.clock.now().toISOString()}`,
    ]);
    // The link is the call it was made for: its input (pinned only) comes with it.
    const pinned = await fetchLink((await exportLink({ pinned: true })).url);
    expect(pinned.text).toContain('Call the supplier');
    expect(pinned.text).not.toContain('quoted');
  });

  test('a tampered link is 403 signed_link_invalid, with the SPEC envelope', async () => {
    const { url } = await exportLink({ pinned: true });
    const token = url.slice(url.lastIndexOf('/') + 1);
    const [body, sig] = token.split('.');
    // Asking for every note instead of the pinned ones, under the old signature.
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
    const widened = Buffer.from(JSON.stringify({ ...claims, i: {} })).toString('base64url');
    const flipped = sig.slice(0, -2) + (sig.at(-2) === 'A' ? 'B' : 'A') + sig.at(-1);
    for (const bad of [`${widened}.${sig}`, `${body}.${flipped}`, body, `${body}.${sig}.x`]) {
      const res = await fetchLink(`http://svc.test/v1/signed/${bad}`);
      expect(res.status).toBe(403);
      const e = JSON.parse(res.text).error;
      expect(e).toMatchObject({ type: 'permission_error', code: 'signed_link_invalid' });
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  test('an expired link is 403 signed_link_expired; a new call gives a working one', async () => {
    const { url } = await exportLink();
    h.clock.advance(899_000);
    expect((await fetchLink(url)).status).toBe(200);
    h.clock.advance(1_000);
    const late = await fetchLink(url);
    expect(late.status).toBe(403);
    expect(JSON.parse(late.text).error.code).toBe('signed_link_expired');
    expect((await fetchLink((await exportLink()).url)).status).toBe(200);
  });

  test('revoking the key that made a link ends the link', async () => {
    const key = await h.newKey(['notes:read']);
    const { client } = await mcpClient(h, { key, query: '?tools=flat' });
    const out: any = await client.callTool({ name: 'notes_export_notes', arguments: {} });
    await client.close();
    const url = out.structuredContent.url as string;
    expect((await fetchLink(url)).status).toBe(200);
    const [{ id }] = await h.db.query('SELECT id FROM api_keys WHERE key_prefix = $1', [key.slice(0, 14)]);
    expect((await h.call('DELETE', `/api-keys/${id}`)).status).toBe(200);
    const refused = await fetchLink(url);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text).error.code).toBe('signed_link_invalid');
  });

  test('SVC_SIGNED_URL_TTL_S sets the lifetime; SVC_PUBLIC_URL the origin', async () => {
    const other = h.elsewhere({ SVC_SIGNED_URL_TTL_S: '60', SVC_PUBLIC_URL: 'https://svc.example.com/' });
    const { client } = await mcpClient(h, { query: '?tools=flat', apps: [other.app] });
    const out: any = await client.callTool({ name: 'notes_export_notes', arguments: {} });
    await client.close();
    expect(out.structuredContent.url).toStartWith('https://svc.example.com/v1/signed/');
    expect(Date.parse(out.structuredContent.expires_at) - h.clock.now().getTime()).toBe(60_000);
  });
});

describe('raw answers to agents', () => {
  test("an image reaches the chat's client whole and the model as a description; a link reaches the model as a URL", async () => {
    // QR codes are unique across the server (and the test database outlives a run): a fresh one.
    const code = `agent-${crypto.randomUUID().slice(0, 8)}`;
    const fake = fakeServer([
      openai.tools({ name: 'qr_codes', input: { action: 'get_qr_image', code } }),
      openai.tools({ name: 'notes', input: { action: 'export_notes' } }),
      openai.text('Done.'),
    ]);
    try {
      const a = await setup({ extra: [notes], env: { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test' } });
      const made = await a.call('POST', '/qr-codes', { code, type: 'product', destination_url: 'https://shop.example.com/p/1' });
      expect(made.status).toBe(201);
      await a.call('POST', '/notes', { title: 'From the agent test' });
      const agent = (
        await a.call('POST', '/agents', { name: 'Helper', model: 'openai/gpt-test', system_prompt: 'Be brief.', tools: ['qr_codes', 'notes'] })
      ).body;
      const r = await a.call('POST', `/agents/${agent.id}/chat`, { message: 'The QR image and my notes, please.' });
      const results = events(r.body).filter((e: any) => e.type === 'tool_result');
      expect(results.map((e: any) => e.status)).toEqual(['success', 'success']);
      const image = results[0].result.image;
      expect(image).toMatchObject({ object: 'image', mime_type: 'image/png' });
      expect(Buffer.from(image.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
      // The model reads text: what the image is, not kilobytes of base64.
      const toModel = JSON.stringify(fake.requests[1].body.messages);
      expect(toModel).toContain('image/png');
      expect(toModel).not.toContain(image.data.slice(0, 40));
      // The link names the origin the chat's client reached, and works without a credential.
      const url = results[1].result.url as string;
      expect(url).toStartWith('http://svc.test/v1/signed/');
      expect(JSON.stringify(fake.requests[2].body.messages)).toContain(url);
      const csv = await a.app.handle(new Request(url));
      expect(csv.status).toBe(200);
      expect(await csv.text()).toContain('From the agent test');
    } finally {
      fake.stop();
    }
  });
});
