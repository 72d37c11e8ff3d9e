import { useState } from 'preact/hooks';
import { api } from '../api';
import { useConsole, type Execution } from '../context';
import { duration, ErrorLine, Json, Notice, PageHeader, TextArea, useAction, useNow, when } from '../ui';

/**
 * The approvals inbox: tool calls held for a human (SPEC 3.1), live from the executions stream.
 * A decision made here or in any other console removes the call from every inbox at once (the
 * stream reports it). Only those the console token says may approve see the buttons; the API refuses others.
 */
export function ApprovalsPage() {
  const c = useConsole();
  const now = useNow();
  const mayDecide = c.may('tool_executions.approve_execution');
  return (
    <>
      <PageHeader title="Approvals">
        <span class={`live ${c.live ? 'on' : ''}`} role="status">
          {c.live ? 'Live' : 'Connecting…'}
        </span>
      </PageHeader>
      {!mayDecide && <Notice>Your role ({c.role}) may see held calls but not decide them.</Notice>}
      {c.pending.length === 0 ? (
        <p class="empty">No tool call is waiting for approval.</p>
      ) : (
        <ul class="cards" aria-label="Calls waiting for approval">
          {c.pending.map((x) => (
            <Held key={x.id} x={x} now={now} canApprove={mayDecide} />
          ))}
        </ul>
      )}
    </>
  );
}

function Held({ x, now, canApprove }: { x: Execution; now: number; canApprove: boolean }) {
  const [note, setNote] = useState('');
  const act = useAction();
  const left = x.approval?.expires_at ? new Date(String(x.approval.expires_at)).getTime() - now : 0;
  const decide = (how: 'approve' | 'reject') =>
    act.run(async () => {
      const r = await api(
        'POST',
        `/tool-executions/${x.id}/${how}`,
        how === 'approve' ? { comment: note || undefined } : { reason: note || undefined },
      );
      if (!r.ok) act.setError(r.error);
      // On success the stream removes the card, here and in every other open console.
    });
  const headingId = `held-${x.id}`;
  return (
    <li class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {x.tool}.{x.action}
      </h2>
      <dl class="facts">
        <dt>Agent</dt>
        <dd>{x.agent_name ?? '—'}</dd>
        <dt>Called by</dt>
        <dd>
          {x.source === 'agent' ? 'an agent' : 'an MCP client'}
          {x.caller ? ` (${x.caller.type === 'user' ? 'user' : 'API key'} ${x.caller.id.slice(0, 8)})` : ''}
        </dd>
        <dt>Held at</dt>
        <dd>{when(x.created_at)}</dd>
        <dt>Time left</dt>
        <dd>
          {left > 0 ? duration(left) : 'timing out'} {x.approval?.timeout_action ? `(then ${x.approval.timeout_action})` : ''}
        </dd>
        {x.approval?.message && (
          <>
            <dt>Why held</dt>
            <dd>{x.approval.message}</dd>
          </>
        )}
      </dl>
      <details open>
        <summary>Input</summary>
        <Json value={x.input} />
      </details>
      {canApprove && (
        <div class="decide">
          <TextArea label="Comment (approve) or reason (reject)" value={note} onValue={setNote} rows={2} />
          <div class="buttons">
            <button class="primary" disabled={act.busy} onClick={() => decide('approve')}>
              Approve
            </button>
            <button class="danger" disabled={act.busy} onClick={() => decide('reject')}>
              Reject
            </button>
          </div>
          <ErrorLine error={act.error} />
        </div>
      )}
    </li>
  );
}
