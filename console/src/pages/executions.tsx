import { useEffect, useState } from 'preact/hooks';
import { api, query } from '../api';
import { useConsole } from '../context';
import type { Query, Resource } from '../api-paths';
import { valuesOf } from '../kit/values';
import { ErrorLine, Field, Json, PageHeader, Select, when } from '../ui';
import { FilterForm } from '../kit/list';
import { useResource } from '../kit/editor';

type ExecutionStatus = NonNullable<Query<'/tool-executions'>['status']>;
const STATUSES = valuesOf<ExecutionStatus>({ success: true, error: true, timeout: true, pending_approval: true, approved: true, rejected: true });
const PAGE = 25;

/** The tool execution audit log (SPEC 2.6, 4.5): filters, limit/offset pages, and one call's detail. */
export function ExecutionsPage() {
  const c = useConsole();
  return c.arg ? <Detail id={c.arg} /> : <Log />;
}

function Log() {
  const c = useConsole();
  const [tool, setTool] = useState('');
  const [status, setStatus] = useState<ExecutionStatus | ''>('');
  const [agent, setAgent] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [offset, setOffset] = useState(0);
  const [data, setData] = useState<Resource<'/tool-executions'> | null>(null);
  const [error, setError] = useState<any>(null);
  const load = async (at = 0) => {
    setOffset(at);
    const r = await api(
      'GET',
      `/tool-executions${query({ tool, status, agent_id: agent, from: from && new Date(from).toISOString(), to: to && new Date(to).toISOString(), limit: PAGE, offset: at })}`,
    );
    if (r.ok) (setData(r.body), setError(null));
    else setError(r.error);
  };
  useEffect(() => void load(), []);
  return (
    <>
      <PageHeader title="Tool executions" />
      <FilterForm search={false} onSubmit={() => void load(0)}>
        <Field label="Tool" value={tool} onValue={setTool} placeholder="products" />
        <Select label="Status" value={status} onValue={setStatus} options={[['', 'any'], ...STATUSES]} />
        <Field label="Agent id" value={agent} onValue={setAgent} />
        <Field label="From" type="datetime-local" value={from} onValue={setFrom} />
        <Field label="To" type="datetime-local" value={to} onValue={setTo} />
      </FilterForm>
      <ErrorLine error={error} />
      {data && (
        <>
          <p class="count">
            {data.total} call{data.total === 1 ? '' : 's'}
            {data.total > PAGE && ` · ${offset + 1}–${Math.min(offset + PAGE, data.total)}`}
          </p>
          {data.total === 0 && <p class="empty">No tool call matches.</p>}
          <div hidden={data.total === 0} class="table-wrap" tabIndex={0} role="region" aria-label="Tool executions">
            <table>
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">Status</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Duration</th>
                  <th scope="col">When</th>
                </tr>
              </thead>
              <tbody>
                {data.executions.map((x) => (
                  <tr key={x.id}>
                    <td>
                      <a href={`#/executions/${x.id}`}>
                        {x.tool}.{x.action}
                      </a>
                    </td>
                    <td>
                      <span class={`status s-${x.status}`}>{x.status}</span>
                    </td>
                    <td>{x.agent_name ?? x.source}</td>
                    <td>{x.duration_ms == null ? '—' : `${x.duration_ms} ms`}</td>
                    <td>{when(x.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div class="pager" hidden={data.total <= PAGE}>
            <button disabled={offset === 0} onClick={() => load(Math.max(0, offset - PAGE))}>
              Newer
            </button>
            <button disabled={offset + PAGE >= data.total} onClick={() => load(offset + PAGE)}>
              Older
            </button>
          </div>
        </>
      )}
      {c.pending.length > 0 && (
        <p>
          <a href="#/approvals">{c.pending.length} waiting for approval</a>
        </p>
      )}
    </>
  );
}

function Detail({ id }: { id: string }) {
  const { data: x, error } = useResource(`/tool-executions/${encodeURIComponent(id)}`);
  return (
    <>
      <PageHeader title={x ? `${x.tool}.${x.action}` : 'Tool execution'}>
        <a href="#/executions">Back to the log</a>
      </PageHeader>
      <ErrorLine error={error} />
      {x && (
        <>
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <span class={`status s-${x.status}`}>{x.status}</span>
            </dd>
            <dt>Agent</dt>
            <dd>{x.agent_name ?? '—'}</dd>
            <dt>Source</dt>
            <dd>{x.source}</dd>
            <dt>Duration</dt>
            <dd>{x.duration_ms == null ? '—' : `${x.duration_ms} ms`}</dd>
            <dt>Created</dt>
            <dd>{when(x.created_at)}</dd>
            <dt>Completed</dt>
            <dd>{when(x.completed_at)}</dd>
            <dt>Id</dt>
            <dd>
              <code>{x.id}</code>
            </dd>
          </dl>
          <h2>Input</h2>
          <Json value={x.input} />
          <h2>Output</h2>
          <Json value={x.output} />
          {x.approval && (
            <>
              <h2>Approval</h2>
              <Json value={x.approval} />
            </>
          )}
        </>
      )}
    </>
  );
}
