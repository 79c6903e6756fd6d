import { startHarness, type Harness } from '../../support/harness';

describe('METRICS_PORT: /metrics off the public port', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' } });
  });
  afterAll(() => h.stop());

  it('serves /metrics on its own listener, bound to METRICS_HOST', async () => {
    const metricsUrl = h.connector.metricsUrl;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(String(metricsUrl)).port).not.toBe(new URL(h.url).port);
    const res = await fetch(String(metricsUrl));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('connector_');
  });

  it('answers /metrics on the public port with a JSON 404, and keeps health there', async () => {
    const res = await fetch(`${h.url}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
  });

  it('serves nothing else on the metrics listener', async () => {
    const other = String(h.connector.metricsUrl).replace(/\/metrics$/, '/checkout');
    const res = await fetch(other, { method: 'POST' });
    expect(res.status).toBe(404);
  });
});
