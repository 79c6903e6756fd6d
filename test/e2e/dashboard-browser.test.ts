import path from 'node:path';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, launchBrowser } from '../support/browser';
import { eventually, startHarness, type Harness, WAIT_DEADLINE_MS } from '../support/harness';

const USER = 'ops';
const PASSWORD = 'dashboard-pass-123';

describe('the operators dashboard in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  beforeAll(async () => {
    h = await startHarness({ env: { DASHBOARD_USER: USER, DASHBOARD_PASSWORD: PASSWORD } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('asks for credentials, and refuses wrong ones with a JSON error', async () => {
    const none = await fetch(`${h.url}/admin/queues`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Basic');
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    const wrong = await fetch(`${h.url}/admin/queues`, {
      headers: { authorization: `Basic ${Buffer.from(`${USER}:nope`).toString('base64')}` },
    });
    expect(wrong.status).toBe(401);
    expect(h.log.text()).not.toContain(PASSWORD);
  });

  it('shows a failed delivery with its reason, and retries it', async () => {
    h.simulator.faults.add({ match: '/payment/finish-checkout', status: 400, times: 1 });
    await h.simulator.requestCheckout(1001);
    const url = await eventually(() => h.simulator.checkoutUrlFor(1001));
    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    await eventually(
      async () =>
        (await h.connector.jobs.notificationQueue.getFailedCount()) === 1 ? true : undefined,
      WAIT_DEADLINE_MS,
      'a failed delivery',
    );

    const context = await browser.newContext({
      httpCredentials: { username: USER, password: PASSWORD },
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    await page.goto(`${h.url}/admin/queues/queue/notifications?status=failed`);
    await page
      .getByText('answered 400 to POST /payment/finish-checkout')
      .first()
      .waitFor({ timeout: 15_000 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-failed.png'), fullPage: true });
    expect(await page.content()).not.toContain(PASSWORD);

    await page.getByRole('button', { name: /retry/i }).first().click();
    const confirm = page.getByRole('button', { name: /confirm|yes|retry/i }).last();
    if (await confirm.isVisible().catch(() => false)) await confirm.click();
    const finish = await eventually(
      () => h.simulator.accepted('finish-checkout').find((c) => c.serviceId === 1001),
      WAIT_DEADLINE_MS,
      'finish after retry from the dashboard',
    );
    expect(finish.body).toMatchObject({ service_id: 1001 });
    // The dashboard's own CSP lets its UI work whole: nothing it needs was refused.
    expect(refused).toEqual([]);
    expect(h.log.entries().some((e) => e.message === 'dashboard write')).toBe(true);
    await context.close();
  });
});
