import { errorFields, EXECUTIONS_CHANNEL, type Ctx, type JobDeps, type Row } from '../../core/sdk';
import { sendEmail } from './send';
import { memberEmails } from '../users/public';

/**
 * Approver email (SPEC 3.1, 6.4). An execution held for approval (or escalated) is announced on
 * commit (EXECUTIONS_CHANNEL); the plugin listens and sweeps at once, so the mail goes out within
 * seconds. A job every minute sweeps too, the safety net for an announcement missed while no
 * process listened. A sweep finds executions waiting for approval whose
 * group has not been mailed yet, and mails that group: `default` is the members with the
 * `approver` role; after an escalation, a group named like a role (`admin`, `owner`, ...) is the
 * members with that role, and any other name is the store's owners and admins. The notice row is
 * written with the messages, so each group of each execution is mailed once.
 */
const ROLES = new Set(['owner', 'admin', 'approver', 'staff', 'viewer']);
const rolesOf = (group: string) => (group === 'default' ? ['approver'] : ROLES.has(group) ? [group] : ['owner', 'admin']);

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function body(e: Row, link: string | null, escalated: boolean) {
  const input = JSON.stringify(e.input, null, 2).slice(0, 4000);
  const who = e.agent_name ? `the agent ${e.agent_name}` : `an ${e.source === 'mcp' ? 'MCP client' : 'agent'}`;
  const lead = `${escalated ? 'Escalated: no approver decided in time. ' : ''}${who} asks to run ${e.tool}.${e.action}.`;
  const decide = link
    ? `Decide: ${link}\n(or POST .../tool-executions/${e.id}/approve or /reject)`
    : `Decide with POST STORE/tool-executions/${e.id}/approve or /reject.`;
  return {
    subject: `Approval needed: ${e.tool}.${e.action}${e.agent_name ? ` by ${e.agent_name}` : ''}`,
    text: `${lead}\n\nInput:\n${input}\n\nThe request expires at ${new Date(e.expires_at).toISOString()}.\n${decide}\n`,
    html:
      `<p>${escapeHtml(lead)}</p><p>Input:</p><pre>${escapeHtml(input)}</pre>` +
      `<p>The request expires at ${new Date(e.expires_at).toISOString()}.</p>` +
      (link ? `<p><a href="${escapeHtml(link)}">Review and decide</a></p>` : `<p>${escapeHtml(decide)}</p>`),
  };
}

export async function notifyApprovers(deps: JobDeps) {
  const { db, clock, log, config, registry } = deps;
  // Without a sender there is no approver mail; the start said so once (index.ts), not every minute.
  if (!config.from) return;
  const pending = await db.query(
    `SELECT e.id, e.store_id, e.tool, e.action, e.agent_name, e.source, e.input::text AS input, e.expires_at,
            coalesce(e.approval->>'group', 'default') AS grp, coalesce((e.approval->>'escalated')::boolean, false) AS escalated,
            s.name AS store_name, s.plan AS store_plan
     FROM tool_executions e JOIN stores s ON s.id = e.store_id
     WHERE e.status = 'pending_approval' AND e.expires_at > $1
       AND NOT EXISTS (SELECT 1 FROM email_approval_notices n WHERE n.execution_id = e.id AND n.grp = coalesce(e.approval->>'group', 'default'))
     LIMIT 200`,
    [clock.now()],
  );
  for (const e of pending) {
    try {
      await db.transaction(async (tx) => {
        const claimed = await tx.query(
          `INSERT INTO email_approval_notices (execution_id, grp, store_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1`,
          [e.id, e.grp, e.store_id, clock.now()],
        );
        if (!claimed.length) return; // another worker took it
        const people = await memberEmails(tx, e.store_id, rolesOf(e.grp));
        if (!people.length) return void log.warn('no approver to mail', { execution_id: e.id, group: e.grp });
        const publicUrl = registry.site.publicUrl;
        const link = publicUrl ? `${publicUrl}/v1/stores/${e.store_id}/tool-executions/${e.id}` : null;
        const mail = body({ ...e, input: JSON.parse(e.input) }, link, e.escalated);
        // A job's own context for the send pipeline: this store, this plugin's settings.
        const ctx = { db: tx, clock, log, config, registry, store: { id: e.store_id, name: e.store_name, plan: e.store_plan } } as unknown as Ctx;
        await sendEmail(ctx, { to: people, ...mail, tags: ['approval'] }, { track: false });
      });
    } catch (err) {
      log.warn('approver email failed', { execution_id: e.id, ...errorFields(err) });
    }
  }
}

/**
 * Sweeps as soon as an execution enters (or, escalated, re-enters) pending_approval. Announcements
 * arriving during a sweep make one more sweep after it, not one each. Returns the stop, which
 * waits for a sweep in progress.
 */
export async function watchApprovals(deps: JobDeps): Promise<() => Promise<void>> {
  let running: Promise<void> | undefined;
  let again = false;
  const sweep = () => {
    if (running) return void (again = true);
    running = (async () => {
      do {
        again = false;
        await notifyApprovers(deps).catch((err) => deps.log.warn('approver sweep failed', errorFields(err)));
      } while (again);
    })().finally(() => (running = undefined));
  };
  const unlisten = await deps.db.listen(EXECUTIONS_CHANNEL, (payload) => {
    if (/"status"\s*:\s*"pending_approval"/.test(payload)) sweep();
  });
  return async () => {
    await unlisten();
    await running;
  };
}
