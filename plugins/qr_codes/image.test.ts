import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { browserTest, CHROMIUM } from '../../test/kit/browser';
import { setup, type Harness } from '../../test/kit/setup';
import { clearImageCache } from './serve-image';

/**
 * Every image variant decodes back to the scan_url with jsQR: PNG and SVG (rasterized by headless
 * Chromium), each size, colors, with and without a logo served by a local HTTP server.
 */

let h: Harness;
let logoServer: ReturnType<typeof Bun.serve>;
let logoFetches = 0;
const savedAllow = process.env.SVC_EGRESS_ALLOW;

/** A 120x60 two-color PNG logo (red with a dark band): a real picture in the middle of the code. */
function logoPng(width = 120, height = 60): Buffer {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const band = y > height / 3 && y < (2 * height) / 3;
      png.data.set(band ? [20, 20, 60, 255] : [220, 40, 40, 255], i);
    }
  return PNG.sync.write(png);
}

beforeAll(async () => {
  process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
  const logo = logoPng();
  const big = Buffer.alloc(300 * 1024, 1);
  logoServer = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === '/logo.png') {
        logoFetches++;
        return new Response(new Uint8Array(logo), { headers: { 'content-type': 'image/png' } });
      }
      if (path === '/logo.jpg') return new Response(new Uint8Array(logo), { headers: { 'content-type': 'image/jpeg' } });
      if (path === '/huge.png') return new Response(new Uint8Array(big), { headers: { 'content-type': 'image/png' } });
      if (path === '/wide.png') return new Response(new Uint8Array(logoPng(1500, 10)), { headers: { 'content-type': 'image/png' } });
      return new Response('no', { status: 404 });
    },
  });
  h = await setup();
}, 60_000);

afterAll(() => {
  logoServer?.stop(true);
  if (savedAllow === undefined) delete process.env.SVC_EGRESS_ALLOW;
  else process.env.SVC_EGRESS_ALLOW = savedAllow;
});

const logoUrl = (path = '/logo.png') => `http://127.0.0.1:${logoServer.port}${path}`;

