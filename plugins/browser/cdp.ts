import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { fail, type SvcError } from '../../core/sdk';

/**
 * The Chrome DevTools protocol spoken directly over `--remote-debugging-pipe` (fd 3 in, fd 4 out,
 * one JSON message per NUL-terminated frame). No library: playwright-core finds its own files
 * through __dirname and does not run inside the compiled binary (ARCHITECTURE's dependency facts),
 * and a pipe, unlike a debugging port, is open to no other process on the host.
 */

type Listener = (params: any, sessionId?: string) => void;

/** A command the browser refused or never answered: 502 provider_error naming chromium (a retry may heal a crash). */
const cdpError = (method: string, message: string): SvcError => fail('provider_error', `chromium: ${method}: ${message}`);

/** No command takes longer (a capture of a page that draws no frame would wait forever). */
const COMMAND_TIMEOUT_MS = 60_000;

export class Cdp {
  private nextId = 1;
  private pending = new Map<
    number,
    { method: string; resolve: (v: any) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> }
  >();
  private listeners = new Map<string, Set<Listener>>();
  private buffered = '';
  closed = false;
  /** Why the connection ended (the browser exited, crashed or was closed). */
  closeReason = '';

  constructor(
    private readonly out: Writable,
    input: Readable,
    private readonly onClose: () => void,
  ) {
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => this.receive(chunk));
    input.on('close', () => this.shut('the browser closed its pipe'));
    input.on('error', () => this.shut('the browser pipe failed'));
    out.on('error', () => this.shut('the browser pipe failed'));
  }

  private receive(chunk: string) {
    this.buffered += chunk;
    let end: number;
    while ((end = this.buffered.indexOf('\0')) >= 0) {
      const frame = this.buffered.slice(0, end);
      this.buffered = this.buffered.slice(end + 1);
      let msg: any;
      try {
        msg = JSON.parse(frame);
      } catch {
        continue;
      }
      if (typeof msg.id === 'number') {
        const p = this.pending.get(msg.id);
        if (!p) continue;
        this.pending.delete(msg.id);
        clearTimeout(p.timer);
        if (msg.error) p.reject(cdpError(p.method, msg.error.message ?? 'failed'));
        else p.resolve(msg.result ?? {});
      } else if (typeof msg.method === 'string') {
        for (const l of this.listeners.get(msg.method) ?? []) l(msg.params ?? {}, msg.sessionId);
      }
    }
  }

  /** One command; `sessionId` addresses a page attached with flatten: true. */
  send<T = any>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    if (this.closed) return Promise.reject(cdpError(method, this.closeReason || 'the browser is closed'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(cdpError(method, `no answer within ${COMMAND_TIMEOUT_MS / 1000} s`));
      }, COMMAND_TIMEOUT_MS);
      this.pending.set(id, { method, resolve, reject, timer });
      this.out.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0');
    });
  }

  /** Listens to an event of every session; answers the function that stops listening. */
  on(event: string, l: Listener): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(l);
    return () => set!.delete(l);
  }

  shut(reason: string) {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(cdpError(p.method, reason));
    }
    this.pending.clear();
    this.onClose();
  }
}

/** A started browser: its process and its protocol connection. */
export interface Launched {
  proc: ChildProcess;
  cdp: Cdp;
}

/** Starts `path` with the flags given plus the pipe; the connection ends when the process does. */
export function launch(path: string, args: string[], onExit: (reason: string) => void): Launched {
  const proc = spawn(path, [...args, '--remote-debugging-pipe'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  // stderr is read so that a chatty browser never blocks on a full pipe; its last lines explain a failed start.
  let stderr = '';
  proc.stderr?.setEncoding('utf8');
  proc.stderr?.on('data', (s: string) => (stderr = (stderr + s).slice(-2000)));
  const cdp = new Cdp(proc.stdio[3] as Writable, proc.stdio[4] as Readable, () => onExit(cdp.closeReason));
  proc.on('error', (err) => cdp.shut(`the browser could not start (${err.message})`));
  proc.on('exit', (code, signal) => cdp.shut(`the browser exited (${signal ?? `code ${code}`}): ${stderr.trim().split('\n').slice(-2).join(' ')}`));
  return { proc, cdp };
}
