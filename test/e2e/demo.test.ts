import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { runCliCaptured } from '../support/cli';
import { spawnTs } from '../support/spawn-ts';

describe('npm run demo', () => {
  it('walks a checkout of each of its two shops from request to finish and stops cleanly on Ctrl-C', async () => {
    const env: Record<string, string> = { PORT: '0' };
    if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
    const demo = spawnTs('src/main/demo.ts', [], env);
    try {
      await demo.waitForOutput(/Ctrl-C stops everything/, 30_000);
      const urlOf = (shop: string) =>
        new RegExp(
          `Shop ${shop}: open the checkout in a browser, then Pay or Decline:\\n\\s+(http\\S+)`,
        ).exec(demo.stdout())?.[1] ?? '';
      // The env shop's route, and the second shop's, added with `connector shops add`.
      expect(demo.stdout()).toMatch(/\/shops\/marcenaria-demo\/checkout/);
      for (const [shop, order] of [
        ['default', 'Pedido nº 1001'],
        ['marcenaria-demo', 'Pedido nº 1002'],
      ] as const) {
        const url = urlOf(shop);
        expect(url).toMatch(/^http/);
        const page = await fetch(url);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain(order);
        expect((await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(
          303,
        );
      }
      const dashboard = /dashboard\s+(\S+)\s+\(user ops, password (\S+)\)/.exec(demo.stdout());
      expect(dashboard).not.toBeNull();
      const auth = Buffer.from(`ops:${dashboard?.[2] ?? ''}`).toString('base64');
      expect(
        (await fetch(dashboard?.[1] ?? '', { headers: { authorization: `Basic ${auth}` } })).status,
      ).toBe(200);
      // Both finishes reach the platform, each from its shop's account.
      await demo.waitForOutput(
        /platform received finish-checkout[^\n]*integrador@example.com[^\n]*1001/,
      );
      await demo.waitForOutput(
        /platform received finish-checkout[^\n]*marcenaria-demo@example.com[^\n]*1002/,
      );
      await demo.waitForOutput(/platform notified/);

      // The CLI reaches the running demo with the variables it printed and kept in .demo.env.
      const file = path.join(demo.cwd, '.demo.env');
      const kept = readFileSync(file, 'utf8');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const env = Object.fromEntries(
        [...kept.matchAll(/^export (\w+)='([^']*)'$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']),
      );
      for (const line of kept.trimEnd().split('\n')) expect(demo.stdout()).toContain(line);
      const status = await runCliCaptured(['checkout', 'status', '1001'], env);
      expect(status).toMatchObject({ code: 0 });
      expect(status.stdout).toMatch(/paid|notified/);
      const shops = await runCliCaptured(['shops', 'list'], env);
      expect(shops.stdout).toContain('marcenaria-demo');
      const services = await runCliCaptured(['services', 'list'], env);
      expect(services.stdout).toMatch(/^1001\b/m);

      demo.child.kill('SIGINT');
      expect(await demo.exited).toBe(0);
      expect(demo.stdout()).toContain('shutdown complete');
      // Stopped, it no longer points anywhere.
      expect(existsSync(file)).toBe(false);
    } finally {
      demo.child.kill('SIGKILL');
    }
  });
});
