import { randomBytes } from 'node:crypto';

/**
 * The MIME text of the messages svc sends most: plain addresses, ASCII header values, a text and/or
 * an HTML body, no attachments. nodemailer's composer builds a node tree, normalizes every header
 * name with several regular expressions and streams the result; for these messages that cost
 * about a third of the RSA signature (README, Email benchmark). Anything else (attachments,
 * non-ASCII header values that need encoded words, an overlong header) answers undefined, and the
 * caller composes with nodemailer. mime.test.ts checks that mailparser reads both alike.
 */
export interface SimpleMail {
  from: string;
  to: string[];
  replyTo?: string;
  subject: string;
  text?: string;
  html?: string;
  messageId: string;
  /** The Date header: the sending job's clock (nodemailer's composer reads the same field). */
  date: Date;
  headers: Record<string, string>;
  attachments: unknown[];
}

// The fields this composer writes itself: a caller's header of the same name goes to nodemailer.
const OWN = new Set(['from', 'to', 'reply-to', 'subject', 'message-id', 'date', 'mime-version', 'content-type', 'content-transfer-encoding']);
const PLAIN_HEADER_VALUE = /^[\x20-\x7e]*$/;
const PLAIN_NAME = /^[\x21-\x39\x3b-\x7e]+$/;

/**
 * `Name: value`, folded where the value has a space (a line break goes in before it, so unfolding
 * gives the value back) to keep lines within 78 characters where a space allows.
 */
function field(name: string, value: string): string | undefined {
  if (!PLAIN_HEADER_VALUE.test(value)) return undefined;
  const whole = `${name}: ${value}`;
  if (whole.length <= 78) return `${whole}\r\n`;
  // Each piece is a word with the spaces before it (and any after the last word).
  const pieces = value.match(/ *[^ ]+ *$| *[^ ]+/g) ?? [];
  const lines: string[] = [];
  let line = `${name}:`;
  pieces.forEach((piece, i) => {
    const next = i === 0 ? ` ${piece}` : piece;
    if (i > 0 && line.length + next.length > 78) {
      lines.push(line);
      line = next;
    } else line += next;
  });
  lines.push(line);
  if (lines.some((l) => l.length > 998)) return undefined; // RFC 5322's hard limit
  return `${lines.join('\r\n')}\r\n`;
}

const HEX = Array.from({ length: 256 }, (_, b) => `=${b.toString(16).toUpperCase().padStart(2, '0')}`);
const PLAIN_LINE = /^[\x21-\x3c\x3e-\x7e](?:[\x20-\x3c\x3e-\x7e]{0,74}[\x21-\x3c\x3e-\x7e])?$/;

/** Quoted-printable (RFC 2045 6.7) of one line of UTF-8 text, soft-broken at 76 characters. */
function qpLine(line: string): string {
  if (line === '' || PLAIN_LINE.test(line)) return line;
  const bytes = Buffer.from(line, 'utf8');
  let out = '';
  let width = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    const literal = (b >= 33 && b <= 126 && b !== 61) || ((b === 32 || b === 9) && i < bytes.length - 1);
    const token = literal ? String.fromCharCode(b) : HEX[b];
    if (width + token.length > 75) {
      out += '=\r\n';
      width = 0;
    }
    out += token;
    width += token.length;
  }
  return out;
}

const quotedPrintable = (text: string) =>
  text
    .split(/\r?\n|\r/)
    .map(qpLine)
    .join('\r\n');

const part = (type: string, body: string) =>
  `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n${quotedPrintable(body)}`;

/** RFC 5322 date-time in UTC. */
const dateOf = (d: Date) => d.toUTCString().replace(/GMT$/, '+0000');

/** The message's MIME text, or undefined when it needs nodemailer's composer. */
export function composeSimple(mail: SimpleMail): Buffer | undefined {
  if (mail.attachments.length || (mail.text === undefined && mail.html === undefined)) return undefined;
  const fields = [
    field('From', mail.from),
    field('To', mail.to.join(', ')),
    mail.replyTo === undefined ? '' : field('Reply-To', mail.replyTo),
    field('Subject', mail.subject),
    field('Message-ID', mail.messageId),
    field('Date', dateOf(mail.date)),
    'MIME-Version: 1.0\r\n',
  ];
  for (const [name, value] of Object.entries(mail.headers)) {
    if (!PLAIN_NAME.test(name) || OWN.has(name.toLowerCase())) return undefined;
    fields.push(field(name, value));
  }
  if (fields.some((f) => f === undefined)) return undefined;
  const head = fields.join('');
  if (mail.text === undefined || mail.html === undefined) {
    const body = mail.html === undefined ? part('text/plain', mail.text!) : part('text/html', mail.html);
    return Buffer.from(`${head}${body}\r\n`, 'latin1');
  }
  const boundary = `--_svc_${randomBytes(12).toString('hex')}`;
  return Buffer.from(
    `${head}Content-Type: multipart/alternative; boundary="${boundary}"\r\n\r\n` +
      `--${boundary}\r\n${part('text/plain', mail.text)}\r\n` +
      `--${boundary}\r\n${part('text/html', mail.html)}\r\n` +
      `--${boundary}--\r\n`,
    'latin1',
  );
}
