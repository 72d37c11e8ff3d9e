import { useEffect, useState } from 'preact/hooks';
import { api, ErrorLine, Field, Json, Notice, PageHeader, Select, TextArea, useAction, useConsole } from '../../../console/src/kit';

interface Tool {
  id: string;
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  execution_type: 'http' | 'javascript';
  execution_config: Record<string, any>;
  requires_approval: boolean;
  secret_names: string[];
}

const json = (v: unknown) => JSON.stringify(v ?? {}, null, 2);
const SAMPLE_SCHEMA = { type: 'object', properties: { quantity: { type: 'integer' } }, required: ['quantity'] };

/** Custom tools (SPEC 2.5 Shape B): HTTP and JavaScript tools, a test run, and write-only secrets. */
export function CustomToolsPage() {
  const c = useConsole();
  return c.arg ? <Editor id={c.arg === 'new' ? undefined : c.arg} /> : <List />;
}

function List() {
  const c = useConsole();
  const [items, setItems] = useState<Tool[] | null>(null);
  const [error, setError] = useState<any>(null);
  useEffect(() => {
    api('GET', '/tools').then((r) => (r.ok ? setItems(r.body.data) : setError(r.error)));
  }, []);
  return (
    <>
      <PageHeader title="Custom tools">
        {c.can('ai:write') && (
          <a class="button primary" href="#/custom-tools/new">
            New tool
          </a>
        )}
      </PageHeader>
      <ErrorLine error={error} />
      {items && items.length === 0 && <p class="empty">No custom tools.</p>}
      {items && items.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Custom tools">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Approval</th>
              </tr>
            </thead>
            <tbody>
              {items.map((t) => (
                <tr key={t.id}>
                  <td>
                    <a href={`#/custom-tools/${t.id}`}>{t.name}</a>
                    <div class="sub">{t.description}</div>
                  </td>
                  <td>{t.execution_type}</td>
                  <td>{t.requires_approval ? 'required' : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function Editor({ id }: { id?: string }) {
  const c = useConsole();
  const writable = c.can('ai:write');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [kind, setKind] = useState<'http' | 'javascript'>('javascript');
  const [schema, setSchema] = useState(json(SAMPLE_SCHEMA));
  const [code, setCode] = useState('return { ordered: params.quantity };');
  const [url, setUrl] = useState('');
  const [method, setMethod] = useState('POST');
  const [headers, setHeaders] = useState('{}');
  const [approval, setApproval] = useState(false);
  const [secretNames, setSecretNames] = useState<string[]>([]);
  const [note, setNote] = useState<string | null>(null);
  const act = useAction();
  useEffect(() => {
    if (!id) return;
    api<Tool>('GET', `/tools/${encodeURIComponent(id)}`).then((r) => {
      if (!r.ok) return act.setError(r.error);
      const t = r.body;
      setName(t.name);
      setDescription(t.description);
      setKind(t.execution_type);
      setSchema(json(t.parameters));
      setApproval(t.requires_approval);
      setSecretNames(t.secret_names ?? []);
      if (t.execution_type === 'javascript') setCode(t.execution_config.code ?? '');
      else {
        setUrl(t.execution_config.url ?? '');
        setMethod(t.execution_config.method ?? 'POST');
        setHeaders(json(t.execution_config.headers));
      }
    });
  }, [id]);
  const parse = (text: string, what: string) => {
    try {
      return JSON.parse(text || '{}');
    } catch {
      throw new Error(`${what} must be JSON.`);
    }
  };
  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const execution_config = kind === 'javascript' ? { code } : { url, method, headers: parse(headers, 'Headers') };
      const body = {
        name,
        description,
        parameters: parse(schema, 'The input schema'),
        execution_type: kind,
        execution_config,
        requires_approval: approval,
      };
      const r = id ? await api<Tool>('PATCH', `/tools/${id}`, body) : await api<Tool>('POST', '/tools', body);
      if (!r.ok) return act.setError(r.error);
      setNote('Saved.');
      if (!id) c.go(`custom-tools/${r.body.id}`);
    });
  };
  return (
    <>
      <PageHeader title={id ? `Tool: ${name}` : 'New custom tool'}>
        <a href="#/custom-tools">Back to custom tools</a>
      </PageHeader>
      {note && <Notice>{note}</Notice>}
      <form class="form" onSubmit={save}>
        <fieldset disabled={!writable || act.busy}>
          <Field label="Name" value={name} onValue={setName} required pattern="[a-z][a-z0-9_]*" hint="snake_case" />
          <Field label="Description" value={description} onValue={setDescription} required hint="Shown to the agent to decide when to use it." />
          <Select
            label="Kind"
            value={kind}
            onValue={(v) => setKind(v as 'http' | 'javascript')}
            options={[
              ['javascript', 'JavaScript (sandboxed)'],
              ['http', 'HTTP request'],
            ]}
          />
          <TextArea label="Input schema (JSON Schema)" value={schema} onValue={setSchema} rows={6} class="code" spellcheck={false} />
          {kind === 'javascript' ? (
            <TextArea
              label="Code (the input is `params`; return the result)"
              value={code}
              onValue={setCode}
              rows={10}
              class="code"
              spellcheck={false}
            />
          ) : (
            <>
              <Field label="URL" type="url" value={url} onValue={setUrl} required />
              <Select label="Method" value={method} onValue={setMethod} options={['POST', 'GET', 'PUT', 'PATCH', 'DELETE']} />
              <TextArea label="Headers (JSON; secrets as {{NAME}})" value={headers} onValue={setHeaders} rows={3} class="code" spellcheck={false} />
            </>
          )}
          <label class="check">
            <input type="checkbox" checked={approval} onChange={() => setApproval(!approval)} /> Every call waits for approval
          </label>
        </fieldset>
        <ErrorLine error={act.error} />
        {writable && (
          <button class="primary" type="submit" disabled={act.busy}>
            {id ? 'Save tool' : 'Create tool'}
          </button>
        )}
      </form>
      {id && <TestRun id={id} />}
      {id && writable && <Secrets id={id} names={secretNames} onSaved={setSecretNames} />}
    </>
  );
}

function TestRun({ id }: { id: string }) {
  const [input, setInput] = useState('{\n  "quantity": 2\n}');
  const [result, setResult] = useState<unknown>(undefined);
  const act = useAction();
  const run = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      let parameters: unknown;
      try {
        parameters = JSON.parse(input || '{}');
      } catch {
        return act.setError('The test input must be JSON.');
      }
      const r = await api('POST', `/tools/${id}/test`, { parameters });
      if (!r.ok) return act.setError(r.error);
      setResult(r.body);
    });
  };
  return (
    <section aria-labelledby="test-run">
      <h2 id="test-run">Test run</h2>
      <form class="form" onSubmit={run}>
        <TextArea label="Input" value={input} onValue={setInput} rows={4} class="code" spellcheck={false} />
        <button type="submit" disabled={act.busy}>
          Run
        </button>
      </form>
      <ErrorLine error={act.error} />
      {result !== undefined && <Json value={result} />}
    </section>
  );
}

/** Write-only: names are listed, values never come back. Saving replaces the whole set. */
function Secrets({ id, names, onSaved }: { id: string; names: string[]; onSaved: (n: string[]) => void }) {
  const [rows, setRows] = useState<{ name: string; value: string }[]>([{ name: '', value: '' }]);
  const act = useAction();
  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const set = Object.fromEntries(rows.filter((r) => r.name).map((r) => [r.name, r.value]));
      const r = await api('PUT', `/tools/${id}/secrets`, set);
      if (!r.ok) return act.setError(r.error);
      onSaved(r.body.names ?? Object.keys(set));
      setRows([{ name: '', value: '' }]);
    });
  };
  const update = (i: number, part: 'name' | 'value', v: string) => setRows(rows.map((r, j) => (j === i ? { ...r, [part]: v } : r)));
  return (
    <section aria-labelledby="secrets">
      <h2 id="secrets">Secrets</h2>
      <p class="sub">Set now: {names.length ? names.join(', ') : 'none'}. Values are never shown again; saving replaces the whole set.</p>
      <form class="form" onSubmit={save}>
        {rows.map((r, i) => (
          <div class="filters" key={i}>
            <Field label={`Secret ${i + 1} name`} value={r.name} onValue={(v) => update(i, 'name', v)} autoComplete="off" />
            <Field
              label={`Secret ${i + 1} value`}
              type="password"
              value={r.value}
              onValue={(v) => update(i, 'value', v)}
              autoComplete="new-password"
            />
          </div>
        ))}
        <div class="buttons">
          <button type="button" onClick={() => setRows([...rows, { name: '', value: '' }])}>
            Another secret
          </button>
          <button class="primary" type="submit" disabled={act.busy}>
            Save secrets
          </button>
        </div>
      </form>
      <ErrorLine error={act.error} />
    </section>
  );
}
