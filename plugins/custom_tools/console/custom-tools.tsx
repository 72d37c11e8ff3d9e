import { useState } from 'preact/hooks';
import {
  api,
  ErrorLine,
  Field,
  Json,
  Notice,
  PageHeader,
  ResourceList,
  Select,
  TextArea,
  useAction,
  useConsole,
  useCursorList,
  useEditor,
  type Body,
  type Resource,
} from '../../../console/src/kit';

type Tool = Resource<'/tools/{id}'>;
type ToolBody = Body<'POST', '/tools'>;
type Kind = ToolBody['execution_type'];
type Config = ToolBody['execution_config'];

const json = (v: unknown) => JSON.stringify(v ?? {}, null, 2);
const SAMPLE_SCHEMA = { type: 'object', properties: { quantity: { type: 'integer' } }, required: ['quantity'] };

/** Custom tools (SPEC 2.5 Shape B): HTTP and JavaScript tools, a test run, and write-only secrets. */
export function CustomToolsPage() {
  const c = useConsole();
  return c.arg ? <Editor id={c.arg === 'new' ? undefined : c.arg} /> : <List />;
}

function List() {
  const c = useConsole();
  const list = useCursorList('/tools', {}, { limit: 100 });
  return (
    <>
      <PageHeader title="Custom tools">
        {c.may('custom_tools.create_tool') && (
          <a class="button primary" href="#/custom-tools/new">
            New tool
          </a>
        )}
      </PageHeader>
      <ResourceList
        list={list}
        label="Custom tools"
        empty="No custom tools."
        columns={[
          {
            title: 'Name',
            cell: (t) => (
              <>
                <a href={`#/custom-tools/${t.id}`}>{t.name}</a>
                <div class="sub">{t.description}</div>
              </>
            ),
          },
          { title: 'Kind', cell: (t) => t.execution_type },
          { title: 'Approval', cell: (t) => (t.requires_approval ? 'required' : '—') },
        ]}
      />
    </>
  );
}

const BLANK = {
  name: '',
  description: '',
  kind: 'javascript' as Kind,
  schema: json(SAMPLE_SCHEMA),
  code: 'return { ordered: params.quantity };',
  url: '',
  method: 'POST' as NonNullable<Config['method']>,
  headers: '{}',
  approval: false,
  confirmation: false,
};
const formOf = (t: Tool) => {
  const config = t.execution_config as Config; // the API answers what it was given
  return {
    ...BLANK,
    name: t.name,
    description: t.description,
    kind: t.execution_type as Kind,
    schema: json(t.parameters),
    approval: t.requires_approval,
    confirmation: t.requires_confirmation,
    ...(t.execution_type === 'javascript'
      ? { code: config.code ?? '' }
      : { url: config.url ?? '', method: config.method ?? BLANK.method, headers: json(config.headers) }),
  };
};

const parse = (text: string, what: string) => {
  try {
    return JSON.parse(text || '{}');
  } catch {
    throw new Error(`${what} must be JSON.`);
  }
};

function Editor({ id }: { id?: string }) {
  const c = useConsole();
  const writable = c.may(id ? 'custom_tools.update_tool' : 'custom_tools.create_tool');
  const ed = useEditor({ path: '/tools', id, blank: BLANK, formOf });
  const { form, set } = ed;
  // Secrets are saved on their own: their names change without reloading (or resetting) the form.
  const [secretNames, setSecretNames] = useState<string[] | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    let body: ToolBody;
    try {
      body = {
        name: form.name,
        description: form.description,
        parameters: parse(form.schema, 'The input schema'),
        execution_type: form.kind,
        execution_config:
          form.kind === 'javascript' ? { code: form.code } : { url: form.url, method: form.method, headers: parse(form.headers, 'Headers') },
        requires_approval: form.approval,
        requires_confirmation: form.confirmation,
      };
    } catch (err) {
      return ed.setError((err as Error).message);
    }
    const tool = await ed.save(body);
    if (!tool) return;
    setNote('Saved.');
    if (!id) c.go(`custom-tools/${tool.id}`);
  };
  return (
    <>
      <PageHeader title={id ? `Tool: ${form.name}` : 'New custom tool'}>
        <a href="#/custom-tools">Back to custom tools</a>
      </PageHeader>
      {note && <Notice>{note}</Notice>}
      <form class="form" onSubmit={save}>
        <fieldset disabled={!writable || ed.busy}>
          <Field label="Name" value={form.name} onValue={set('name')} required pattern="[a-z][a-z0-9_]*" hint="snake_case" />
          <Field
            label="Description"
            value={form.description}
            onValue={set('description')}
            required
            hint="Shown to the agent to decide when to use it."
          />
          <Select
            label="Kind"
            value={form.kind}
            onValue={(v) => set('kind')(v as Kind)}
            options={[
              ['javascript', 'JavaScript (sandboxed)'],
              ['http', 'HTTP request'],
            ]}
          />
          <TextArea label="Input schema (JSON Schema)" value={form.schema} onValue={set('schema')} rows={6} class="code" spellcheck={false} />
          {form.kind === 'javascript' ? (
            <TextArea
              label="Code (the input is `params`; return the result)"
              value={form.code}
              onValue={set('code')}
              rows={10}
              class="code"
              spellcheck={false}
            />
          ) : (
            <>
              <Field label="URL" type="url" value={form.url} onValue={set('url')} required />
              <Select label="Method" value={form.method} onValue={set('method')} options={['POST', 'GET', 'PUT', 'PATCH', 'DELETE']} />
              <TextArea
                label="Headers (JSON; secrets as {{NAME}})"
                value={form.headers}
                onValue={set('headers')}
                rows={3}
                class="code"
                spellcheck={false}
              />
            </>
          )}
          <label class="check">
            <input type="checkbox" checked={form.approval} onChange={() => set('approval')(!form.approval)} /> Every call waits for approval
          </label>
          <label class="check">
            <input type="checkbox" checked={form.confirmation} onChange={() => set('confirmation')(!form.confirmation)} /> MCP clients ask their user
            to confirm each call
          </label>
        </fieldset>
        <ErrorLine error={ed.error} />
        {writable && (
          <button class="primary" type="submit" disabled={ed.busy}>
            {id ? 'Save tool' : 'Create tool'}
          </button>
        )}
      </form>
      {id && <TestRun id={id} />}
      {id && writable && <Secrets id={id} names={secretNames ?? ed.saved?.secret_names ?? []} onSaved={setSecretNames} />}
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
      let parameters: Record<string, unknown>;
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
