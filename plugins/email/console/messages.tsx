import { useEffect, useState } from 'preact/hooks';
import { api, ErrorLine, Field, Json, PageHeader, Select, useConsole, when } from '../../../console/src/kit';

interface Message {
  id: string;
  to: string[];
  from: string;
  subject: string;
  status: string;
  category: string;
  template_id: string | null;
  template_version: number | null;
  tags: string[];
  smtp_response: string | null;
  warning?: string;
  created_at: string;
}
interface MessageEvent {
  event: string;
  timestamp: string;
  details: Record<string, unknown>;
}

const STATUSES = ['queued', 'sending', 'delivered', 'bounced', 'failed', 'suppressed'];
const tone = (s: string) => (s === 'delivered' ? 'success' : s === 'queued' || s === 'sending' ? 'pending_approval' : 'error');

/** Sent email (SPEC 2.10, 4.8): the list with status, tag and recipient filters; one message with its event timeline. */
export function EmailMessagesPage() {
  const c = useConsole();
  return c.arg ? <Detail id={c.arg} /> : <Messages />;
}

function Messages() {
  const [list, setList] = useState<Message[] | null>(null);
  const [status, setStatus] = useState('');
  const [tag, setTag] = useState('');
  const [to, setTo] = useState('');
  const [error, setError] = useState<any>(null);
  const load = async () => {
    const q = new URLSearchParams({ limit: '50' });
    if (status) q.set('status', status);
    if (tag.trim()) q.set('tag', tag.trim());
    if (to.trim()) q.set('to', to.trim());
    const r = await api('GET', `/email/messages?${q}`);
    if (r.ok) {
      setList(r.body.data);
      setError(null);
    } else setError(r.error);
  };
  useEffect(() => void load(), []);
  return (
    <>
      <PageHeader title="Email messages" />
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <Select label="Status" value={status} onValue={setStatus} options={[['', 'any'], ...STATUSES]} />
        <Field label="Tag" value={tag} onValue={setTag} />
        <Field label="To" type="search" value={to} onValue={setTo} />
        <button type="submit">Filter</button>
      </form>
      <ErrorLine error={error} />
      {list && list.length === 0 && <p class="empty">No messages.</p>}
      {list && list.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Email messages">
          <table>
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">To</th>
                <th scope="col">Status</th>
                <th scope="col">Tags</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.map((m) => (
                <tr key={m.id}>
                  <td>
                    <a href={`#/email-messages/${m.id}`}>{m.subject || '(no subject)'}</a>
                  </td>
                  <td>{m.to.join(', ')}</td>
                  <td>
                    <span class={`status s-${tone(m.status)}`}>{m.status}</span>
                  </td>
                  <td class="scopes">{m.tags.join(' ')}</td>
                  <td>{when(m.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function Detail({ id }: { id: string }) {
  const [m, setM] = useState<Message | null>(null);
  const [events, setEvents] = useState<MessageEvent[] | null>(null);
  const [error, setError] = useState<any>(null);
  useEffect(() => {
    const path = `/email/messages/${encodeURIComponent(id)}`;
    api<Message>('GET', path).then((r) => (r.ok ? setM(r.body) : setError(r.error)));
    api('GET', `${path}/events`).then((r) => (r.ok ? setEvents(r.body.data) : setError(r.error)));
  }, [id]);
  return (
    <>
      <PageHeader title={m?.subject || 'Email message'}>
        <a href="#/email-messages">Back to messages</a>
      </PageHeader>
      <ErrorLine error={error} />
      {m && (
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <span class={`status s-${tone(m.status)}`}>{m.status}</span>
          </dd>
          {m.warning && (
            <>
              <dt>Warning</dt>
              <dd>{m.warning}</dd>
            </>
          )}
          <dt>From</dt>
          <dd>{m.from}</dd>
          <dt>To</dt>
          <dd>{m.to.join(', ')}</dd>
          <dt>Category</dt>
          <dd>{m.category}</dd>
          <dt>Template</dt>
          <dd>{m.template_id ? <a href={`#/email-templates/${m.template_id}`}>version {m.template_version}</a> : '—'}</dd>
          <dt>Tags</dt>
          <dd>{m.tags.join(' ') || '—'}</dd>
          <dt>Relay answer</dt>
          <dd class="mono">{m.smtp_response ?? '—'}</dd>
          <dt>Created</dt>
          <dd>{when(m.created_at)}</dd>
        </dl>
      )}
      <h2>Events</h2>
      {events && events.length === 0 && <p class="empty">No events yet.</p>}
      <ol class="timeline">
        {events?.map((e, i) => (
          <li key={i}>
            <strong>{e.event}</strong> <span class="sub">{when(e.timestamp)}</span>
            {Object.keys(e.details).length > 0 && <Json value={e.details} />}
          </li>
        ))}
      </ol>
    </>
  );
}
