import { createApp } from '../../../src/http/app';
import { createMetrics } from '../../../src/infra/metrics';
import { PlatformClient } from '../../../src/platform/platform-client';
import { PlatformSimulator } from '../../../src/simulator/platform-simulator';
import { listen } from '../../support/http-app';
import { captureLog } from '../../support/log-capture';

/**
 * Secrets reach the process through requests and through the config; none may reach the log,
 * whether it arrives in a header, a query string, an error message or a failing upstream call.
 */
describe('secrets never reach the log', () => {
  const routeToken = 'route-token-5c1f0e9a7b2d4c3e';
  const password = 'platform-pass-8d7e6f5a4b3c';
  const apiKey = 'platform-key-1a2b3c4d5e6f';

  it('redacts secrets from request handling and from a failing platform call', async () => {
    const log = captureLog({ level: 'silly', secrets: [routeToken, password, apiKey] });
    const simulator = new PlatformSimulator({
      credentials: { email: 'ops@example.com', password: 'other', apiKey },
    });
    const platformUrl = await simulator.start();
    const app = createApp({
      logger: log.logger,
      metrics: createMetrics(),
      isReady: async () => true,
    });
    const server = await listen(app);
    try {
      await fetch(`${server.url}/checkout?token=${routeToken}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${routeToken}`,
          'x-api-key': routeToken,
          'content-type': 'application/json',
        },
        body: `{"token": "${routeToken}"`,
      });
      const client = new PlatformClient({
        baseUrl: platformUrl,
        email: 'ops@example.com',
        password,
        apiKey,
        timeoutMs: 1000,
        logger: log.logger,
        getRetries: 0,
      });
      await expect(client.getService(1001)).rejects.toMatchObject({ upstreamStatus: 401 });
      // Something careless a future caller might do: log a secret inside a message or a field.
      log.logger.warn(`upstream said ${password}`, {
        headers: { authorization: `Basic ${password}` },
        apiKey,
        nested: { note: `key=${apiKey}` },
      });
      log.logger.error('boom', new Error(`failed with token ${routeToken}`));
    } finally {
      await server.close();
      await simulator.stop();
    }
    const text = log.text();
    expect(log.entries().length).toBeGreaterThanOrEqual(5);
    expect(text).toContain('platform answered');
    expect(text).toContain('[redacted]');
    for (const secret of [
      routeToken,
      password,
      apiKey,
      Buffer.from(`ops@example.com:${password}`).toString('base64'),
    ]) {
      expect(text).not.toContain(secret);
    }
  });
});
