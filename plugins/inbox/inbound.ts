// mailparser is loaded at the first inbound message: a server that receives none never holds it (docs/footprint.md).
import type { ParsedMail, SimpleParserOptions } from 'mailparser';
import type { Clock, Db, EventTypes, Logger } from '../../core/sdk';
import { customerIdByEmail } from '../customers/public';
import { parseInboundAddress, recordReport, type InboundAddress } from '../email/public';
import { createThread } from './threads';

export interface InboundDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  /** SVC_EMAIL_INBOUND_DOMAIN: the domain whose addresses this instance answers for. */
  domain: string;
  /** The registry (a start's or ctx.registry): a bounce's or complaint's event reaches the plugins reacting to it. */
  registry: EventTypes;
}

export type Outcome = { outcome: 'bounced' | 'complained' | 'delayed' | 'threaded' | 'ignored'; thread_id?: string };

const addressesOf = (v: ParsedMail['to']) => (v ? (Array.isArray(v) ? v : [v]).flatMap((a) => a.value.map((x) => x.address ?? '')) : []);

/** The recipients to route by: the SMTP envelope when there is one, else the delivery headers. */
function recipients(mail: ParsedMail, envelope?: string[]): string[] {
  if (envelope?.length) return envelope;
  const headers = ['delivered-to', 'x-original-to'].flatMap((h) => {
    const v = mail.headers.get(h) as any;
    return v ? [typeof v === 'string' ? v : (v.value?.[0]?.address ?? v.text ?? '')] : [];
  });
  return [...headers, ...addressesOf(mail.to), ...addressesOf(mail.cc)].filter(Boolean);
}

/** `Name: value` fields of a report part (the message/delivery-status or feedback-report body). */
const fields = (text: string) => {
  const out: Record<string, string> = {};
  for (const line of text.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const m = /^([\w-]+):\s*(.*)$/.exec(line);
    if (m && !(m[1].toLowerCase() in out)) out[m[1].toLowerCase()] = m[2].trim();
  }
  return out;
};
const afterType = (v?: string) => v?.replace(/^[\w-]+;\s*/, '').replace(/^<|>$/g, '');

/** What a mail to a return path reports: a DSN (RFC 3464) or an ARF complaint (RFC 5965). */
function reportOf(mail: ParsedMail) {
  const part = (type: string) => mail.attachments.find((a) => a.contentType.toLowerCase() === type)?.content.toString('utf8');
  const feedback = part('message/feedback-report');
  if (feedback) {
    const f = fields(feedback);
    return { kind: 'complaint' as const, recipient: afterType(f['original-rcpt-to']), status: f['feedback-type'] };
  }
  const dsn = part('message/delivery-status') ?? part('message/global-delivery-status');
  if (!dsn) return null;
  const f = fields(
    dsn
      .split(/\r?\n\r?\n/)
      .slice(1)
      .join('\n') || dsn,
  );
  const action = (f.action ?? '').toLowerCase();
  const kind = action === 'failed' ? ('bounce' as const) : ('delay' as const);
  return {
    kind,
    recipient: afterType(f['final-recipient'] ?? f['original-recipient']),
    status: f.status,
    diagnostic: afterType(f['diagnostic-code']),
  };
}

/** Earlier messages this one answers (In-Reply-To, then References, newest first). */
function answered(mail: ParsedMail): string[] {
  const refs = Array.isArray(mail.references) ? mail.references : mail.references ? [mail.references] : [];
  return [...(mail.inReplyTo ? [mail.inReplyTo] : []), ...refs.reverse()];
}

/**
 * One inbound message: a report to a return path records a bounce or complaint; mail to a
 * thread's address, or answering a message of a thread, joins that thread; mail to a store's
 * inbox address starts a thread. Anything else is ignored (the caller decides how to answer).
 */
export async function receive(deps: InboundDeps, raw: Buffer | Uint8Array, envelope?: string[]): Promise<Outcome> {
  // keepDeliveryStatus: a DSN's report part stays a part (mailparser otherwise folds it into the text).
  const options = { skipImageLinks: true, skipTextToHtml: true, keepDeliveryStatus: true } as SimpleParserOptions;
  const { simpleParser } = await import('mailparser');
  const mail: ParsedMail = await simpleParser(Buffer.from(raw), options);
  const routed = recipients(mail, envelope)
    .map((a) => parseInboundAddress(a, deps.domain))
    .filter((a): a is InboundAddress => a !== null);
  const now = deps.clock.now();

  const verp = routed.find((a) => a.kind === 'verp');
  if (verp?.kind === 'verp') {
    const report = reportOf(mail);
    if (!report) return { outcome: 'ignored' };
    const recorded = await recordReport(deps.db, verp.messageId, report, now, deps.registry);
    return { outcome: recorded ?? (report.kind === 'delay' ? 'delayed' : 'ignored') };
  }

  const from = mail.from?.value[0]?.address?.toLowerCase();
  if (!from) return { outcome: 'ignored' };
  let thread: any;
  const toThread = routed.find((a) => a.kind === 'thread');
  if (toThread?.kind === 'thread') {
    [thread] = await deps.db.query('SELECT * FROM email_threads WHERE id = $1 AND reply_token = $2', [toThread.threadId, toThread.token]);
  }
  const toStore = routed.find((a) => a.kind === 'store');
  const storeId: string | undefined = thread?.store_id ?? (toStore?.kind === 'store' ? toStore.storeId : undefined);
  if (!storeId) return { outcome: 'ignored' };
  const [store] = await deps.db.query('SELECT id FROM stores WHERE id = $1', [storeId]);
  if (!store) return { outcome: 'ignored' };

  return deps.db.transaction(async (tx) => {
    const refs = answered(mail);
    if (!thread && refs.length) {
      [thread] = await tx.query(
        `SELECT t.* FROM email_thread_messages m JOIN email_threads t ON t.id = m.thread_id
         WHERE m.store_id = $1 AND m.message_id_header = ANY($2::text[]) ORDER BY m.seq DESC LIMIT 1`,
        [storeId, refs],
      );
    }
    if (!thread) {
      const customerId = await customerIdByEmail(tx, storeId, from);
      thread = await createThread(tx, storeId, { subject: (mail.subject ?? '(no subject)').slice(0, 998), customerEmail: from, customerId }, now);
    }
    await tx.query(
      `INSERT INTO email_thread_messages (id, store_id, thread_id, direction, message_id_header, from_address, subject, text, html, created_at)
       VALUES (gen_random_uuid(), $1, $2, 'inbound', $3, $4, $5, $6, $7, $8)`,
      [
        storeId,
        thread.id,
        mail.messageId ?? null,
        from,
        mail.subject ?? '',
        mail.text ?? null,
        typeof mail.html === 'string' ? mail.html : null,
        now,
      ],
    );
    // New mail reopens a closed thread: someone has to read it.
    await tx.query(
      `UPDATE email_threads SET message_count = message_count + 1, last_message_at = $2, status = 'open', updated_at = $2 WHERE id = $1`,
      [thread.id, now],
    );
    return { outcome: 'threaded' as const, thread_id: thread.id as string };
  });
}
