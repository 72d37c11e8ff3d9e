/**
 * The bench's SMTP relay in a process of its own (bench/email.ts starts it): it stands for an
 * outside service, so its CPU must not count as svc's. It prints `READY <port>` (bench/child.ts),
 * then `RECEIVED <messages> <unsigned>` as messages arrive (at most every 20 ms), where
 * `unsigned` counts messages without a DKIM-Signature header.
 */
import { startRelay } from '../test/kit/email';
import { announce } from './child';

const relay = await startRelay();
announce(relay.port);
let unsigned = 0;
let counted = 0;
let reported = -1;
setInterval(() => {
  for (; counted < relay.received.length; counted++) {
    if (!relay.received[counted].raw.includes('DKIM-Signature:')) unsigned++;
    relay.received[counted].raw = ''; // the bench keeps counts, not the messages
  }
  if (counted !== reported) {
    reported = counted;
    console.log(`RECEIVED ${counted} ${unsigned}`);
  }
}, 20);
process.on('SIGTERM', () => relay.stop().then(() => process.exit(0)));
