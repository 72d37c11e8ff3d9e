import { useState } from 'preact/hooks';
import { api, ErrorLine, Field, PageHeader, ResourceTable, Select, useAction, useConsole, useResource } from '../../../console/src/kit';

interface Member {
  user_id: string;
  email: string;
  name: string;
  role: string;
  created_at: string;
}
const ROLES = ['owner', 'admin', 'approver', 'staff', 'viewer'];

/** Settings → Members: the people of the store; owners and admins invite, change roles, remove. */
export function MembersPage() {
  const c = useConsole();
  const manages = c.role === 'owner' || c.role === 'admin';
  const roles = c.role === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner');
  const listed = useResource<{ data: Member[] }>('/members');
  const members = listed.data?.data;
  const load = listed.reload;
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('staff');
  const [link, setLink] = useState<string | null>(null);
  const act = useAction();
  const change = (m: Member, to: string) =>
    act.run(async () => {
      const r = await api('PATCH', `/members/${m.user_id}`, { role: to });
      if (!r.ok) act.setError(r.error);
      await load();
    });
  const remove = (m: Member) =>
    act.run(async () => {
      if (!confirm(`Remove ${m.email} from ${c.store.name}?`)) return;
      const r = await api('DELETE', `/members/${m.user_id}`);
      if (!r.ok) return act.setError(r.error);
      await load();
    });
  const invite = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const r = await api('POST', '/invitations', { email, role });
      if (!r.ok) return act.setError(r.error);
      setLink(r.body.url);
      setEmail('');
    });
  };
  const editable = (m: Member) => manages && m.user_id !== c.session.user.id && (m.role !== 'owner' || c.role === 'owner');
  return (
    <>
      <PageHeader title="Members" />
      <ErrorLine error={act.error ?? listed.error} />
      {members && (
        <ResourceTable
          label="Members"
          rows={members}
          rowKey={(m) => m.user_id}
          columns={[
            {
              title: 'Person',
              cell: (m) => (
                <>
                  {m.name || m.email}
                  {m.name && <div class="sub">{m.email}</div>}
                </>
              ),
            },
            {
              title: 'Role',
              cell: (m) =>
                editable(m) ? (
                  <select
                    aria-label={`Role of ${m.email}`}
                    value={m.role}
                    disabled={act.busy}
                    onChange={(e) => change(m, (e.target as HTMLSelectElement).value)}
                  >
                    {roles.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                ) : (
                  m.role
                ),
            },
            { title: 'Since', cell: (m) => new Date(m.created_at).toLocaleDateString() },
            manages && {
              title: 'Actions',
              cell: (m) =>
                editable(m) && (
                  <button class="danger" disabled={act.busy} onClick={() => remove(m)} aria-label={`Remove ${m.email}`}>
                    Remove
                  </button>
                ),
            },
          ]}
        />
      )}
      {manages && (
        <>
          <h2>Invite someone</h2>
          {link && (
            <div class="secret" role="status">
              <p>Send this invitation link (shown once; it works for 7 days):</p>
              <label>
                <span class="visually-hidden">Invitation link</span>
                <input readOnly class="mono" value={link} />
              </label>
            </div>
          )}
          <form class="form" onSubmit={invite}>
            <Field label="Email" type="email" value={email} onValue={setEmail} required autoComplete="off" />
            <Select label="Role" value={role} onValue={setRole} options={roles} />
            <button class="primary" type="submit" disabled={act.busy}>
              Invite
            </button>
          </form>
        </>
      )}
    </>
  );
}
