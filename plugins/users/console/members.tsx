import { useState } from 'preact/hooks';
import {
  api,
  ErrorLine,
  Field,
  PageHeader,
  ResourceTable,
  Select,
  useAction,
  useConsole,
  useResource,
  type Body,
  type Item,
} from '../../../console/src/kit';

type Member = Item<'/members'>;
type Role = Body<'PATCH', '/members/{user_id}'>['role'] & string;

/** Settings → Members: the people of the store; owners and admins invite, change roles, remove. */
export function MembersPage() {
  const c = useConsole();
  // The roles this user may give (the token's answer): none for a member who manages no one.
  const roles = c.assignableRoles as Role[];
  const manages = c.may('users.update_member') && roles.length > 0;
  const listed = useResource('/members');
  const members = listed.data?.data;
  const load = listed.reload;
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>(roles[roles.length - 1]); // the least a new member may hold
  const [link, setLink] = useState<string | null>(null);
  const act = useAction();
  const change = (m: Member, to: Role) =>
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
  // Another member, holding a role this user may give (so may take away): only owners touch owners.
  const editable = (m: Member) => manages && m.user_id !== c.session.user.id && roles.includes(m.role as Role);
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
                    onChange={(e) => change(m, (e.target as HTMLSelectElement).value as Role)}
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
