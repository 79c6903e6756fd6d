import { randomBytes } from 'node:crypto';
import { freePort } from '../../../src/demo/free-port';
import { txidOf } from '../../../src/payments/pix/pix-api';
import { FakeErp } from '../../support/fake-erp';
import { FakePix } from '../../support/fake-pix';
import { eventually, ROUTE_TOKEN, WAIT_DEADLINE_MS } from '../../support/harness';
import { OtlpCollector } from '../../support/otlp-collector';
import { makePixCertificates, type PixCertificates } from '../../support/pix-certificates';
import { redisAndSimulator } from '../../support/platform';
import { connectorStarted, spawnConnector, type Spawned } from '../../support/spawn-ts';

/*
 * Traces carry no secret (CONTRACT "Connect and a provider's own endpoints, safe by
 * construction"): the spans of the connector's calls leave the process scrubbed by the logs'
 * matcher. A Pix PSP that wants an application key in the query (Banco do Brasil's
 * `gw-dev-app-key`), an ERP_WEBHOOK_URL whose query holds the ERP's key, and the shop's Pix key in
 * the API Pix's paths (`/webhook/{chave}`: an e-mail, a CPF, a phone: personal data) reach the
 * collector as each query parameter's name with `REDACTED` for its value, and `{chave}`.
 */
const ERP_SECRET = `erp-${randomBytes(12).toString('hex')}`;
const ERP_KEY = `erpkey${randomBytes(12).toString('hex')}`;
const APP_KEY = `appkey${randomBytes(12).toString('hex')}`;
/** The shop's Pix key: an e-mail, as many shops' are. */
const PIX_KEY = `financeiro.${randomBytes(4).toString('hex')}@loja-ipe.example`;
const SPAN_KIND_CLIENT = 3;

describe('the spans of the connector’s calls carry no secret and no Pix key', () => {
  const shared = redisAndSimulator();
  const collector = new OtlpCollector();
  const erp = new FakeErp(ERP_SECRET);
  let certs: PixCertificates;
  let pix: FakePix;
  let connector: Spawned | undefined;
  let apiUrl = '';

  beforeAll(async () => {
    await collector.start();
    await erp.start();
    certs = await makePixCertificates();
    pix = new FakePix({ certs, pixKey: PIX_KEY });
    await pix.start();
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    connector = spawnConnector(shared.redis.url, shared.simulator.url, {
      ...pix.env(),
      // Banco do Brasil's profile: its application key goes in every call's query.
      PIX_PSP: 'bb',
      PIX_APPLICATION_KEY: APP_KEY,
      // The fake PSP's CA, as a deployment trusts its PSP's.
      NODE_EXTRA_CA_CERTS: certs.files.ca,
      PORT: String(port),
      PUBLIC_URL: apiUrl,
      QUEUE_PREFIX: `ts${randomBytes(3).toString('hex')}`,
      ERP_SINK: 'webhook',
      ERP_WEBHOOK_URL: `${erp.url}/orders?key=${ERP_KEY}&shop=ipe`,
      ERP_WEBHOOK_SECRET: ERP_SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    await connectorStarted(connector);
    shared.simulator.connectTo({ checkoutUrl: `${apiUrl}/checkout`, token: ROUTE_TOKEN });
  }, 60_000);
  afterAll(async () => {
    if (connector) {
      connector.child.kill('SIGKILL');
      await connector.exited;
    }
    await pix?.stop();
    await certs?.remove();
    await erp.stop();
    await collector.stop();
  });

  it("writes the ERP's key, the PSP's application key and the shop's Pix key nowhere in a span", async () => {
    const { simulator } = shared;
    await eventually(() => pix.webhooks.get(PIX_KEY), WAIT_DEADLINE_MS, 'the Pix webhook');
    const answer = await simulator.requestCheckout(1001);
    const checkoutId = (answer.body as { checkout_id: string }).checkout_id;
    const txid = txidOf(checkoutId);
    await eventually(() => pix.cobs.get(txid), WAIT_DEADLINE_MS, 'the charge');
    expect((await pix.payAndNotify(txid)).status).toBe(200);
    await eventually(() => erp.payments(checkoutId, 'paid')[0], WAIT_DEADLINE_MS, 'the record');

    const urlOf = (test: (url: string) => boolean) =>
      eventually(
        () =>
          collector.spans.find(
            (span) =>
              span.kind === SPAN_KIND_CLIENT && test(String(span.attributes['url.full'] ?? '')),
          ),
        WAIT_DEADLINE_MS,
        'a client span',
      );
    // Each call's span, its query's names kept and their values replaced, the key a placeholder.
    const registered = await urlOf((url) => url.startsWith(`${pix.apiUrl}/webhook/`));
    expect(registered.attributes['url.full']).toBe(
      `${pix.apiUrl}/webhook/{chave}?gw-dev-app-key=REDACTED`,
    );
    const charged = await urlOf((url) => url.startsWith(`${pix.apiUrl}/cob/${txid}`));
    expect(charged.attributes['url.full']).toBe(
      `${pix.apiUrl}/cob/${txid}?gw-dev-app-key=REDACTED`,
    );
    const delivered = await urlOf((url) => url.startsWith(erp.url));
    expect(delivered.attributes['url.full']).toBe(`${erp.url}/orders?key=REDACTED&shop=REDACTED`);

    const exported = JSON.stringify(collector.spans);
    for (const secret of [ERP_KEY, APP_KEY, PIX_KEY, encodeURIComponent(PIX_KEY)]) {
      expect(exported).not.toContain(secret);
    }
    expect(collector.refused).toEqual([]);
  });
});
