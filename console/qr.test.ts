/**
 * The QR code pages of the admin console in headless Chromium: create a code and see its image,
 * a landing page with its preview, analytics after scans, and a viewer with no create button;
 * axe-core on every page.
 */
import { expect } from 'bun:test';
import { readFileSync } from 'node:fs';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { axe, browserTest, PHONE, shot } from '../test/kit/browser';
import { useWorlds } from '../test/kit/approvals';
import { consoleWorld, signedIn, useBrowser } from '../test/kit/console';
import { addUser } from '../test/kit/users';

useWorlds();
const browser = useBrowser();

/** The QR code a data: URL image shows, decoded with jsQR. */
const decodeQr = (dataUrl: string) => {
  const png = PNG.sync.read(Buffer.from(dataUrl.split(',')[1], 'base64'));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
};

browserTest(
  'QR codes: create one in the console, see its image and download it, edit a landing page with its preview, see analytics after scans; a viewer has no create button',
  async () => {
    const w = await consoleWorld();
    const owner = await addUser(w.h, 'owner');
    const viewer = await addUser(w.h, 'viewer');
    const { context, page, problems } = await signedIn(browser(), w.base, owner.email);
    await page.goto(`${w.base}/console#/qr-codes`);
    await page.waitForSelector('text=No QR codes.');
    await page.getByRole('link', { name: 'New QR code' }).click();
    await page.getByLabel('Code', { exact: true }).fill('spring-1');
    await page.getByLabel('Destination URL').fill('https://shop.example.com/spring');
    await page.getByLabel('Campaign').fill('spring');
    await page.getByLabel('Brand color').fill('#1a4d2e');
    // The live preview follows the form: drawn in the brand color before anything is saved.
    await page.waitForSelector('svg.qr-image path[fill="#1a4d2e"]');
    const drawn = PNG.sync.read(await page.locator('svg.qr-image').screenshot());
    expect(jsQR(new Uint8ClampedArray(drawn.data), drawn.width, drawn.height)?.data).toBe(`${w.base}/s/spring-1`);
    await shot(page, 'qr-new');
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create QR code' }).click();
    await page.waitForSelector('h1:has-text("QR code spring-1")');
    const saved = (await w.h.call('GET', '/qr-codes/spring-1')).body;
    expect(saved).toMatchObject({ campaign_name: 'spring', brand_color: '#1a4d2e', destination_url: 'https://shop.example.com/spring' });
    // The saved image came from the API with the token in a header, as a data: URL, and encodes scan_url.
    const img = page.locator('img.qr-image');
    await img.waitFor();
    const src = (await img.getAttribute('src'))!;
    expect(src.startsWith('data:image/png;base64,')).toBe(true);
    expect(decodeQr(src)).toBe(`${w.base}/s/spring-1`); // scan_url as the browser's request named the host
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download spring-1 as SVG' }).click()]);
    expect(file.suggestedFilename()).toBe('qr-spring-1.svg');
    expect(readFileSync((await file.path())!, 'utf8')).toContain('<svg');
    await shot(page, 'qr-edit');
    expect(await axe(page)).toEqual([]);

    // Deactivate, then reactivate.
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await page.waitForSelector('.facts .status:has-text("deactivated")');
    expect((await w.h.call('GET', '/qr-codes/spring-1')).body.status).toBe('deactivated');
    await page.getByRole('button', { name: 'Reactivate' }).click();
    await page.waitForSelector('.facts .status:has-text("active")');
    expect((await w.h.call('GET', '/qr-codes/spring-1')).body.status).toBe('active');

    // Edit: a new cap is saved through PATCH.
    await page.getByLabel('Max scans').fill('50');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForSelector('text=Saved.');
    expect((await w.h.call('GET', '/qr-codes/spring-1')).body.max_scans).toBe(50);

    // A landing page: the preview shows the form's text as text, in the page's colors.
    await page.goto(`${w.base}/console#/qr-codes/new`);
    await page.getByLabel('Type').selectOption('landing_page');
    await page.getByLabel('Code', { exact: true }).fill('spring-page');
    await page.getByLabel('Campaign').fill('spring');
    await page.getByLabel('Title').fill('Spring <b>sale</b>');
    await page.getByLabel('Description').fill('Everything 20% off.');
    await page.getByLabel('Button text').fill('Shop now');
    await page.getByLabel('Button URL').fill('https://shop.example.com/sale');
    await page.getByLabel('Background color').fill('#10243e');
    await page.getByLabel('Text color').fill('#ffffff');
    await page.getByLabel('Button color').fill('#b3261e');
    // A fresh form: nothing of the code edited before.
    expect(await page.locator('h2', { hasText: 'Saved image' }).count()).toBe(0);
    const preview = page.locator('.landing-preview');
    await preview.locator('text=Spring <b>sale</b>').waitFor();
    expect(await preview.locator('b').count()).toBe(0);
    expect(await preview.evaluate((e) => getComputedStyle(e).backgroundColor)).toBe('rgb(16, 36, 62)');
    await shot(page, 'qr-landing-new');
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create QR code' }).click();
    await page.waitForSelector('h1:has-text("QR code spring-page")');
    await page.locator('img.qr-image').waitFor();
    await shot(page, 'qr-landing-saved');
    expect((await w.h.call('GET', '/qr-codes/spring-page')).body.landing_page).toMatchObject({ title: 'Spring <b>sale</b>', cta_text: 'Shop now' });

    // Scans through /s/{code} from a phone and a desktop; the analytics page charts them.
    const scanAs = (code: string, ua: string) => fetch(`${w.base}/s/${code}`, { redirect: 'manual', headers: { 'user-agent': ua } });
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
    const desktop = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
    for (const ua of [iphone, iphone, desktop]) expect((await scanAs('spring-1', ua)).status).toBe(302);
    expect((await scanAs('spring-page', iphone)).status).toBe(200);
    await page.goto(`${w.base}/console#/qr-codes`);
    await page.locator('tr', { hasText: 'spring-1' }).locator('img.qr-image').waitFor();
    await shot(page, 'qr-list');
    expect(await axe(page)).toEqual([]);
    await page.getByRole('link', { name: 'Analytics of spring-1: 3 scans' }).click();
    await page.waitForSelector('[data-testid=total-scans]:has-text("3")');
    const devices = page.locator('figure', { hasText: 'Scans by device' });
    expect(await devices.locator('svg[role=img]').getAttribute('aria-label')).toMatch(/iOS 2.*Desktop 1/);
    expect(await page.locator('figure', { hasText: 'Scans by day' }).locator('rect').count()).toBe(30);
    await shot(page, 'qr-analytics-code');
    expect(await axe(page)).toEqual([]);
    await page.goto(`${w.base}/console#/qr-analytics/campaign/spring`);
    await page.waitForSelector('[data-testid=total-scans]:has-text("4")');
    await shot(page, 'qr-analytics-campaign');
    expect(await axe(page)).toEqual([]);
    expect(problems).toEqual([]);

    // A viewer (on a phone) sees the codes and their analytics, but no create, save or archive.
    const v = await signedIn(browser(), w.base, viewer.email, PHONE);
    await v.page.goto(`${w.base}/console#/qr-codes`);
    await v.page.locator('tr', { hasText: 'spring-1' }).waitFor();
    expect(await v.page.getByRole('link', { name: 'New QR code' }).count()).toBe(0);
    await shot(v.page, 'qr-list-viewer-phone');
    expect(await axe(v.page)).toEqual([]);
    await v.page.goto(`${w.base}/console#/qr-codes/spring-1`);
    await v.page.locator('img.qr-image').waitFor();
    for (const name of ['Save', 'Archive', 'Deactivate']) expect(await v.page.getByRole('button', { name }).count()).toBe(0);
    await shot(v.page, 'qr-edit-viewer-phone');
    expect(await axe(v.page)).toEqual([]);
    await v.page.goto(`${w.base}/console#/qr-analytics/code/spring-1`);
    await v.page.waitForSelector('[data-testid=total-scans]:has-text("3")');
    await shot(v.page, 'qr-analytics-phone');
    expect(await axe(v.page)).toEqual([]);
    expect(v.problems).toEqual([]);
  },
  120_000,
);
