import { errorFields } from '../../core/sdk';
import { parseInboundAddress } from '../email/public';
import { receive, type InboundDeps } from './inbound';

/** The largest message the listener takes (bigger ones are refused at DATA with 552). */
export const MAX_INBOUND_BYTES = 10 * 1024 * 1024;

/**
 * The built-in SMTP listener (SVC_SMTP_LISTEN, e.g. 0.0.0.0:25): the MX of the inbound domain.
 * It accepts only recipients of the inbound domain svc knows (return paths, thread and store
 * addresses), so it is never an open relay. With a certificate and key (PEM) it offers STARTTLS,
 * so sending servers can encrypt the session; without them it offers none (plain SMTP, as before).
 */
export async function startSmtpListener(deps: InboundDeps, listen: string, print: (l: string) => void, tls?: { cert: string; key: string }) {
  const m = /^(.*):(\d+)$/.exec(listen);
  const host = m ? m[1].replace(/^\[|\]$/g, '') : '0.0.0.0';
  const port = Number(m ? m[2] : listen);
  // Loaded only where SVC_SMTP_LISTEN is set (docs/footprint.md).
  const { SMTPServer } = await import('smtp-server');
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(tls ? { secure: false, cert: tls.cert, key: tls.key } : {}),
    size: MAX_INBOUND_BYTES,
    logger: false,
    banner: 'svc inbound',
    onRcptTo(address, _session, cb) {
      if (!parseInboundAddress(address.address, deps.domain)) return cb(Object.assign(new Error('No such recipient here'), { responseCode: 550 }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if ((stream as any).sizeExceeded) return cb(Object.assign(new Error('Message too large'), { responseCode: 552 }));
        receive(
          deps,
          Buffer.concat(chunks),
          session.envelope.rcptTo.map((r) => r.address),
        ).then(
          () => cb(),
          (e) => {
            deps.log.error('inbound mail failed', errorFields(e));
            cb(Object.assign(new Error('Try again later'), { responseCode: 451 }));
          },
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.server.address() as { port: number }).port;
  print(`inbox: SMTP for ${deps.domain} on ${host}:${bound}${tls ? ' (STARTTLS offered)' : ''}`);
  return { port: bound, stop: () => new Promise<void>((r) => server.close(() => r())) };
}
