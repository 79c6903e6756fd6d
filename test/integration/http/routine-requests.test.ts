import { startHarness, type Harness } from '../../support/harness';

/**
 * CONTRACT "The first hour": what a browser does as a matter of course is not a warning. A
 * warning is for what someone should look at.
 */
describe('routine requests are not warnings', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      env: { DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'dashboard-pass-123' },
    });
  });
  afterAll(() => h.stop());

  const linesAbout = (path: string) =>
    h.log.entries().filter((entry) => entry.message === 'request failed' && entry.path === path);

  it("answers the browser's favicon request without a 404 or a line", async () => {
    const res = await fetch(`${h.url}/favicon.ico`);
    expect(res.status).toBe(204);
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(linesAbout('/favicon.ico')).toEqual([]);
  });

  it("logs the dashboard's first 401 (no credentials yet) at info, a wrong password at warn", async () => {
    const first = await fetch(`${h.url}/admin/queues`);
    expect(first.status).toBe(401);
    expect(first.headers.get('www-authenticate')).toMatch(/^Basic /);
    const wrong = await fetch(`${h.url}/admin/queues`, {
      headers: { authorization: `Basic ${Buffer.from('ops:wrong').toString('base64')}` },
    });
    expect(wrong.status).toBe(401);
    expect(linesAbout('/admin/queues').map((entry) => entry.level)).toEqual(['info', 'warn']);
  });
});
