/**
 * Shared set-up of the admin console's browser tests (console/*.test.ts): headless Chromium
 * launched once per file, a store with an agent whose create_product waits for approval, the
 * console served on 127.0.0.1, and a signed-in browser context. Not a test file.
 */
import { afterAll, beforeAll } from 'bun:test';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { createApp } from '../../core/http/app';
import { consoleRoutes } from '../../console/serve';
import { CHROMIUM, DESKTOP, SHOTS } from './browser';
import { createCall, stops, world } from './approvals';
import { openai } from './fake-models';
import { PASSWORD } from './users';

/** Launches Chromium before the file's tests (closed after them); the getter gives it to a test. */
export function useBrowser(): () => Browser {
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }).catch(() => undefined as unknown as Browser);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser;
}

/**
 * A store (useWorlds' world) whose agent "Clerk" has products with create_product held for
 * approval, a fake model scripted for two held calls, and the console listening on 127.0.0.1 until
 * the test ends.
 */
export async function consoleWorld() {
  const first = createCall({ name: 'Gated Lamp' });
  const second = createCall({ name: 'Second Lamp' });
  const w = await world([openai.tools(first), openai.text('Created the lamp.'), openai.tools(second), openai.text('Understood.')]);
  w.h.clock.set(new Date()); // the page counts down against the browser's clock
  const listening = createApp(w.h.svc, consoleRoutes()).listen({ port: 0, hostname: '127.0.0.1' });
  const base = `http://127.0.0.1:${listening.server!.port}`;
  const agent = await w.agent(['products'], { products: { requires_approval: ['create_product'] } });
  stops.push(async () => void (await listening.stop(true))); // after the test (useWorlds), passed or failed
  return { ...w, base, agent };
}

/** A signed-in browser context (its own cookies, closed when the test ends), with CSP violations and page errors collected. */
export async function signedIn(browser: Browser, base: string, email: string, viewport = DESKTOP) {
  const context = await browser.newContext({ viewport });
  stops.push(() => context.close()); // after the test (useWorlds), passed or failed
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('dialog', (d) => void d.accept());
  };
  context.on('page', watch);
  const page = await context.newPage();
  await page.goto(`${base}/console#/approvals`);
  await page.waitForURL(/\/auth\/login/);
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/console/);
  await page.waitForSelector('#page-title');
  problems.length = 0; // the session probe before signing in answered 401, as it should
  return { context, page, problems };
}

/** The inbox card (or any card) showing `text`. */
export const card = (page: Page, text: string) => page.locator('.card', { hasText: text });
