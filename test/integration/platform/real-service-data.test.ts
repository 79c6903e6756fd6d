import { PlatformClient } from '../../../src/platform/platform-client';
import { DEMO_CREDENTIALS } from '../../../src/simulator/platform-simulator';
import { runCliCaptured } from '../../support/cli';
import { captureLog } from '../../support/log-capture';
import { eventually, startHarness, type Harness, WAIT_DEADLINE_MS } from '../../support/harness';
import { GUIDE_PART, guideShapedService, oddlyShapedService } from '../../support/service-shapes';

const GUIDE_ID = 1001;
const ODD_ID = 1002;

describe('real platform data never stops a payment', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ start: { produceBackoffMs: 50 } });
    h.simulator.state.override(GUIDE_ID, { detail: guideShapedService(GUIDE_ID) });
    h.simulator.state.override(ODD_ID, { detail: oddlyShapedService(ODD_ID) });
  });
  afterAll(() => h.stop());

  async function payEndToEnd(serviceId: number): Promise<{ checkoutId: string; total: string }> {
    const requested = await h.simulator.requestCheckout(serviceId);
    expect(requested.status).toBe(202);
    const checkoutId = (requested.body as { checkout_id: string }).checkout_id;
    const url = await eventually(
      () => h.simulator.checkoutUrlFor(serviceId),
      WAIT_DEADLINE_MS,
      'url',
    );
    const page = await (await fetch(url)).text();
    const total = /data-testid="total">([^<]+)</.exec(page)?.[1] ?? '';
    const paid = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    const finish = await eventually(
      () => h.simulator.accepted('finish-checkout').find((c) => c.serviceId === serviceId),
      WAIT_DEADLINE_MS,
      'finish',
    );
    expect(finish.idempotencyKey).toBe(`finish:${checkoutId}`);
    return { checkoutId, total };
  }

  it('pays a service whose parts are shaped as the import guide writes them', async () => {
    const { checkoutId, total } = await payEndToEnd(GUIDE_ID);
    expect(total.replace(/\s/g, ' ')).toBe('R$ 346,00');
    const record = await h.connector.deps.store.get(checkoutId);
    expect(record?.amount).toEqual({ amountMinor: 34_600, currency: 'BRL' });
    const warnings = h.log
      .entries()
      .filter((l) => l.message === 'platform answer has unexpected fields');
    expect(warnings.filter((l) => l.path === `/services/${GUIDE_ID}`)).toEqual([]);
  });

  it('still finds a new odd field after many answers, looking at one in twenty past the first hundred', async () => {
    // A client and a log of its own: what the other tests warned about does not count here.
    const log = captureLog({ level: 'warn', secrets: [] });
    const platform = new PlatformClient({
      baseUrl: h.simulator.url,
      ...DEMO_CREDENTIALS,
      timeoutMs: 2000,
      logger: log.logger,
    });
    const warned = () =>
      log
        .entries()
        .filter((l) => l.message === 'platform answer has unexpected fields')
        .filter((l) => l.path === '/services/1003');
    // Well past the first hundred answers of the route...
    for (let i = 0; i < 120; i++) await platform.getService(1004 + (i % 5));
    h.simulator.state.override(1003, { detail: oddlyShapedService(1003) });
    // ... an odd answer is looked at within twenty more.
    for (let i = 0; i < 20 && warned().length === 0; i++) await platform.getService(1003);
    expect(warned()).toHaveLength(1);
  });

  it('pays a service with every block shaped oddly, and warns once per odd field', async () => {
    const { checkoutId, total } = await payEndToEnd(ODD_ID);
    expect(total.replace(/\s/g, ' ')).toBe('R$ 235,50');
    expect((await h.connector.deps.store.get(checkoutId))?.lines).toEqual([
      { label: '5 × 2', amountMinor: 20_000 },
      { label: 'Corte', amountMinor: 1050 },
      { label: 'Embalagem', amountMinor: 2500 },
    ]);
    // Read it again: the same odd shape is not warned about twice.
    await h.connector.deps.platform.getService(ODD_ID);
    const warnings = h.log
      .entries()
      .filter((l) => l.message === 'platform answer has unexpected fields');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      level: 'warn',
      request: 'GET /services/:id',
      path: `/services/${ODD_ID}`,
    });
    const fields = (warnings[0]?.fields as Array<{ field: string }>).map((f) => f.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'observation',
        'status.created_date',
        'client',
        'labour.machining.resume',
        'materials.boards[].description',
        'parts[].function',
        'parts[].machining',
        'parts[].machining.startSide',
        'parts[].machining.horizontalDrills[].corner',
        'parts[]',
      ]),
    );
    // Only the field's path and the problem: never the value itself.
    expect(JSON.stringify(warnings[0])).not.toContain('eighteen');
  });

  it('still refuses a service whose prices cannot be read', async () => {
    h.simulator.state.override(1003, {
      detail: { id: 1003, labour: { cutting: { price: 'ten reais' } } },
    });
    const lookup = h.connector.deps.platform.getService(1003);
    await expect(lookup).rejects.toMatchObject({
      code: 'PLATFORM_BAD_RESPONSE',
      details: [{ field: 'labour.cutting.price', problem: expect.any(String) }],
    });
  });

  it('shows both services with `services get`, odd fields as they came', async () => {
    const env = {
      PLATFORM_BASE_URL: h.simulator.url,
      PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
      PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
      PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    };
    const run = async (id: number) => {
      const { code, stdout, stderr } = await runCliCaptured(
        ['services', 'get', String(id), '--json'],
        {
          PLATFORM_BASE_URL: h.simulator.url,
          PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
          PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
          PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
        },
      );
      return { code, service: JSON.parse(stdout || 'null'), stderr };
    };
    const guide = await run(GUIDE_ID);
    expect(guide.code).toBe(0);
    expect(guide.service.parts[0].machining).toEqual(GUIDE_PART.machining);

    const odd = await run(ODD_ID);
    expect(odd.code).toBe(0);
    expect(odd.service).toMatchObject({
      // As the platform sent it: a string id stays a string.
      id: String(ODD_ID),
      client: 'CLI-0001',
      parts: [expect.objectContaining({ function: 7 }), expect.anything(), 'garbage', null],
      extra_block: { anything: [1, 'two', null] },
    });
    expect(odd.stderr).toContain('unexpected fields');

    // The readable summary takes the same odd data: what it cannot read it leaves out.
    const summary = await runCliCaptured(['services', 'get', String(ODD_ID)], env);
    expect(summary.code).toBe(0);
    expect(summary.stdout).toMatch(new RegExp(`^service ${ODD_ID}`));
    expect(summary.stdout).toContain('parts (4):');
    expect(summary.stdout).toMatch(/amount the connector would charge: R\$/);
    const guideSummary = await runCliCaptured(['services', 'get', String(GUIDE_ID)], env);
    expect(guideSummary.stdout).toContain('drills: corner 2 XP Ø8 depth 22 at (0, 37, 9)');
  });
});
