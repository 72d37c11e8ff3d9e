import { expect, test } from 'bun:test';
import { openai } from '../../test/kit/fake-models';
import { createCall, MIN, useWorlds, world } from '../../test/kit/approvals';
import { createLogger } from '../../core/log';
import { addUser } from '../../test/kit/users';

useWorlds();

test('an execution entering pending_approval mails the approvers once (tool, input, agent, link); escalation mails the escalation group', async () => {
  const w = await world([openai.tools(createCall()), openai.text('No answer.')]);
  const { h } = w;
  const approver = await addUser(h, 'approver');
  await addUser(h, 'staff');
  const admin = await addUser(h, 'admin');
  const agent = await w.agent(['products'], {
    products: { requires_approval: ['create_product'], timeout_action: 'escalate', escalation_group: 'managers', approval_timeout_minutes: 10 },
  });
  const chat = await w.chat(agent.id, 'Add a lamp');
  const { execution_id: id } = await chat.held();

  // The declared sweep's handler, with this test's sender in its config and origin in the registry.
  const job = h.registry.byName.get('email')!.jobs!.approvers;
  const config = { ...h.registry.configOf('email'), from: 'noreply@svc.test' };
  const registry = { ...h.registry, site: { ...h.registry.site, publicUrl: 'https://svc.test' } };
  const run = () => job.handler!({ db: h.db, clock: h.clock, registry, log: createLogger({ sink: () => {} }), config } as any, {});
  const mails = () =>
    h.db.query<{ to_addresses: string[]; subject: string; text: string; html: string }>(
      `SELECT to_addresses, subject, text, html FROM email_messages WHERE store_id = $1 AND tags @> '["approval"]' ORDER BY seq`,
      [h.store.id],
    );

  await run();
  await run(); // once per group, however often the job runs
  const [first, ...none] = await mails();
  expect(none).toEqual([]);
  expect(first.to_addresses).toEqual([approver.email]);
  expect(first.subject).toBe('Approval needed: products.create_product by Clerk');
  expect(first.text).toContain('the agent Clerk asks to run products.create_product');
  expect(first.text).toContain('"name": "Gated Lamp"');
  expect(first.html).toContain(`https://svc.test/v1/stores/${h.store.id}/tool-executions/${id}`);

  // The window closes: escalation to `managers`, which is no role, so the owners and admins.
  h.clock.advance(10 * MIN);
  expect(await w.runJobs(id, 'timeout')).toBe(1);
  await run();
  const all = await mails();
  expect(all).toHaveLength(2);
  expect(all[1].to_addresses).toEqual([admin.email]);
  expect(all[1].text).toStartWith('Escalated: no approver decided in time.');
});

test('a held execution is mailed to its approvers within seconds, without waiting for the minute sweep', async () => {
  const w = await world([openai.tools(createCall()), openai.text('No answer.')]);
  const { h } = w;
  const approver = await addUser(h, 'approver');
  const email = h.registry.plugins.find((p) => p.name === 'email')!;
  const config = { ...h.registry.configOf('email'), from: 'noreply@svc.test' };
  const registry = { ...h.registry, site: { ...h.registry.site, publicUrl: 'https://svc.test' } };
  const log = createLogger({ sink: () => {} });
  const started = await email.start!({ db: h.db, clock: h.clock, registry, log, config, role: 'all', print: () => {} });
  try {
    const agent = await w.agent(['products'], { products: { requires_approval: ['create_product'] } });
    const chat = await w.chat(agent.id, 'Add a lamp');
    const { execution_id: id } = await chat.held();
    // Nothing runs the approvers job here: the mail comes from the held call's announcement.
    let mails: { to_addresses: string[]; html: string }[] = [];
    for (let waited = 0; !mails.length && waited < 10_000; waited += 50) {
      await Bun.sleep(50);
      mails = await h.db.query(`SELECT to_addresses, html FROM email_messages WHERE store_id = $1 AND tags @> '["approval"]'`, [h.store.id]);
    }
    expect(mails).toHaveLength(1);
    expect(mails[0].to_addresses).toEqual([approver.email]);
    expect(mails[0].html).toContain(`/tool-executions/${id}`);
  } finally {
    await started!.stop();
  }
});

test('without SVC_EMAIL_FROM approver email is off: said once at start, never by the minute sweep', async () => {
  const w = await world([openai.tools(createCall()), openai.text('No answer.')]);
  const { h } = w;
  const email = h.registry.plugins.find((p) => p.name === 'email')!;
  const logged: string[] = [];
  const log = createLogger({ sink: (line) => void logged.push(line) });
  const config = { ...h.registry.configOf('email'), from: undefined, smtp_url: 'smtp://127.0.0.1:25' };
  const printed: string[] = [];
  const started = await email.start!({
    db: h.db,
    clock: h.clock,
    registry: h.registry,
    log,
    config,
    role: 'api',
    print: (l) => void printed.push(l),
  });
  await started?.stop();
  expect(printed.filter((l) => l.includes('SVC_EMAIL_FROM'))).toHaveLength(1);
  const job = email.jobs!.approvers;
  for (let minute = 0; minute < 3; minute++) await job.handler!({ db: h.db, clock: h.clock, registry: h.registry, log, config } as any, {});
  expect(logged.filter((l) => l.includes('SVC_EMAIL_FROM') || l.includes('approver email'))).toEqual([]);
});
