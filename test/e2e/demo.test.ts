import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { runCliCaptured } from '../support/cli';
import { spawnTs } from '../support/spawn-ts';

describe('npm run demo', () => {
  it('walks a checkout of each of its two shops from request to finish and stops cleanly on Ctrl-C', async () => {
    const env: Record<string, string> = { PORT: '0' };
    if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
    const demo = spawnTs('src/demo/demo.ts', [], env);
    try {
      await demo.waitForOutput(/Ctrl-C stops everything/, 30_000);
      const urlOf = (shop: string) =>
        new RegExp(
          `Shop ${shop}: open the checkout in a browser, then Pay or Decline:\\n\\s+(http\\S+)`,
        ).exec(demo.stdout())?.[1] ?? '';
      // The env shop's route, and the second shop's, added with `connector shops add`.
      expect(demo.stdout()).toMatch(/\/shops\/marcenaria-demo\/checkout/);
      // Each shop has its name on its pages, and a way back to its site: the simulator's page
      // of that shop's orders.
      const siteOf = new Map<string, string>();
      for (const [shop, order, name] of [
        ['default', 'Pedido nº 1001', 'Móveis Aurora'],
        ['marcenaria-demo', 'Pedido nº 1002', 'Marcenaria Demo'],
      ] as const) {
        const url = urlOf(shop);
        expect(url).toMatch(/^http/);
        const page = await fetch(url);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain(order);
        const paid = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
        expect(paid.status).toBe(303);
        const returned = await (
          await fetch(new URL(paid.headers.get('location') ?? '', url))
        ).text();
        expect(returned).toContain(`data-testid="shop-name">${name}<`);
        const back = /data-testid="way-back" href="([^"]+)">Voltar à loja ([^<]+)</.exec(returned);
        expect(back?.[2]).toBe(name);
        siteOf.set(order, (back?.[1] ?? '').replaceAll('&#38;', '&'));
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
      for (const [order, site] of siteOf) {
        const serviceId = order.slice(-4);
        const shopPage = await (await fetch(site)).text();
        expect(shopPage).toMatch(
          new RegExp(`Pedido nº ${serviceId}</td><td[^>]*data-testid="order-${serviceId}">Pago`),
        );
      }

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
      // README: the other shop's checkout, with --shop.
      const other = await runCliCaptured(
        ['checkout', 'status', '1002', '--shop', 'marcenaria-demo'],
        env,
      );
      expect(other).toMatchObject({ code: 0 });
      expect(other.stdout).toMatch(/now paid \(card\), reported to the platform/);
      const shops = await runCliCaptured(['shops', 'list'], env);
      expect(shops.stdout).toMatch(
        /^default +env +sandbox +integrador@example\.com +Móveis Aurora$/m,
      );
      expect(shops.stdout).toMatch(/^marcenaria-demo +enabled +sandbox +\S+ +Marcenaria Demo$/m);
      const services = await runCliCaptured(['services', 'list'], env);
      expect(services.stdout).toMatch(/^1001\b/m);
      // README: against the demo, doctor finds nothing wrong.
      const doctor = await runCliCaptured(['doctor'], env);
      expect(doctor).toMatchObject({ code: 0 });
      const findings = doctor.stdout.trimEnd().split('\n');
      expect(findings.length).toBeGreaterThanOrEqual(4);
      expect(findings.filter((line) => !line.startsWith('ok '))).toEqual([]);

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
