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
          `Shop ${shop}: open (?:the checkout|its payment page) in a browser[^\\n]*:\\n\\s+(http\\S+)`,
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
        // The second shop is on a deposit plan: its page first, the deposit by card.
        const planned = new URL(url).pathname.startsWith('/pay/');
        expect([shop, planned]).toEqual([shop, shop === 'marcenaria-demo']);
        expect(await page.text()).toContain(planned ? `Pedido ${order.slice(-4)}` : order);
        const sandbox = planned ? await startedDeposit(url) : url;
        const paid = await fetch(`${sandbox}/pay`, { method: 'POST', redirect: 'follow' });
        expect(paid.status).toBe(200);
        const returned = await paid.text();
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
      expect(other.stdout).toMatch(/now paid, reported to the platform/);
      expect(other.stdout).toMatch(/part deposit +R\$\s[\d.,]+, paid/);
      expect(other.stdout).toMatch(/now paid \(card\) {2}deposit of chk_marcenaria-demo_/);
      // README: the planned order's page and balance, for the ERP to send the customer.
      const planned = await runCliCaptured(
        ['services', 'get', '1002', '--shop', 'marcenaria-demo'],
        env,
      );
      expect(planned).toMatchObject({ code: 0 });
      expect(planned.stdout).toMatch(/^payment page {2}http:\/\/\S+\/pay\/chk_marcenaria-demo_/m);
      expect(planned.stdout).toMatch(
        /balance_due: paid R\$\s[\d.,]+ of R\$\s[\d.,]+; balance R\$\s[\d.,]+ due \d{4}-\d{2}-\d{2}$/m,
      );
      const plain = await runCliCaptured(['services', 'get', '1001'], env);
      expect(plain).toMatchObject({ code: 0 });
      expect(plain.stdout).not.toMatch(/payment page/);
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

/** The deposit chosen on a plan's page (by card): the part's sandbox page it leads to. */
async function startedDeposit(url: string): Promise<string> {
  const started = await fetch(`${url}/start`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'part=deposit&method=card',
    redirect: 'manual',
  });
  expect(started.status).toBe(303);
  return new URL(started.headers.get('location') ?? '', url).toString();
}
