import { test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

/** Debian's chromium (apt-get install chromium): playwright-core downloads no browser of its own. */
export const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';

/**
 * A test that drives headless Chromium. On a machine without it (a newcomer's laptop with only
 * Node.js and npm) it is skipped with a notice saying how to run it; CI sets
 * SVC_REQUIRE_BROWSER=1 after installing Chromium, and there a missing browser fails the test.
 */
export function browserTest(name: string, fn: () => Promise<void>, timeout?: number) {
  if (existsSync(CHROMIUM)) return test(name, fn, timeout);
  if (process.env.SVC_REQUIRE_BROWSER === '1')
    return test(name, () => {
      throw new Error(`${CHROMIUM} is missing and SVC_REQUIRE_BROWSER=1: apt-get install -y chromium`);
    });
  console.warn(`NOTICE: skipping browser test "${name}": ${CHROMIUM} is missing (apt-get install -y chromium to run it).`);
  return test.skip(name, fn);
}

/**
 * Where the console's browser tests save their screenshots: SVC_CONSOLE_SHOTS, or
 * /tmp/console-shots. Setting SVC_CONSOLE_SHOTS (someone means to look at them) also saves each
 * page at the other width, `<name>@390.png` or `<name>@1280.png`, so every page is seen on a phone
 * and on a desktop.
 */
export const SHOTS = process.env.SVC_CONSOLE_SHOTS ?? '/tmp/console-shots';
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

/** A full-page screenshot of `page` in SHOTS; with SVC_CONSOLE_SHOTS set, at both widths. */
export async function shot(page: Page, name: string) {
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  if (!process.env.SVC_CONSOLE_SHOTS) return;
  const size = page.viewportSize() ?? DESKTOP;
  const other = size.width <= PHONE.width ? DESKTOP : PHONE;
  await page.setViewportSize(other);
  // Two frames: laid out and painted at the new width (else a scrolled box may come out blank).
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await page.screenshot({ path: `${SHOTS}/${name}@${other.width}.png`, fullPage: true });
  await page.setViewportSize(size);
}

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page, one line each (evaluated through the
 * DevTools protocol: the console's CSP allows no inline script).
 */
export async function axe(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => (window as any).axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
    .map((v: any) => `${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target.join(' ')).join(', ')})`);
}

/** How far the page is wider than its window (0 when nothing pushes it sideways; wide tables scroll in their own box). */
export const overflowX = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
