import { action, definePlugin, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_inbox.sql' with { type: 'text' };
import { receiveAction } from './http-inbound';
import { AssignInput, InboxSettings, NoInput, ReplyInput, Thread, ThreadDetail, ThreadId, ThreadList, ThreadQuery, ThreadUpdate } from './schemas';
import { emailSettings, Message } from '../email/public';
import { InboxConfig } from './config';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { startSmtpListener } = onFirstCall(() => import('./listener'));
const { createThread, getInbox, getThread, listThreads, reply, updateThread } = onFirstCall(() => import('./threads'));

/** A thread for the sweeps: no action makes one (mail does). */
const threadExample = async ({ ctx }: { ctx: { db: any; store: { id: string }; clock: { now(): Date } } }) => ({
  id: (await createThread(ctx.db, ctx.store.id, { subject: 'Where is my order?', customerEmail: 'ada@example.com' }, ctx.clock.now())).id,
});

/**
 * The shared inbox (issue 28): customer mail arriving by the built-in SMTP listener or a relay's
 * signed POST, threaded, assigned to members and answered through the email pipeline.
 */
/** The listener's certificate and key, read at start-up; one without the other is a setting error. */
async function tlsFiles(cert: string | undefined, key: string | undefined) {
  if (!cert && !key) return undefined;
  if (!cert || !key) throw new Error('inbox: SVC_SMTP_TLS_CERT and SVC_SMTP_TLS_KEY go together (STARTTLS needs both); set both or neither.');
  return { cert: await Bun.file(cert).text(), key: await Bun.file(key).text() };
}

export default definePlugin({
  name: 'inbox',
  category: 'marketing',
  description: 'The shared inbox: customer email threads; read, assign, close and reply.',
  resource: 'email thread',
  requires: ['email', 'customers', 'users'],
  scopes: { read: ['inbox', 'inbox:read', 'inbox:write'], write: ['inbox', 'inbox:write'] },
  config: InboxConfig,
  tables: ['email_threads', 'email_thread_messages'],
  migrations: [{ id: 'inbox/001_inbox', sql: migration001 }],
  start: async ({ db, clock, log, config, registry, print }) => {
    if (!config.smtp_listen) return;
    const domain = emailSettings(registry).inbound_domain;
    if (!domain) return void print('inbox: SVC_SMTP_LISTEN is set but SVC_EMAIL_INBOUND_DOMAIN is not: the SMTP listener is off.');
    return startSmtpListener(
      { db, clock, log, domain, registry },
      config.smtp_listen,
      print,
      await tlsFiles(config.smtp_tls_cert, config.smtp_tls_key),
    );
  },
  actions: {
    get_inbox: action({
      kind: 'read',
      description:
        "The store's inbox address (forward support@ of the shop to it: each conversation becomes a thread) and how many threads are open.",
      input: NoInput,
      output: InboxSettings,
      rest: { method: 'GET', path: '/email/inbox' },
      handler: getInbox,
    }),
    list_threads: action({
      kind: 'read',
      description: 'List email threads with customers, newest first; filter by status (open, closed).',
      input: ThreadQuery,
      output: ThreadList,
      rest: { method: 'GET', path: '/email/threads' },
      handler: listThreads,
    }),
    get_thread: action({
      kind: 'read',
      description: 'One thread with its messages, oldest first.',
      input: ThreadId,
      output: ThreadDetail,
      rest: { method: 'GET', path: '/email/threads/:id' },
      example: threadExample,
      handler: (ctx, { id }) => getThread(ctx, id),
    }),
    update_thread: action({
      kind: 'write',
      description: 'Change the status (open, closed) or the assignee (a member, or null) of a thread.',
      input: ThreadUpdate,
      output: Thread,
      rest: { method: 'PATCH', path: '/email/threads/:id' },
      example: async (kit) => ({ ...(await threadExample(kit as any)), status: 'closed' as const }),
      handler: updateThread,
    }),
    reply: action({
      kind: 'write',
      description: 'Answer the customer of a thread by email (threaded in their mail client).',
      input: ReplyInput,
      output: Message,
      rest: { method: 'POST', path: '/email/threads/:id/reply' },
      errors: ['rate_limit_exceeded', 'provider_not_configured'],
      example: async (kit) => ({ ...(await threadExample(kit as any)), text: 'It ships today.' }),
      handler: reply,
    }),
    assign: action({
      kind: 'write',
      description: 'Assign a thread to a member of the store (user id), or unassign it with null.',
      input: AssignInput,
      output: Thread,
      rest: { method: 'POST', path: '/email/threads/:id/assign' },
      example: async (kit) => ({ ...(await threadExample(kit as any)), assigned_to: null }),
      handler: (ctx, input) => updateThread(ctx, input),
    }),
    close: action({
      kind: 'write',
      description: 'Close a thread (new mail from the customer reopens it).',
      input: ThreadId,
      output: Thread,
      rest: { method: 'POST', path: '/email/threads/:id/close' },
      example: threadExample,
      handler: (ctx, { id }) => updateThread(ctx, { id, status: 'closed' }),
    }),
    receive_email: receiveAction,
  },
});
