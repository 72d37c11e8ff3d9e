import { useState } from 'preact/hooks';
import {
  ErrorLine,
  Field,
  FilterForm,
  Json,
  PageHeader,
  ResourceList,
  Select,
  Status,
  useConsole,
  useCursorList,
  useResource,
  valuesOf,
  when,
  type Query,
} from '../../../console/src/kit';

type MessageStatus = NonNullable<Query<'/email/messages'>['status']>;
const STATUSES = valuesOf<MessageStatus>({ queued: true, sending: true, delivered: true, bounced: true, failed: true, suppressed: true });
const tone = (s: string) => (s === 'delivered' ? 'success' : s === 'queued' || s === 'sending' ? 'pending_approval' : 'error');

/** Sent email (SPEC 2.10, 4.8): the list with status, tag and recipient filters; one message with its event timeline. */
export function EmailMessagesPage() {
  const c = useConsole();
  return c.arg ? <Detail id={c.arg} /> : <Messages />;
}

function Messages() {
  const [status, setStatus] = useState<MessageStatus | ''>('');
  const [tag, setTag] = useState('');
  const [to, setTo] = useState('');
  const list = useCursorList('/email/messages', { status, tag: tag.trim(), to: to.trim() }, { limit: 50 });
  return (
    <>
      <PageHeader title="Email messages" />
      <FilterForm onSubmit={list.reload}>
        <Select label="Status" value={status} onValue={setStatus} options={[['', 'any'], ...STATUSES]} />
        <Field label="Tag" value={tag} onValue={setTag} />
        <Field label="To" type="search" value={to} onValue={setTo} />
      </FilterForm>
      <ResourceList
        list={list}
        label="Email messages"
        empty="No messages."
        columns={[
          { title: 'Subject', cell: (m) => <a href={`#/email-messages/${m.id}`}>{m.subject || '(no subject)'}</a> },
          { title: 'To', cell: (m) => m.to.join(', ') },
          { title: 'Status', cell: (m) => <Status status={m.status} tone={tone(m.status)} /> },
          { title: 'Tags', class: 'scopes', cell: (m) => m.tags.join(' ') },
          { title: 'Created', cell: (m) => when(m.created_at) },
        ]}
      />
    </>
  );
}

function Detail({ id }: { id: string }) {
  const path = `/email/messages/${encodeURIComponent(id)}` as const;
  const { data: m, error } = useResource(path);
  const timeline = useResource(`${path}/events`);
  const events = timeline.data?.data;
  return (
    <>
      <PageHeader title={m?.subject || 'Email message'}>
        <a href="#/email-messages">Back to messages</a>
      </PageHeader>
      <ErrorLine error={error ?? timeline.error} />
      {m && (
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <Status status={m.status} tone={tone(m.status)} />
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
