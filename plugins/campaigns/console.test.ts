/**
 * The segments and campaigns pages of the admin console in headless Chromium: a segment built
 * from the rule form and its members previewed; a campaign created from the form, paused and
 * resumed from the list, and its metrics page following the send live; axe-core on each page.
 */
import { expect } from 'bun:test';
import { axe, browserTest, shot } from '../../test/kit/browser';
import { useWorlds } from '../../test/kit/approvals';
import { consoleWorld, signedIn, useBrowser } from '../../test/kit/console';
import { runJob, takeQueued } from '../../test/kit/jobs';
import { addUser } from '../../test/kit/users';

useWorlds();
const browser = useBrowser();

browserTest(
  'segments: a rule built in the form selects its members; campaigns: created, paused, resumed, and its metrics follow the send',
  async () => {
    const w = await consoleWorld();
    const owner = await addUser(w.h, 'owner');
    for (const [email, tags] of [
      ['ada@example.com', ['vip']],
      ['bo@example.com', ['vip']],
      ['cy@example.com', ['new']],
    ] as const)
      expect((await w.h.call('POST', '/customers', { email, tags, accepts_marketing: true })).status).toBe(201);
    const tpl = await w.h.call('POST', '/email/templates', {
      name: 'VIP sale',
      slug: 'vip-sale',
      category: 'marketing',
      subject: 'For you',
      html: '<p>Sale. <a href="{{unsubscribe_url}}">Unsubscribe</a></p>',
      text: 'Sale. {{unsubscribe_url}}',
    });
    expect(tpl.status).toBe(201);
    const { page, problems } = await signedIn(browser(), w.base, owner.email);

    await page.goto(`${w.base}/console#/segments`);
    await page.waitForSelector('text=No segments yet.');
    await page.getByLabel('Name').fill('VIPs');
    await page.getByLabel('Field 1').selectOption('tags');
    await page.getByLabel('Operator 1').selectOption('contains');
    await page.getByLabel('Value 1').fill('vip');
    await page.getByRole('button', { name: 'Create segment' }).click();
    await page.waitForSelector('text=Segment VIPs created.');
    const segment = (await w.h.call('GET', '/segments')).body.data[0];
    expect(segment.rules).toEqual({ match: 'all', conditions: [{ field: 'tags', operator: 'contains', value: 'vip' }] });
    expect(await axe(page)).toEqual([]);
    await page.getByRole('link', { name: 'VIPs' }).click();
    await page.waitForSelector('td:has-text("ada@example.com")');
    const members = await page.locator('[aria-label="Members"] tbody tr').allInnerTexts();
    expect(members.map((m) => m.split('\t')[0]).sort()).toEqual(['ada@example.com', 'bo@example.com']);
    expect(await axe(page)).toEqual([]);
    await shot(page, 'segment-members');

    await page.goto(`${w.base}/console#/campaigns`);
    await page.waitForSelector('text=No campaigns yet.');
    await page.getByLabel('Name').fill('VIP launch');
    await page.getByLabel('Segment').selectOption(segment.id);
    await page.getByLabel('Template').selectOption(tpl.body.id);
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.waitForSelector('text=Campaign VIP launch created.');
    const made = (await w.h.call('GET', '/campaigns')).body.data[0];
    expect(made).toMatchObject({ name: 'VIP launch', segment_id: segment.id, template_id: tpl.body.id, status: 'scheduled' });
    await page.getByRole('button', { name: 'Pause VIP launch' }).click();
    await page.waitForSelector('tr:has-text("VIP launch") .status:has-text("paused")');
    expect((await w.h.call('GET', `/campaigns/${made.id}`)).body.status).toBe('paused');
    await page.getByRole('button', { name: 'Resume VIP launch' }).click();
    await page.waitForSelector('tr:has-text("VIP launch") .status:has-text("scheduled")');
    expect(await axe(page)).toEqual([]);
    await shot(page, 'campaigns');

    await page.getByRole('link', { name: 'VIP launch' }).click();
    await page.waitForSelector('[aria-label="Metrics"]');
    expect(await page.locator('tr:has-text("sent")').first().innerText()).toContain('0');
    // The send runs where the email settings are (another process); the open page sees it within seconds.
    const sender = w.h.elsewhere({ SMTP_URL: 'smtp://127.0.0.1:9', SVC_EMAIL_FROM: 'news@svc.test', SVC_PUBLIC_URL: 'https://svc.test' });
    const worker = { db: w.h.db, clock: w.h.clock, registry: sender.registry };
    for (const job of await takeQueued(w.h, 'campaigns.send')) await runJob(worker, 'campaigns.send', [job]);
    await page.waitForSelector('[aria-label="Campaign"] .status:has-text("sent")', { timeout: 15_000 });
    expect(await page.locator('[aria-label="Metrics"] tr', { hasText: 'recipients' }).innerText()).toContain('2');
    expect(await axe(page)).toEqual([]);
    await shot(page, 'campaign-metrics');
    expect(problems).toEqual([]);
  },
  120_000,
);
