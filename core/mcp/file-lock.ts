import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';

/**
 * A lock between processes on one machine: a file created exclusively (O_EXCL), holding the
 * holder's pid, the time and a token of its own. Two `svc mcp` bridges sharing one signed-in
 * session take it around read, refresh, write, so a refresh token is never used twice.
 *
 * A lock is stale when its holder's process is gone, or when it is older than `staleMs` (a holder
 * hung or on another machine). A stale lock is broken by renaming it away first, then checking
 * the renamed file is the one judged stale: two processes breaking it at once cannot both win,
 * and a fresh lock taken meanwhile is put back.
 */
export interface LockOptions {
  /** Older than this, a lock is stale whatever its holder (default 30 s: a refresh takes far less). */
  staleMs?: number;
  /** Gives up after waiting this long (default 60 s). */
  waitMs?: number;
  /** Between two attempts (default 25 ms). */
  pollMs?: number;
}

interface Holder {
  pid: number;
  at: number;
  token: string;
}

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

function parse(text: string): Holder | undefined {
  try {
    const h = JSON.parse(text);
    return typeof h?.pid === 'number' && typeof h?.at === 'number' ? h : undefined;
  } catch {
    return undefined;
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, owned by someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Whether the lock as read (`text`) is stale; a lock still being written (no content yet) is judged by its file's age. */
function stale(path: string, text: string, staleMs: number): boolean {
  const h = parse(text);
  if (h) return !alive(h.pid) || Date.now() - h.at > staleMs;
  try {
    return Date.now() - statSync(path).mtimeMs > Math.min(staleMs, 2_000);
  } catch {
    return false;
  }
}

/** Breaks the lock judged stale from `text`; a different lock found in its place is restored. */
function breakStale(path: string, text: string) {
  const aside = `${path}.${process.pid}.${crypto.randomUUID()}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return; // gone already: someone else broke or released it
  }
  if (read(aside) !== text) {
    // A fresh lock was taken between our read and the rename: put it back unless another exists now.
    try {
      linkSync(aside, path);
    } catch {}
  }
  try {
    unlinkSync(aside);
  } catch {}
}

export async function withFileLock<T>(path: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const staleMs = opts.staleMs ?? 30_000;
  const deadline = Date.now() + (opts.waitMs ?? 60_000);
  const token = crypto.randomUUID();
  for (;;) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, at: Date.now(), token } satisfies Holder));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const text = read(path);
    if (text !== undefined && stale(path, text, staleMs)) {
      breakStale(path, text);
      continue;
    }
    if (Date.now() > deadline) {
      const h = text && parse(text);
      throw new Error(`Waited too long for the lock ${path}${h ? ` (held by process ${h.pid})` : ''}.`);
    }
    await Bun.sleep(opts.pollMs ?? 25);
  }
  try {
    return await fn();
  } finally {
    // Ours only: a lock broken as stale while we were slow now belongs to someone else.
    if (parse(read(path) ?? '')?.token === token) {
      try {
        unlinkSync(path);
      } catch {}
    }
  }
}