async function newCode(over: Record<string, unknown> = {}) {
  const res = await h.call('POST', '/qr-codes', {
    code: `img-${crypto.randomUUID().slice(0, 8)}`,
    type: 'product',
    destination_url: 'https://shop.example.com/p/1',
    ...over,
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function image(code: string, query = '', headers: Record<string, string> = {}) {
  const res = await h.app.handle(
    new Request(`http://svc.test${h.base}/qr-codes/${code}/image${query}`, { headers: { 'x-api-key': h.key, ...headers } }),
  );
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

function decodePng(bytes: Buffer) {
  const img = PNG.sync.read(bytes);
  return { width: img.width, height: img.height, text: jsQR(new Uint8ClampedArray(img.data), img.width, img.height)?.data };
}

/** The color of the darkest pixel, to check the modules wear the brand color. */
function darkest(bytes: Buffer): string {
  const img = PNG.sync.read(bytes);
  let best = [255, 255, 255];
  for (let i = 0; i < img.data.length; i += 4) {
    const sum = img.data[i] + img.data[i + 1] + img.data[i + 2];
    if (sum < best[0] + best[1] + best[2]) best = [img.data[i], img.data[i + 1], img.data[i + 2]];
  }
  return '#' + best.map((c) => c.toString(16).padStart(2, '0')).join('');
}

describe('PNG', () => {
  for (const size of [64, 128, 300, 1000, 2048])
    for (const withLogo of [false, true])
      test(`${size}px ${withLogo ? 'with' : 'without'} a logo decodes to the scan_url`, async () => {
        const code = await newCode(withLogo ? { logo_url: logoUrl(), brand_color: '#1a73e8' } : {});
        const { res, bytes } = await image(code.code, `?size=${size}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('image/png');
        const decoded = decodePng(bytes);
        expect([decoded.width, decoded.height]).toEqual([size, size]);
        expect(decoded.text).toBe(code.scan_url);
      });

  test('the default is PNG 300x300', async () => {
    const code = await newCode();
    expect(decodePng((await image(code.code)).bytes)).toMatchObject({ width: 300, height: 300, text: code.scan_url });
  });

  for (const color of ['#1a73e8', '#7b1fa2', '#2e7d32', '#c62828', '#757575', '#000'])
    test(`brand_color ${color} colors the modules and still decodes`, async () => {
      const code = await newCode({ brand_color: color, logo_url: logoUrl() });
      const { bytes } = await image(code.code);
      expect(decodePng(bytes).text).toBe(code.scan_url);
      const full = color.length === 4 ? '#' + [...color.slice(1)].map((c) => c + c).join('') : color;
      // The logo's dark band is darker than some brand colors: look at a code without one.
      const plain = await newCode({ brand_color: color });
      expect(darkest((await image(plain.code)).bytes)).toBe(full);
    });
});

describe('the logo', () => {
  test('is fetched once through the egress guard and kept', async () => {
    const before = logoFetches;
    const code = await newCode({ logo_url: logoUrl() });
    for (const size of [200, 201, 202]) expect((await image(code.code, `?size=${size}`)).res.status).toBe(200);
    clearImageCache();
    expect((await image(code.code, '?size=203')).res.status).toBe(200);
    expect(logoFetches - before).toBe(1);
  });

  test('too big, not a PNG, too wide, or unreachable: 400 logo_unavailable naming logo_url', async () => {
    for (const [path, says] of [
      ['/huge.png', 'larger than 256 KB'],
      ['/logo.jpg', 'must be a PNG'],
      ['/wide.png', 'at most 1024 pixels'],
      ['/missing.png', 'HTTP 404'],
    ]) {
      const code = await newCode({ logo_url: logoUrl(path) });
      const { res, bytes } = await image(code.code);
      expect(res.status).toBe(400);
      const body = JSON.parse(bytes.toString());
      expect(body.error).toMatchObject({ code: 'logo_unavailable', param: 'logo_url' });
      expect(body.error.message).toContain(says);
    }
  });

  test('a private address not allowed by SVC_EGRESS_ALLOW is refused', async () => {
    process.env.SVC_EGRESS_ALLOW = '';
    try {
      const code = await newCode({ logo_url: logoUrl() });
      const { res, bytes } = await image(code.code);
      expect(res.status).toBe(400);
      expect(JSON.parse(bytes.toString()).error.message).toContain('SVC_EGRESS_ALLOW');
    } finally {
      process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
    }
  });
});

describe('caching', () => {
  test('ETag and Cache-Control; If-None-Match answers 304; an update changes the ETag', async () => {
    const code = await newCode();
    const first = await image(code.code);
    const etag = first.res.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect(first.res.headers.get('cache-control')).toBe('private, max-age=3600');
    const again = await image(code.code, '', { 'if-none-match': etag });
    expect(again.res.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect((await image(code.code, '?size=301')).res.headers.get('etag')).not.toBe(etag);
    await h.call('PATCH', `/qr-codes/${code.code}`, { brand_color: '#1a73e8' });
    const changed = await image(code.code, '', { 'if-none-match': etag });
    expect(changed.res.status).toBe(200);
    expect(darkest(changed.bytes)).toBe('#1a73e8');
  });
});

describe('MCP', () => {
  test('get_qr_code with include_image returns the PNG as MCP image content', async () => {
    const { mcpClient } = await import('../../test/kit/mcp');
    const code = await newCode({ brand_color: '#1a73e8' });
    const { client } = await mcpClient(h);
    const out: any = await client.callTool({ name: 'qr_codes', arguments: { action: 'get_qr_code', code: code.code, include_image: true } });
    expect(out.isError).toBeFalsy();
    const img = out.content.find((c: any) => c.type === 'image');
    expect(img.mimeType).toBe('image/png');
    // Without SVC_PUBLIC_URL the origin is the one the MCP client reached (the core's ctx.origin).
    expect(out.structuredContent).toMatchObject({ code: code.code, status: 'active', scan_url: `http://svc.test/s/${code.code}` });
    expect(out.structuredContent.image).toBeUndefined();
    expect(decodePng(Buffer.from(img.data, 'base64')).text).toBe(out.structuredContent.scan_url);
  });

  test('get_qr_image (a raw REST answer) is a tool: MCP image content that decodes to the scan URL', async () => {
    const { mcpClient } = await import('../../test/kit/mcp');
    const code = await newCode();
    const { client } = await mcpClient(h, { query: '?tools=flat' });
    const listed = (await client.listTools()).tools.find((t) => t.name === 'qr_codes_get_qr_image');
    expect(listed?.outputSchema?.properties).toHaveProperty('mime_type');
    const out: any = await client.callTool({ name: 'qr_codes_get_qr_image', arguments: { code: code.code, size: 200 } });
    expect(out.isError).toBeFalsy();
    const img = out.content.find((c: any) => c.type === 'image');
    expect(img.mimeType).toBe('image/png');
    expect(decodePng(Buffer.from(img.data, 'base64'))).toMatchObject({ width: 200, text: code.scan_url });
    expect(out.structuredContent).toEqual({ object: 'image', mime_type: 'image/png', bytes: Buffer.from(img.data, 'base64').length });
    // An unknown code is the tool's error, as over REST.
    const missing: any = await client.callTool({ name: 'qr_codes_get_qr_image', arguments: { code: 'no-such-code' } });
    expect(missing.isError).toBe(true);
    expect(JSON.parse(missing.content[0].text).error.code).toBe('resource_missing');
    await client.close();
  });
});

describe('SVG', () => {
  // One browser for every size; the viewport stays at least 200 px (Chromium will not capture a
  // smaller one reliably) and the screenshot is clipped to the image.
  let browser: import('playwright-core').Browser | undefined;
  afterAll(() => browser?.close());
  for (const size of [64, 300, 1024])
    for (const withLogo of [false, true])
      browserTest(
        `${size}px ${withLogo ? 'with' : 'without'} a logo, rasterized by Chromium, decodes to the scan_url`,
        async () => {
          const code = await newCode(withLogo ? { logo_url: logoUrl(), brand_color: '#7b1fa2' } : {});
          const { res, bytes } = await image(code.code, `?format=svg&size=${size}`);
          expect(res.headers.get('content-type')).toBe('image/svg+xml');
          const svg = bytes.toString();
          expect(svg).toStartWith('<svg');
          expect(svg).toContain(`width="${size}"`);
          const { chromium } = await import('playwright-core');
          browser ??= await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
          const side = Math.max(size, 200);
          // Below 100 px a module spans under two pixels at 1:1 (64 px / 37 modules), so some codes'
          // patterns (the slug is random) lose a module edge and jsqr misses them; screens draw a
          // vector image at two device pixels per CSS pixel or more, as here.
          const page = await browser.newPage({ viewport: { width: side, height: side }, deviceScaleFactor: size < 100 ? 2 : 1 });
          try {
            await page.setContent(`<html><body style="margin:0;background:#fff">${svg}</body></html>`);
            const shot = await page.screenshot({ clip: { x: 0, y: 0, width: size, height: size } });
            expect(decodePng(Buffer.from(shot)).text).toBe(code.scan_url);
          } finally {
            await page.close();
          }
        },
        30_000,
      );
});
