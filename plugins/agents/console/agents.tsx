import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ErrorLine, Field, Notice, PageHeader, postStream, TextArea, useAction, useConsole } from '../../../console/src/kit';

interface Agent {
  id: string;
  name: string;
  model: string;
  system_prompt: string;
  tools: string[];
  channels: string[];
  status: string;
}
interface Choices {
  builtin: { name: string; category: string; description: string; actions: string[] }[];
  custom: { name: string; description: string; requires_approval: boolean }[];
}
const CHANNELS = ['api', 'webchat'];

/** Agents (SPEC 2.4, 4.2): list, create and edit (tool picker, approval overrides), and a chat playground. */
export function AgentsPage() {
  const c = useConsole();
  return c.arg ? <Editor id={c.arg === 'new' ? undefined : c.arg} /> : <List />;
}

function List() {
  const c = useConsole();
  const [items, setItems] = useState<Agent[] | null>(null);
  const [error, setError] = useState<any>(null);
  useEffect(() => {
    api('GET', '/agents?limit=100').then((r) => (r.ok ? setItems(r.body.data) : setError(r.error)));
  }, []);
  return (
    <>
      <PageHeader title="Agents">
        {c.can('ai:write') && (
          <a class="button primary" href="#/agents/new">
            New agent
          </a>
        )}
      </PageHeader>
      <ErrorLine error={error} />
      {items && items.length === 0 && <p class="empty">No agents.</p>}
      {items && items.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Agents">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Model</th>
                <th scope="col">Channels</th>
                <th scope="col">Tools</th>
              </tr>
            </thead>
            <tbody>
              {items.map((a) => (
                <tr key={a.id}>
                  <td>
                    <a href={`#/agents/${a.id}`}>{a.name}</a>
                  </td>
                  <td class="mono">{a.model}</td>
                  <td>{a.channels.join(', ')}</td>
                  <td class="scopes">{a.tools.join(' ')}</td>
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
  const [model, setModel] = useState('openai/gpt-4o-mini');
  const [prompt, setPrompt] = useState('');
  const [tools, setTools] = useState<string[]>([]);
  const [channels, setChannels] = useState<string[]>(['api']);
  const [overrides, setOverrides] = useState('{}');
  const [choices, setChoices] = useState<Choices | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const act = useAction();
  useEffect(() => {
    api<Choices>('GET', '/agent-tools').then((r) => r.ok && setChoices(r.body));
    if (!id) return;
    api<Agent>('GET', `/agents/${encodeURIComponent(id)}`).then((r) => {
      if (!r.ok) return act.setError(r.error);
      setName(r.body.name);
      setModel(r.body.model);
      setPrompt(r.body.system_prompt);
      setTools(r.body.tools);
      setChannels(r.body.channels);
    });
    api('GET', `/agents/${encodeURIComponent(id)}/tool-config`).then(
      (r) => r.ok && setOverrides(JSON.stringify(r.body.tool_overrides ?? {}, null, 2)),
    );
  }, [id]);
  const toggle = (list: string[], set: (v: string[]) => void, item: string) =>
    set(list.includes(item) ? list.filter((x) => x !== item) : [...list, item]);
  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      let parsedOverrides: unknown;
      try {
        parsedOverrides = JSON.parse(overrides || '{}');
      } catch {
        return act.setError('Approval overrides must be JSON, e.g. {"products": {"requires_approval": ["create_product"]}}.');
      }
      const body = { name, model, system_prompt: prompt, tools, channels };
      const r = id ? await api<Agent>('PATCH', `/agents/${id}`, body) : await api<Agent>('POST', '/agents', body);
      if (!r.ok) return act.setError(r.error);
      const t = await api('PATCH', `/agents/${r.body.id}/tool-config`, { tool_overrides: parsedOverrides });
      if (!t.ok) return act.setError(t.error);
      setSaved('Saved.');
      if (!id) c.go(`agents/${r.body.id}`);
    });
  };
  return (
    <>
      <PageHeader title={id ? `Agent: ${name}` : 'New agent'}>
        <a href="#/agents">Back to agents</a>
      </PageHeader>
      {saved && <Notice>{saved}</Notice>}
      <form class="form" onSubmit={save}>
        <fieldset disabled={!writable || act.busy}>
          <Field label="Name" value={name} onValue={setName} required />
          <Field
            label="Model"
            value={model}
            onValue={setModel}
            required
            hint="provider/model, e.g. openai/gpt-4o-mini or anthropic/claude-sonnet-4-5"
          />
          <TextArea label="System prompt" value={prompt} onValue={setPrompt} rows={4} />
          <fieldset class="checks">
            <legend>Channels</legend>
            {CHANNELS.map((ch) => (
              <label key={ch}>
                <input type="checkbox" checked={channels.includes(ch)} onChange={() => toggle(channels, setChannels, ch)} /> {ch}
              </label>
            ))}
          </fieldset>
          <fieldset class="checks">
            <legend>Tools</legend>
            {choices?.builtin.map((t) => (
              <label key={t.name} title={t.description}>
                <input type="checkbox" checked={tools.includes(t.name)} onChange={() => toggle(tools, setTools, t.name)} /> {t.name}
              </label>
            ))}
            {choices?.custom.map((t) => (
              <label key={`custom:${t.name}`} title={t.description}>
                <input type="checkbox" checked={tools.includes(t.name)} onChange={() => toggle(tools, setTools, t.name)} /> {t.name} (custom
                {t.requires_approval ? ', needs approval' : ''})
              </label>
            ))}
          </fieldset>
          <TextArea
            label="Approval overrides (tool_overrides, JSON)"
            value={overrides}
            onValue={setOverrides}
            rows={5}
            class="code"
            spellcheck={false}
          />
        </fieldset>
        <ErrorLine error={act.error} />
        {writable && (
          <button class="primary" type="submit" disabled={act.busy}>
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
