import type { Db } from '../../core/sdk';

/** What other plugins (the shared inbox) may use of email: the sending pipeline and inbound addresses. */
export { sendEmail, checkAddress, type SendExtras } from './send';
export { recordReport } from './reports';
export { parseInboundAddress, threadAddress, storeInboxAddress, type InboundAddress } from './links';
export { SendInput, Message } from './schemas';
export { emailSettings, type EmailSettings } from './config';

/** The Message-ID header a sent message went out under: a reply in a thread quotes it. */
export async function messageIdHeader(db: Db, messageId: string): Promise<string> {
  const [m] = await db.query<{ message_id_header: string }>('SELECT message_id_header FROM email_messages WHERE id = $1', [messageId]);
  return m.message_id_header;
}
