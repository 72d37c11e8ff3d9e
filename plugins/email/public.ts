import { onFirstCall, type Db } from '../../core/sdk';

/**
 * What other plugins (the shared inbox) may use of email: the sending pipeline and inbound addresses.
 * The sending pipeline (send.ts and all it imports) and reports.ts are loaded at their first call, not
 * when a plugin importing this file starts (plugins/README.md).
 */
export const { sendEmail } = onFirstCall(() => import('./send'));
export const { recordReport } = onFirstCall(() => import('./reports'));
export type { SendExtras } from './send';
export { checkAddress } from './address';
export { parseInboundAddress, threadAddress, storeInboxAddress, type InboundAddress } from './links';
export { SendInput, Message } from './schemas';
export { emailSettings, type EmailSettings } from './config';

/** The Message-ID header a sent message went out under: a reply in a thread quotes it. */
export async function messageIdHeader(db: Db, messageId: string): Promise<string> {
  const [m] = await db.query<{ message_id_header: string }>('SELECT message_id_header FROM email_messages WHERE id = $1', [messageId]);
  return m.message_id_header;
}

/** Which of `addresses` the store must not mail (bounced, complained, unsubscribed), lower case: campaigns skip them before sending. */
export async function suppressedAmong(db: Db, storeId: string, addresses: readonly string[]): Promise<Set<string>> {
  if (!addresses.length) return new Set();
  const rows = await db.query<{ address: string }>('SELECT address FROM email_suppressions WHERE store_id = $1 AND address = ANY($2::text[])', [
    storeId,
    addresses.map((a) => a.toLowerCase()),
  ]);
  return new Set(rows.map((r) => r.address));
}

/**
 * A message's first events as an SQL source (`LEFT JOIN LATERAL ${messageFirstsSql('r.message_id')} ev ON true`):
 * columns delivered_at, opened_at (machine opens left out), clicked_at, bounced_at, unsubscribed_at,
 * each null until it happened. Campaigns' metrics read their messages' events through it.
 */
export const messageFirstsSql = (messageId: string) =>
  `(SELECT min(e.created_at) FILTER (WHERE e.event = 'delivered') AS delivered_at,
      min(e.created_at) FILTER (WHERE e.event = 'opened' AND NOT e.machine) AS opened_at,
      min(e.created_at) FILTER (WHERE e.event = 'clicked') AS clicked_at,
      min(e.created_at) FILTER (WHERE e.event = 'bounced') AS bounced_at,
      min(e.created_at) FILTER (WHERE e.event = 'unsubscribed') AS unsubscribed_at
    FROM email_events e WHERE e.message_id = ${messageId})`;
