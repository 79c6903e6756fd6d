import { spawnTs } from '../support/spawn-ts';

describe('npm run demo', () => {
  it('walks a checkout from request to finish and stops cleanly on Ctrl-C', async () => {
    const env: Record<string, string> = { PORT: '0' };
    if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
    const demo = spawnTs('src/main/demo.ts', [], env);
    try {
      const line = await demo.waitForOutput(
        /Open the checkout in a browser, then Pay or Decline:\n\s+(http\S+)/,
        20_000,
      );
      const url = /(http\S+)$/.exec(line)?.[1] ?? '';
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Pedido nº 1001');
      expect((await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
      const dashboard = /dashboard\s+(\S+)\s+\(user ops, password (\S+)\)/.exec(demo.stdout());
      expect(dashboard).not.toBeNull();
      const auth = Buffer.from(`ops:${dashboard?.[2] ?? ''}`).toString('base64');
      expect(
        (await fetch(dashboard?.[1] ?? '', { headers: { authorization: `Basic ${auth}` } })).status,
      ).toBe(200);
      await demo.waitForOutput(/platform received finish-checkout/);
      await demo.waitForOutput(/platform notified/);
      demo.child.kill('SIGINT');
      expect(await demo.exited).toBe(0);
      expect(demo.stdout()).toContain('shutdown complete');
    } finally {
      demo.child.kill('SIGKILL');
    }
  });
});
