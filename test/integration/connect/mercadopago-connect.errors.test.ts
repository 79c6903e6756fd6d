import { runCliCaptured } from '../../support/cli';
import { mercadoPagoConnectWorld } from '../../support/connect-worlds';
import type { FakeMercadoPago } from '../../support/fake-mercadopago';
import { eventually, type Harness } from '../../support/harness';

/*
 * Connecting a shop's Mercado Pago account by OAuth (CONTRACT "Connecting a shop's provider
 * account"), when something is refused or fails: a token refused with 401 is renewed once and the
 * call retried; a revoked grant is seen, said (503, the gauge, doctor, shops list) and fixed with
 * a new link; a provider that keeps refusing the token abandons the checkout; unknown or malformed
 * links and a consent cancelled at Mercado Pago change nothing; a vendor fee for pasted keys, a
 * connection written by hand, the env shop and a provider with no connect are refused. Against a
 * loopback Mercado Pago written from its OAuth reference.
 */
describe("connecting a shop's Mercado Pago account by OAuth: refusals and failures", () => {
  const world = mercadoPagoConnectWorld();
  const { admin, owner, addShop, connect, shopView, cliEnv } = world;
  let h: Harness;
  let mp: FakeMercadoPago;
  beforeAll(() => {
    h = world.h;
    mp = world.mp;
  });

  it('a token refused with 401 is renewed once and the call retried: the checkout goes on', async () => {
    const { platform, route } = await addShop('dunas');
    await connect('dunas', 7003);
    const before = await shopView('dunas');
    mp.lapseAccessTokens(7003);
    const refreshes = () =>
      mp.tokenRequests.filter((call) => call.grantType === 'refresh_token').length;
    const refreshedBefore = refreshes();
    const answer = await fetch(route.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${route.token}` },
      body: JSON.stringify({ service_id: 1004 }),
    });
    expect(answer.status).toBe(202);
    await eventually(() =>
      h.simulator
        .accepted('checkout-url')
        .find((c) => c.account === platform.email && c.serviceId === 1004),
    );
    expect(refreshes()).toBe(refreshedBefore + 1);
    const after = await shopView('dunas');
    expect(after.provider.expiresAt).not.toBe(before.provider.expiresAt);
    const audit = (await (await admin('/shops/dunas/audit')).json()) as {
      entries: Array<{ action: string; fields: string[] }>;
    };
    expect(audit.entries[0]).toMatchObject({
      action: 'credential-renewed',
      fields: expect.arrayContaining(['provider.accessToken', 'provider.refreshToken']),
    });
  });

  it('a revoked grant marks the shop needs_reconnect: 503 at once, the gauge is 1, a new link fixes it', async () => {
    const { route } = await addShop('esteio');
    await connect('esteio', 7004);
    mp.revokeGrant(7004);
    const call = () =>
      fetch(route.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${route.token}` },
        body: JSON.stringify({ service_id: 1005 }),
      });
    // The first checkout meets the 401; its renewal is refused (invalid_grant).
    expect((await call()).status).toBe(202);
    const view = await eventually(async () => {
      const shown = await shopView('esteio');
      return shown.needs_reconnect ? shown : undefined;
    });
    expect(view.needs_reconnect).toEqual({
      since: expect.any(String),
      reason: expect.stringContaining('invalid_grant'),
    });
    // From now on no checkout is started.
    await eventually(async () => ((await call()).status === 503 ? true : undefined));
    const refused = (await (await call()).json()) as { error: { code: string } };
    expect(refused.error.code).toBe('SHOP_NEEDS_RECONNECT');
    const metrics = await (await fetch(`${h.url}/metrics`)).text();
    expect(metrics).toContain('connector_shop_needs_reconnect{shop="esteio"} 1');
    expect(metrics).toMatch(
      /connector_credential_expiry_timestamp_seconds\{shop="esteio",kind="oauth_access_token"\} \d+/,
    );
    const list = (await (await admin('/shops')).json()) as {
      shops: Array<{ id: string; needs_reconnect?: unknown }>;
    };
    expect(list.shops.find((shop) => shop.id === 'esteio')?.needs_reconnect).toBeDefined();

    const doctor = await runCliCaptured(['doctor'], cliEnv());
    expect(doctor.stdout).toMatch(
      /FAIL\s+shop esteio\s+must connect again since .*SHOP_NEEDS_RECONNECT/,
    );
    expect(doctor.stdout).toContain('connector shops connect esteio --provider mercadopago');
    const listed = await runCliCaptured(['shops', 'list'], cliEnv());
    expect(listed.stdout).toMatch(/esteio\s+needs reconnect/);
    expect(listed.stdout).toContain('connector shops connect esteio --provider mercadopago');

    // A new link (the CLI's, this time), the owner authorizes again: served again.
    const made = await runCliCaptured(
      ['shops', 'connect', 'esteio', '--provider', 'mercadopago', '--json'],
      cliEnv(),
    );
    expect(made.code).toBe(0);
    const link = JSON.parse(made.stdout) as { url: string; expires_at: string };
    const start = await owner.fetch(`${link.url}/start`, { method: 'POST', redirect: 'manual' });
    const done = await owner.fetch(
      mp.approve(start.headers.get('location') ?? '', { userId: 7004 }),
    );
    expect(done.status).toBe(200);
    expect((await shopView('esteio')).needs_reconnect).toBeUndefined();
    await eventually(async () => ((await call()).status === 202 ? true : undefined));
    const healed = await (await fetch(`${h.url}/metrics`)).text();
    expect(healed).toContain('connector_shop_needs_reconnect{shop="esteio"} 0');
  });

  it('a provider that keeps refusing the token: one renewal and one retry, then the checkout is abandoned', async () => {
    const { platform, route } = await addShop('gameleira');
    await connect('gameleira', 7005);
    mp.refuseAccessTokensOf(7005);
    const refreshes = () =>
      mp.tokenRequests.filter((call) => call.grantType === 'refresh_token').length;
    const before = refreshes();
    const answer = await fetch(route.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${route.token}` },
      body: JSON.stringify({ service_id: 1009 }),
    });
    expect(answer.status).toBe(202);
    // A refusal is no transient failure: the checkout is abandoned and the platform told.
    await eventually(() =>
      h.simulator
        .accepted('cancel-checkout')
        .find((c) => c.account === platform.email && c.serviceId === 1009),
    );
    expect(refreshes()).toBe(before + 1);
  });

  it('unknown, malformed and expired-by-use links are 404 pages, never a 500', async () => {
    for (const path of [
      '/connect/nope',
      `/connect/${'A'.repeat(43)}`,
      '/connect/mercadopago/callback?state=x&code=y',
    ]) {
      const response = await fetch(`${h.url}${path}`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/text\/html/);
      expect(await response.text()).toContain('Link inválido');
    }
  });

  it('the owner who cancels at Mercado Pago changes nothing, and the link still works', async () => {
    await addShop('freijo');
    const made = await admin('/shops/freijo/connect', {
      method: 'POST',
      body: JSON.stringify({ provider: 'mercadopago' }),
    });
    const link = (await made.json()) as { url: string };
    const start = await owner.fetch(`${link.url}/start`, { method: 'POST', redirect: 'manual' });
    const cancelled = await owner.fetch(mp.deny(start.headers.get('location') ?? ''));
    expect(cancelled.status).toBe(200);
    expect(await cancelled.text()).toContain('Conexão cancelada');
    expect((await shopView('freijo')).provider).toEqual({ name: 'sandbox' });
    expect((await fetch(link.url)).status).toBe(200);
  });

  it('refuses a vendor fee for a shop with pasted keys, and a connection written by hand', async () => {
    await addShop('goncalo');
    const fee = await admin('/shops/goncalo', {
      method: 'PATCH',
      body: JSON.stringify({ vendorFee: { percent: 1 } }),
    });
    expect(fee.status).toBe(400);
    expect(JSON.stringify(await fee.json())).toContain('vendorFee');
    const byHand = await admin('/shops/goncalo', {
      method: 'PATCH',
      body: JSON.stringify({
        provider: {
          name: 'mercadopago',
          connection: 'oauth',
          account: '1',
          accessToken: 'APP_USR-1',
        },
      }),
    });
    expect(byHand.status).toBe(400);
    expect(JSON.stringify(await byHand.json())).toContain('provider.connection');
    const env = await admin('/shops/default/connect', {
      method: 'POST',
      body: JSON.stringify({ provider: 'mercadopago' }),
    });
    // The env shop is its variables: there is nothing to store a connection in.
    expect(env.status).toBe(400);
    expect(JSON.stringify(await env.json())).toContain('env shop');
    const pix = await admin('/shops/goncalo/connect', {
      method: 'POST',
      body: JSON.stringify({ provider: 'pix' }),
    });
    expect(pix.status).toBe(400);
    expect(JSON.stringify(await pix.json())).toContain('"field":"provider"');
  });
});
