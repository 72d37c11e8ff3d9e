import { useEffect, useRef, useState } from 'preact/hooks';
import {
  api,
  ErrorLine,
  Field,
  Notice,
  PageHeader,
  postStream,
  ResourceList,
  Select,
  TextArea,
  toggled,
  useAction,
  useConsole,
  useCursorList,
  useEditor,
  useResource,
  valuesOf,
  type Body,
  type Resource,
} from '../../../console/src/kit';

type Agent = Resource<'/agents/{id}'>;
type Channel = NonNullable<Body<'POST', '/agents'>['channels']>[number];
const CHANNELS = valuesOf<Channel>({ api: true, webchat: true, sms: true });

/** tool_overrides (SPEC 4.5): per tool name, its approval settings (the schema says only "an object per name"). */
type Overrides = Record<string, Record<string, unknown>>;
type ToolConfig = Resource<'/agents/{id}/tool-config'>['tool_overrides'];

function parseOverrides(text: string): Overrides | null {
  try {
    const v = JSON.parse(text || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/** The choices of requires_approval: unset (the tool's own setting), true, a list of actions, false. */
const GATES: [string, string][] = [
  ['', 'as the tool is set'],
  ['all', 'every action'],
  ['some', 'the actions ticked'],
  ['none', 'never'],
];
const gateOf = (o: Record<string, unknown> | undefined) => {
  const r = o?.requires_approval;
  return r === true ? 'all' : r === false ? 'none' : Array.isArray(r) ? 'some' : '';
};

/** `overrides` with `tool`'s requires_approval set, or removed (undefined); a tool left with no setting is dropped. */
function withGate(overrides: Overrides, tool: string, gate: unknown): Overrides {
  const { requires_approval: _, ...rest } = overrides[tool] ?? {};
  const next = gate === undefined ? rest : { ...rest, requires_approval: gate };
  const { [tool]: __, ...others } = overrides;
  return Object.keys(next).length ? { ...others, [tool]: next } : others;
}

/**
 * Which calls of each chosen tool wait for an approver. It edits requires_approval inside the
 * overrides' JSON, which stays the one source: the other settings (auto_approve, conditions,
 * timeouts) are written there.
 */
function ApprovalRules(props: { tools: string[]; actionsOf: (tool: string) => string[]; text: string; onText: (t: string) => void }) {
  const overrides = parseOverrides(props.text);
  if (!props.tools.length) return null;
  if (!overrides) return <p class="hint">Approval rules show again once the overrides below are valid JSON.</p>;
  const write = (tool: string, gate: unknown) => props.onText(JSON.stringify(withGate(overrides, tool, gate), null, 2));
  return (
    <fieldset class="rules">
      <legend>Approval</legend>
      {props.tools.map((tool) => {
        const gate = gateOf(overrides[tool]);
        const actions = props.actionsOf(tool);
        const ticked = gate === 'some' ? (overrides[tool].requires_approval as string[]) : [];
        return (
          <div key={tool} class="rule">
            <Select
              label={`${tool}: needs approval`}
              value={gate}
              onValue={(g) => write(tool, g === 'all' ? true : g === 'none' ? false : g === 'some' ? [] : undefined)}
              options={GATES.filter(([g]) => g !== 'some' || actions.length)}
            />
            {gate === 'some' && (
              <fieldset class="checks">
                <legend>Actions of {tool} that need approval</legend>
                {actions.map((a) => (
                  <label key={a}>
                    <input type="checkbox" checked={ticked.includes(a)} onChange={() => write(tool, toggled(ticked, a))} /> {a}
                  </label>
                ))}
              </fieldset>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}

/** Agents (SPEC 2.4, 4.2): list, create and edit (tool picker, approval overrides), and a chat playground. */
export function AgentsPage() {
  const c = useConsole();
  return c.arg ? <Editor id={c.arg === 'new' ? undefined : c.arg} /> : <List />;
}

function List() {
  const c = useConsole();
  const list = useCursorList('/agents', {}, { limit: 100 });
  return (
    <>
      <PageHeader title="Agents">
        {c.may('agents.create_agent') && (
          <a class="button primary" href="#/agents/new">
            New agent
          </a>
        )}
      </PageHeader>
      <ResourceList
        list={list}
        label="Agents"
        empty="No agents."
        columns={[
          { title: 'Name', cell: (a) => <a href={`#/agents/${a.id}`}>{a.name}</a> },
          { title: 'Model', class: 'mono', cell: (a) => a.model },
          { title: 'Channels', cell: (a) => a.channels.join(', ') },
          { title: 'Tools', class: 'scopes', cell: (a) => a.tools.join(' ') },
        ]}
      />
    </>
  );
}

const BLANK = { name: '', model: 'openai/gpt-4o-mini', system_prompt: '', tools: [] as string[], channels: ['api'] as Channel[] };
const formOf = ({ name, model, system_prompt, tools, channels }: Agent) => ({ name, model, system_prompt, tools, channels: channels as Channel[] });

function Editor({ id }: { id?: string }) {
  const c = useConsole();
  const writable = c.may(id ? 'agents.update_agent' : 'agents.create_agent');
  const ed = useEditor({ path: '/agents', id, blank: BLANK, formOf });
  const { form, set } = ed;
  const [overrides, setOverrides] = useState('{}');
  // What the server holds: a tool taken out of the JSON is sent as null, since PATCH merges per tool.
  const [stored, setStored] = useState<Overrides>({});
  const choices = useResource('/agent-tools').data;
  const [saved, setSaved] = useState<string | null>(null);
  const loaded = (config: ToolConfig) => {
    const o = config as Overrides | undefined;
    setStored(o ?? {});
    setOverrides(JSON.stringify(o ?? {}, null, 2));
  };
  useEffect(() => {
    if (!id) return;
    api('GET', `/agents/${encodeURIComponent(id)}/tool-config`).then((r) => r.ok && loaded(r.body.tool_overrides));
  }, [id]);
  const toggle = (key: 'tools' | 'channels', item: string) => set(key)(toggled(form[key], item));
  const save = async (e: Event) => {
    e.preventDefault();
    const parsedOverrides = parseOverrides(overrides);
    if (!parsedOverrides)
      return ed.setError('Approval overrides must be a JSON object, e.g. {"products": {"requires_approval": ["create_product"]}}.');
    const agent = await ed.save(form);
    if (!agent) return;
    await ed.run(async () => {
      const removed = Object.keys(stored).filter((tool) => !(tool in parsedOverrides));
      const patch = { ...parsedOverrides, ...Object.fromEntries(removed.map((tool) => [tool, null])) };
      const t = await api('PATCH', `/agents/${agent.id}/tool-config`, { tool_overrides: patch });
      if (!t.ok) return ed.setError(t.error);
      loaded(t.body.tool_overrides);
      setSaved('Saved.');
      if (!id) c.go(`agents/${agent.id}`);
    });
  };
  return (
    <>
      <PageHeader title={id ? `Agent: ${form.name}` : 'New agent'}>
        <a href="#/agents">Back to agents</a>
      </PageHeader>
      {saved && <Notice>{saved}</Notice>}
      <form class="form" onSubmit={save}>
        <fieldset disabled={!writable || ed.busy}>
          <Field label="Name" value={form.name} onValue={set('name')} required />
          <Field
            label="Model"
            value={form.model}
            onValue={set('model')}
            required
            hint="provider/model, e.g. openai/gpt-4o-mini or anthropic/claude-sonnet-4-5"
          />
          <TextArea label="System prompt" value={form.system_prompt} onValue={set('system_prompt')} rows={4} />
          <fieldset class="checks">
            <legend>Channels</legend>
            {CHANNELS.map((ch) => (
              <label key={ch}>
                <input type="checkbox" checked={form.channels.includes(ch)} onChange={() => toggle('channels', ch)} /> {ch}
              </label>
            ))}
          </fieldset>
          <fieldset class="checks">
            <legend>Tools</legend>
            {choices?.builtin.map((t) => (
              <label key={t.name} title={t.description}>
                <input type="checkbox" checked={form.tools.includes(t.name)} onChange={() => toggle('tools', t.name)} /> {t.name}
              </label>
            ))}
            {choices?.custom.map((t) => (
              <label key={`custom:${t.name}`} title={t.description}>
                <input type="checkbox" checked={form.tools.includes(t.name)} onChange={() => toggle('tools', t.name)} /> {t.name} (custom
                {t.requires_approval ? ', needs approval' : ''})
              </label>
            ))}
          </fieldset>
          <ApprovalRules
            tools={form.tools}
            actionsOf={(tool) => choices?.builtin.find((t) => t.name === tool)?.actions ?? []}
            text={overrides}
            onText={setOverrides}
          />
          <TextArea
            label="Approval overrides (tool_overrides, JSON)"
            value={overrides}
            onValue={setOverrides}
            rows={5}
            class="code"
            spellcheck={false}
          />
        </fieldset>
        <ErrorLine error={ed.error} />
        {writable && (
          <button class="primary" type="submit" disabled={ed.busy}>
            {id ? 'Save agent' : 'Create agent'}
          </button>
        )}
      </form>
      {id && <Playground id={id} />}
    </>
  );
}

type Line = { kind: 'user' | 'text' | 'event'; text: string };

/** Chats with the agent as the API would: text streams in, tool calls and held calls show as they happen. */
function Playground({ id }: { id: string }) {
  const [message, setMessage] = useState('');
  const [lines, setLines] = useState<Line[]>([]);
  const [conversation, setConversation] = useState<string | undefined>();
  const act = useAction();
  const log = useRef<HTMLDivElement>(null);
  useEffect(() => {
    log.current?.scrollTo(0, log.current.scrollHeight);
  }, [lines]);
  const send = (e: Event) => {
    e.preventDefault();
    const text = message.trim();
    if (!text) return;
    setMessage('');
    setLines((l) => [...l, { kind: 'user', text }]);
    void act.run(async () => {
      const add = (line: Line) =>
        setLines((l) => {
          const last = l[l.length - 1];
          if (line.kind === 'text' && last?.kind === 'text') return [...l.slice(0, -1), { kind: 'text', text: last.text + line.text }];
          return [...l, line];
        });
      const res = await postStream(`/agents/${id}/chat`, { message: text, conversation_id: conversation }, (ev) => {
        if (ev.type === 'text') add({ kind: 'text', text: ev.text });
        else if (ev.type === 'tool_use') add({ kind: 'event', text: `tool_use ${ev.tool} ${JSON.stringify(ev.input)}` });
        else if (ev.type === 'approval_required') add({ kind: 'event', text: `approval_required ${ev.tool}: ${ev.message} (see Approvals)` });
        else if (ev.type === 'tool_result') add({ kind: 'event', text: `tool_result ${ev.status}` });
        else if (ev.type === 'error') add({ kind: 'event', text: `error: ${ev.message}` });
      });
      setConversation(res.headers.get('x-conversation-id') ?? conversation);
    });
  };
  return (
    <section aria-labelledby="playground">
      <h2 id="playground">Playground</h2>
      <div class="chat-log" ref={log} role="log" aria-live="polite">
        {lines.length === 0 && <p class="sub">Messages sent here run the agent for real, tools included.</p>}
        {lines.map((l, i) => (
          <p key={i} class={`msg ${l.kind}`}>
            {l.kind === 'user' ? `You: ${l.text}` : l.text}
          </p>
        ))}
      </div>
      <form class="filters" onSubmit={send}>
        <Field label="Message" value={message} onValue={setMessage} autoComplete="off" />
        <button class="primary" type="submit" disabled={act.busy}>
          Send
        </button>
        {conversation && (
          <button type="button" onClick={() => (setConversation(undefined), setLines([]))}>
            New conversation
          </button>
        )}
      </form>
      <ErrorLine error={act.error} />
    </section>
  );
}
