import { test } from 'bun:test';
import { existsSync } from 'node:fs';

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
