import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import type { CONNECTABLE } from '../../src/connect/connect-links';
import { ARTIFACTS, launchBrowser } from '../support/browser';
import { addSandboxShop, adminApi } from '../support/connect-shops';
import { FakeAsaas } from '../support/fake-asaas';
import { FakeMercadoPago } from '../support/fake-mercadopago';
import { FakeStripe } from '../support/fake-stripe';
import { startHarness, type Harness } from '../support/harness';

/*
 * The shop owner's side of connecting a Mercado Pago account, in a real browser on a phone's
 * screen: the link's page, its one button through Mercado Pago's consent (a loopback fake) and
 * back to "Conta conectada"; a used link is a 404 page. The screenshots are the Shops guide's
 * (docs/shops.md "Connecting a shop's provider account").
 */
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;

describe('the connect link in a real browser', () => {
  let browser: Browser;
  let mp: FakeMercadoPago;
  let asaas: FakeAsaas;
  let stripe: FakeStripe;
  let h: Harness;

  beforeAll(async () => {
    mp = new FakeMercadoPago();
    await mp.start();
    asaas = new FakeAsaas();
    await asaas.start();
    stripe = new FakeStripe();
    await stripe.start();
    h = await startHarness({
      env: {
        SHOP_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        ADMIN_TOKEN,
        MERCADOPAGO_CLIENT_ID: mp.application.clientId,
        MERCADOPAGO_CLIENT_SECRET: mp.application.clientSecret,
        MERCADOPAGO_WEBHOOK_SECRET: mp.webhookSecret,
        MERCADOPAGO_AUTH_URL: mp.url,
        MERCADOPAGO_API_URL: mp.url,
        ASAAS_ROOT_API_KEY: asaas.rootApiKey,
        ASAAS_API_URL: `${asaas.url}/v3`,
        STRIPE_CONNECT_SECRET_KEY: stripe.secretKey,
        STRIPE_CONNECT_WEBHOOK_SECRET: stripe.connectWebhookSecret,
        STRIPE_API_URL: stripe.url,
        PROVIDER_API_ORIGINS: `${mp.url},${asaas.url},${stripe.url}`,
      },
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
    await mp?.stop();
    await asaas?.stop();
    await stripe?.stop();
  });

  async function linkFor(
    id: string,
    name: string,
    provider: (typeof CONNECTABLE)[number] = 'mercadopago',
  ): Promise<string> {
    const admin = adminApi(() => h, ADMIN_TOKEN);
    await addSandboxShop(h, admin, id, name);
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const made = await fetch(`${h.url}/admin/api/shops/${id}/connect`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ provider }),
    });
    return ((await made.json()) as { url: string }).url;
  }

  it('on a phone: the page names the shop, its one button leads through Mercado Pago back to "Conta conectada"', async () => {
    const url = await linkFor('marcenaria-silva', 'Marcenaria Silva');
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await page.goto(url);
      expect(await page.getByTestId('connect-shop').textContent()).toBe('Marcenaria Silva');
      expect(await page.locator('button').count()).toBe(1);
      const button = page.getByTestId('connect-button');
      expect(await button.textContent()).toBe('Conectar com Mercado Pago');
      // Nothing runs off the screen of a phone.
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow).toBe(0);
      await page.locator('main').screenshot({ path: path.join(ARTIFACTS, 'connect-link.png') });

      await button.click();
      // Mercado Pago's consent page (the fake's), reached through the form's redirect.
      await page.waitForURL(`${mp.url}/authorization?**`);
      await page.getByRole('button', { name: 'Permitir' }).click();
      await page.waitForURL(`${h.url}/connect/mercadopago/callback?**`);
      expect(await page.getByTestId('connect-result').textContent()).toBe('Conta conectada');
      await page.locator('main').screenshot({ path: path.join(ARTIFACTS, 'connect-done.png') });

      // The link is used: opened again, a 404 page.
      const again = await page.goto(url);
      expect(again?.status()).toBe(404);
      expect(await page.getByTestId('connect-result').textContent()).toBe('Link inválido');
    } finally {
      await page.close();
    }
  });

  it('on a desktop: an owner who cancels at Mercado Pago is told nothing changed', async () => {
    const url = await linkFor('moveis-aurora', 'Móveis Aurora');
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(url);
      await page.getByTestId('connect-button').click();
      await page.waitForURL(`${mp.url}/authorization?**`);
      await page.getByRole('button', { name: 'Cancelar' }).click();
      await page.waitForURL(`${h.url}/connect/mercadopago/callback?**`);
      expect(await page.getByTestId('connect-result').textContent()).toBe('Conexão cancelada');
      // The same link still works.
      const back = await page.goto(url);
      expect(back?.status()).toBe(200);
      expect(await page.getByTestId('connect-shop').textContent()).toBe('Móveis Aurora');
    } finally {
      await page.close();
    }
  });

  it("on a phone: Asaas's form is typed in, refused where Asaas refuses it, then the account is created", async () => {
    const url = await linkFor('marcenaria-ipe', 'Marcenaria Ipê', 'asaas');
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await page.goto(url);
      expect(await page.getByTestId('connect-shop').textContent()).toBe('Marcenaria Ipê');
      expect(await page.locator('button').count()).toBe(1);
      const fill = async (values: Record<string, string>) => {
        for (const [name, value] of Object.entries(values))
          await page.locator(`input[name="${name}"]`).fill(value);
      };
      await fill({
        name: 'Marcenaria Ipê Ltda',
        email: 'dono@ipe-browser.example',
        cpfCnpj: '11222333000181',
        mobilePhone: '11987654321',
        incomeValue: '25000',
        postalCode: '0131',
        address: 'Avenida Paulista',
        addressNumber: '1000',
        province: 'Bela Vista',
      });
      await page.locator('select[name="companyType"]').selectOption('LIMITED');
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow).toBe(0);
      await page.locator('main').screenshot({ path: path.join(ARTIFACTS, 'connect-asaas.png') });
      await page.getByTestId('connect-button').click();
      // The CEP is refused: the form again, what was typed kept, the field marked.
      await page.waitForSelector('input[name="postalCode"][aria-invalid="true"]');
      expect(await page.locator('input[name="email"]').inputValue()).toBe(
        'dono@ipe-browser.example',
      );
      await fill({ postalCode: '01310100' });
      await page.getByTestId('connect-button').click();
      await page.waitForSelector('[data-testid="connect-result"]');
      expect(await page.getByTestId('connect-result').textContent()).toBe('Conta conectada');
    } finally {
      await page.close();
    }
  });

  it('on a phone: Stripe\'s onboarding through the link\'s button, back to "Conta conectada"', async () => {
    const url = await linkFor('moveis-jacaranda', 'Móveis Jacarandá', 'stripe');
    stripe.connectWebhookUrl = `${h.url}/webhooks/stripe-connect`;
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await page.goto(url);
      expect(await page.getByTestId('connect-button').textContent()).toBe('Conectar com Stripe');
      await page.getByTestId('connect-button').click();
      // Stripe's hosted onboarding (the fake's), reached through the form's redirect.
      await page.waitForURL(`${stripe.url}/onboarding/**`);
      await page.getByRole('button', { name: 'Concluir' }).click();
      await page.waitForURL(`${h.url}/connect/stripe/return?**`);
      expect(await page.getByTestId('connect-result').textContent()).toBe('Conta conectada');
    } finally {
      await page.close();
    }
  });
});
