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

  it('asks for credentials, and refuses wrong ones with a JSON error saying so', async () => {
    const none = await fetch(`${h.url}/admin/queues`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Basic');
    expect(await none.json()).toMatchObject({
      error: { code: 'UNAUTHORIZED', message: 'Dashboard credentials are required.' },
    });
    const as = (user: string, password: string) =>
      fetch(`${h.url}/admin/queues`, {
        headers: {
          authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
        },
      });
    const wrongPassword = await as(USER, 'nope');
    const wrongUser = await as('someone', PASSWORD);
    for (const wrong of [wrongPassword, wrongUser]) {
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toContain('Basic');
    }
    type Refusal = { error: { code: string; message: string; request_id: string } };
    const byPassword = (await wrongPassword.json()) as Refusal;
    const byUser = (await wrongUser.json()) as Refusal;
    expect(byPassword).toMatchObject({
      error: { code: 'UNAUTHORIZED', message: 'Dashboard credentials were not accepted.' },
    });
    // Nothing tells which of the two was wrong.
    expect({ ...byUser.error, request_id: '' }).toEqual({ ...byPassword.error, request_id: '' });
    expect(h.log.text()).not.toContain(PASSWORD);
  });

  it('loads nothing from another host, and renders its queues in a font of this machine', async () => {
    const context = await browser.newContext({
      httpCredentials: { username: USER, password: PASSWORD },
      viewport: { width: 1280, height: 800 },
    });
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    const answer = await page.goto(`${h.url}/admin/queues`);
    for (const queue of ['checkout', 'notifications']) {
      await page.getByRole('link', { name: queue, exact: true }).first().waitFor();
    }
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-overview-1280.png') });
    const own = new URL(h.url).origin;
    expect(requested.length).toBeGreaterThan(0);
    expect(
      requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== own),
    ).toEqual([]);
    // Nor does its CSP allow any other host.
    const csp = String(answer?.headers()['content-security-policy']);
    const sources = csp.split(';').flatMap((directive) => directive.trim().split(/\s+/).slice(1));
    expect(sources.filter((source) => !/^('[a-z-]+'|data:)$/.test(source))).toEqual([]);
    // And the page needs none: nothing it asked for was refused.
    expect(refused).toEqual([]);

    // Its text is drawn in a font this machine has (bull-board's theme: a local font stack).
    const cdp = await context.newCDPSession(page);
    await cdp.send('DOM.enable');
    await cdp.send('CSS.enable');
    const { root } = await cdp.send('DOM.getDocument');
    const { nodeId } = await cdp.send('DOM.querySelector', {
      nodeId: root.nodeId,
      selector: 'a[href$="queue/checkout"]',
    });
    const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
    expect(fonts.reduce((glyphs, font) => glyphs + font.glyphCount, 0)).toBeGreaterThanOrEqual(
      'checkout'.length,
    );
    await context.close();
  });

  it("says on the overview why the checkout queue's Delayed is not trouble", async () => {
    const context = await browser.newContext({
      httpCredentials: { username: USER, password: PASSWORD },
      viewport: { width: 1280, height: 800 },
    });
    const page = await context.newPage();
    await page.goto(`${h.url}/admin/queues`);
    // The reconciler's schedule keeps its next run in Delayed.
    await eventually(
      async () => ((await h.connector.jobs.checkoutQueue.getDelayedCount()) > 0 ? true : undefined),
      WAIT_DEADLINE_MS,
      "the reconciler's next run",
    );
    const card = page.locator('[class*="queueCard"]').filter({
      has: page.getByRole('link', { name: 'checkout', exact: true }),
    });
    await card.waitFor();
    await card.locator('[class*="infoTip"]').hover();
    const tip = page.getByText(/^Delayed is normal here/).first();
    await tip.waitFor();
    expect(await tip.textContent()).toMatch(/reconciler.*expiry check/);
    await context.close();
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

  it("fits a phone's width, its overview and a queue's page", async () => {
    const context = await browser.newContext({
      httpCredentials: { username: USER, password: PASSWORD },
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    await page.goto(`${h.url}/admin/queues`);
    await page.getByRole('link', { name: 'notifications', exact: true }).first().waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-overview-390.png') });
    const overflow = () =>
      page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.goto(`${h.url}/admin/queues/queue/checkout?status=delayed`);
    // The reconciler's next run, by its scheduler's job id.
    await page
      .getByText(/^repeat:reconcile:/)
      .first()
      .waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-delayed-390.png') });
    expect(await overflow()).toBeLessThanOrEqual(0);
    await context.close();
  });
});
