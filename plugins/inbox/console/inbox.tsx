import { useEffect, useState } from 'preact/hooks';
import {
  api,
  ErrorLine,
  Notice,
  PageHeader,
  ResourceList,
  Select,
  Status,
  TextArea,
  useAction,
  useConsole,
  useCursorList,
  useResource,
  when,
  type Answer,
  type Item,
  type Query,
} from '../../../console/src/kit';

type Member = Item<'/members'>;
type ThreadStatus = NonNullable<Query<'/email/threads'>['status']>;

/** The shared inbox (issue 28): customer threads; one thread's messages, reply, assign, close. */
export function InboxPage() {
  const c = useConsole();
  return c.arg ? <ThreadView id={c.arg} /> : <Threads />;
}

/** Where the store's mail is forwarded to, so a merchant can point support@ at it. */
function InboxAddress() {
  const { data } = useResource('/email/inbox');
  if (!data) return null;
  return data.inbox_address ? (
    <p class="inbox-address">
      Forward your shop's support mail to <code>{data.inbox_address}</code>: each conversation becomes a thread here.
    </p>
  ) : (
    <p class="inbox-address sub">No inbox address yet: the server needs SVC_EMAIL_INBOUND_DOMAIN for mail to arrive.</p>
  );
}

function Threads() {
  const [status, setStatus] = useState<ThreadStatus | ''>('open');
  // A status picked is applied at once (no submit button): the list reloads with it.
  const list = useCursorList('/email/threads', { status }, { limit: 50, watch: [status] });
  return (
    <>
      <PageHeader title="Inbox" />
      <InboxAddress />
      <div class="filters">
        <Select label="Status" value={status} onValue={setStatus} options={['open', 'closed', ['', 'any']]} />
      </div>
      <ResourceList
        list={list}
        label="Threads"
        empty="No threads."
        columns={[
          {
            title: 'Subject',
            cell: (t) => (
              <>
                <a href={`#/inbox/${t.id}`}>{t.subject || '(no subject)'}</a>
                {t.assigned_to === null && <div class="sub">unassigned</div>}
              </>
            ),
          },
          { title: 'Customer', cell: (t) => t.customer_email },
          { title: 'Messages', num: true, cell: (t) => t.message_count },
          { title: 'Status', cell: (t) => <Status status={t.status} tone={t.status === 'open' ? 'pending_approval' : 'success'} /> },
          { title: 'Last message', cell: (t) => when(t.last_message_at) },
        ]}
      />
    </>
  );
}

function ThreadView({ id }: { id: string }) {
  const c = useConsole();
  const writable = c.may('inbox.reply');
  const path = `/email/threads/${encodeURIComponent(id)}` as const;
  const { data: thread, error, reload: load } = useResource(path);
  const [members, setMembers] = useState<Member[]>([]);
  const [text, setText] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const act = useAction();
  useEffect(() => {
    if (c.may('users.list_members')) api('GET', '/members').then((r) => r.ok && setMembers(r.body.data));
  }, [id]);
  const post = (send: () => Promise<Answer<unknown>>, done: string) =>
    act.run(async () => {
      const r = await send();
      if (!r.ok) return act.setError(r.error);
      setNote(done);
      await load();
      return true;
    });
  const reply = async (e: Event) => {
    e.preventDefault();
    if (await post(() => api('POST', `${path}/reply`, { text }), 'Reply queued for delivery.')) setText('');
  };
  const nameOf = (userId: string | null) => {
    const m = members.find((x) => x.user_id === userId);
    return userId === null ? 'nobody' : m ? m.name || m.email : userId;
  };
  return (
    <>
      <PageHeader title={thread?.subject || 'Thread'}>
        <a href="#/inbox">Back to the inbox</a>
      </PageHeader>
      {note && <Notice>{note}</Notice>}
      <ErrorLine error={act.error ?? error} />
      {thread && (
        <>
          <dl class="facts">
            <dt>Customer</dt>
            <dd>{thread.customer_email}</dd>
            <dt>Status</dt>
            <dd>{thread.status}</dd>
            <dt>Assigned to</dt>
            <dd>{nameOf(thread.assigned_to)}</dd>
          </dl>
          {writable && (
            <div class="filters">
              <Select
                label="Assign to"
                value={thread.assigned_to ?? ''}
                onValue={(v) =>
                  void post(() => api('POST', `${path}/assign`, { assigned_to: v || null }), v ? `Assigned to ${nameOf(v)}.` : 'Unassigned.')
                }
                options={[['', 'nobody'], ...members.map((m): [string, string] => [m.user_id, m.name || m.email])]}
              />
              {thread.status === 'open' && (
                <button disabled={act.busy} onClick={() => post(() => api('POST', `${path}/close`, {}), 'Thread closed.')}>
                  Close thread
                </button>
              )}
            </div>
          )}
          <ol class="cards thread">
            {thread.messages.map((m) => (
              <li class="card" key={m.id}>
                <p class="sub">
                  {m.direction === 'inbound' ? 'From' : 'Reply by'} {m.from} · {when(m.created_at)}
                </p>
                <pre class="message-text">{m.text ?? '(HTML only)'}</pre>
              </li>
            ))}
          </ol>
          {writable && (
            <form class="form" onSubmit={reply}>
              <TextArea label="Reply" value={text} onValue={setText} rows={5} required />
              <button class="primary" type="submit" disabled={act.busy}>
                Send reply
              </button>
            </form>
          )}
        </>
      )}
    </>
  );
}
