/** Helpers for the egress tests: a throwaway CA made with openssl, and child bun processes. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EgressError } from '../../core/net/policy';

export const LOCAL = ['127.0.0.1'];
/** A fake resolver that always answers `addrs`. */
export const fixed =
  (...addrs: string[]) =>
  async () =>
    addrs;

/** Awaits p and returns the EgressError it must reject with. */
export async function refusal(p: Promise<unknown>): Promise<EgressError> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof EgressError)) throw e;
    return e;
  }
  throw new Error('expected an EgressError');
}

function openssl(args: string[], cwd: string) {
  const r = Bun.spawnSync(['openssl', ...args], { cwd, stderr: 'pipe', stdout: 'pipe' });
  if (r.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr.toString()}`);
}

/**
 * Writes ca.pem, leaf.key and leaf.pem into dir: a CA and a server certificate whose
 * only subjectAltName is DNS:<name> (deliberately no IP SAN).
 */
export function makeTestCa(dir: string, name: string): void {
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=svc egress test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', `/CN=${name}`], dir);
  writeFileSync(join(dir, 'leaf.ext'), `subjectAltName=DNS:${name}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'leaf.pem',
      '-days',
      '2',
      '-extfile',
      'leaf.ext',
    ],
    dir,
  );
}

/**
 * Runs `code` (an ES module body) in a fresh bun process with extra env and returns the
 * JSON it printed last. Async spawn on purpose: the servers it talks to live in this
 * process, and a synchronous spawn would block their event loop.
 */
export async function runChild(code: string, env: Record<string, string>): Promise<unknown> {
  const p = Bun.spawn([process.execPath, '-e', code], { env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  await p.exited;
  const last = out.trim().split('\n').at(-1);
  if (p.exitCode !== 0 || !last) throw new Error(`child bun failed (${p.exitCode}): ${err}${out}`);
  return JSON.parse(last);
}
