import { useEffect, useState } from 'preact/hooks';
import { api, ErrorLine, Field, Notice, PageHeader, useAction, useConsole, when, type Resource } from '../../../console/src/kit';

type Domain = Resource<'/email/domains/{id}'>;

/** Which finding of a verification concerns a record (tracking has none: it is not required to send). */
const findingOf = (d: Domain, purpose: string) => (d as unknown as Record<string, string | undefined>)[purpose];

/** Sending domains (SPEC 2.10, 3.2): each DNS record to add, its verification state, Verify. */
export function EmailDomainsPage() {
  const c = useConsole();
  const writable = c.may('email.create_domain');
  const [list, setList] = useState<Domain[] | null>(null);
  const [domain, setDomain] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const act = useAction();
  const load = async () => {
    const r = await api('GET', '/email/domains?limit=100');
    if (r.ok) setList(r.body.data);
    else act.setError(r.error);
  };
  useEffect(() => void load(), []);
  const add = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const r = await api('POST', '/email/domains', { domain: domain.trim() });
      if (!r.ok) return act.setError(r.error);
      setDomain('');
      setNote(`${r.body.domain} added: publish its records, then verify.`);
      await load();
    });
  };
  const verify = (d: Domain) =>
    act.run(async () => {
      const r = await api('POST', `/email/domains/${encodeURIComponent(d.id)}/verify`, {});
      if (!r.ok) return act.setError(r.error);
      setNote(r.body.status === 'verified' ? `${d.domain} is verified.` : `${d.domain} is not verified yet: see each record.`);
      await load();
    });
  return (
    <>
      <PageHeader title="Email domains" />
      {note && <Notice>{note}</Notice>}
      <ErrorLine error={act.error} />
      {list && list.length === 0 && <p class="empty">No sending domains.</p>}
      <ul class="cards domains">
        {list?.map((d) => (
          <li class="card" key={d.id}>
            <h2>
              {d.domain} <span class={`status s-${d.status === 'verified' ? 'success' : 'pending_approval'}`}>{d.status}</span>
            </h2>
            <p class="sub">
              {d.verified_at ? `Verified ${when(d.verified_at)}` : d.checked_at ? `Last checked ${when(d.checked_at)}` : 'Not checked yet'}
            </p>
            <div class="table-wrap" tabIndex={0} role="region" aria-label={`DNS records of ${d.domain}`}>
              <table class="records">
                <thead>
                  <tr>
                    <th scope="col">Type</th>
                    <th scope="col">Name</th>
                    <th scope="col">Value</th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {d.dns_records.map((r) => (
                    <tr key={r.purpose}>
                      <td data-label="Type">{r.type}</td>
                      <td data-label="Name" class="mono">
                        {r.host}
                      </td>
                      <td data-label="Value" class="mono">
                        {r.value}
                      </td>
                      <td data-label="State">
                        {r.purpose}: {findingOf(d, r.purpose) ?? (r.purpose === 'tracking' ? 'optional' : 'not checked')}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {writable && (
              <button disabled={act.busy} onClick={() => verify(d)} aria-label={`Verify ${d.domain}`}>
                Verify
              </button>
            )}
          </li>
        ))}
      </ul>
      {writable && (
        <>
          <h2>Add a domain</h2>
          <form class="form" onSubmit={add}>
            <Field label="Domain" value={domain} onValue={setDomain} required hint="The domain mail is sent from, e.g. mail.example.com." />
            <button class="primary" type="submit" disabled={act.busy}>
              Add domain
            </button>
          </form>
        </>
      )}
    </>
  );
}
