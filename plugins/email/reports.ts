import type { Db, EventTypes } from '../../core/sdk';
import { addEvent, suppress } from './messages';

/**
 * A bounce (DSN, RFC 3464) or complaint (ARF, RFC 5965) that came back to a message's VERP return
 * path: the message records `bounced` or `complained`, and its recipients are suppressed. A
 * delayed-delivery DSN changes nothing. Returns what was recorded. `registry` (the caller's, as in
 * ctx.registry) lets the `email.bounced` or `email.complained` event reach the plugins reacting to it.
 */
export async function recordReport(
  db: Db,
  messageId: string,
  report: { kind: 'bounce' | 'complaint' | 'delay'; recipient?: string; status?: string; diagnostic?: string },
  at: Date,
  registry: EventTypes,
): Promise<'bounced' | 'complained' | null> {
  if (report.kind === 'delay') return null;
  return db.transaction(async (tx) => {
    const [m] = await tx.query('SELECT * FROM email_messages WHERE id = $1 FOR UPDATE', [messageId]);
    if (!m) return null;
    const event = report.kind === 'bounce' ? 'bounced' : 'complained';
    const who = report.recipient ? [report.recipient] : (m.to_addresses as string[]);
    await suppress(tx, m.store_id, who, event, at);
    if (event === 'bounced') await tx.query(`UPDATE email_messages SET status = 'bounced', updated_at = $2 WHERE id = $1`, [m.id, at]);
    const details = Object.fromEntries(
      Object.entries({ recipient: report.recipient, status: report.status, diagnostic: report.diagnostic, source: 'report' }).filter(([, v]) => v),
    );
    await addEvent(tx, m, event, details, at, registry);
    return event;
  });
}
