import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where the server holding an embedded data directory listens, kept beside its lock
 * (`<data dir>/server.json`), so a command that finds the directory locked can point at the real
 * address instead of guessing from PORT.
 */
const fileOf = (dataDir: string) => join(dataDir, 'server.json');

/** What `svc serve` binds, and the URL a command on this machine reaches it at. */
export function addressOf(hostname: string, port: number): { bound: string; localUrl: string; wildcard: boolean } {
  const wildcard = hostname === '0.0.0.0' || hostname === '::' || hostname === '';
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  return { bound: `${host || '0.0.0.0'}:${port}`, localUrl: `http://${wildcard ? '127.0.0.1' : host}:${port}`, wildcard };
}

export function recordAddress(dataDir: string, url: string) {
  writeFileSync(fileOf(dataDir), JSON.stringify({ pid: process.pid, url }) + '\n');
  return () => rmSync(fileOf(dataDir), { force: true });
}

/** The URL recorded by the server process `pid` (the one holding the lock), if it recorded one. */
export function recordedAddress(dataDir: string, pid: number): string | undefined {
  try {
    const info = JSON.parse(readFileSync(fileOf(dataDir), 'utf8'));
    return info.pid === pid && typeof info.url === 'string' ? info.url : undefined;
  } catch {
    return undefined;
  }
}
