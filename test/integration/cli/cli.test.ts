import { computedAmount } from '../../../src/checkout/amount-source';
import { PlatformClient } from '../../../src/platform/platform-client';
import { captureLog } from '../../support/log-capture';
import { DEMO_CREDENTIALS, PlatformSimulator } from '../../../src/simulator/platform-simulator';
import { runCliCaptured } from '../../support/cli';

describe('connector CLI against the simulator', () => {
  let simulator: PlatformSimulator;
  let env: Record<string, string>;

  beforeAll(async () => {
    simulator = new PlatformSimulator({ serviceCount: 23 });
    const url = await simulator.start();
    env = {
      PLATFORM_BASE_URL: url,
      PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
      PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
      PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
    };
  });
  afterAll(() => simulator.stop());

  async function run(args: string[], extraEnv: Record<string, string> = {}) {
    return runCliCaptured(args, { ...env, ...extraEnv });
  }

  it('lists every service as JSON across pages with --all, nothing on a stderr that is no terminal', async () => {
    const result = await run([
      'services',
      'list',
      '--all',
      '--format',
      'json',
      '--page-size',
      '10',
    ]);
    expect(result.code).toBe(0);
    const items = JSON.parse(result.stdout) as Array<{ id: number }>;
    expect(items.map((s) => s.id)).toEqual(Array.from({ length: 23 }, (_, i) => 1001 + i));
    expect(result.stderr).toBe('');
  });

  it('lists as NDJSON with a status filter', async () => {
    const result = await run(['services', 'list', '--format', 'ndjson', '--status', '6']);
    const items = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { status: { code: number } });
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((s) => s.status.code === 6)).toBe(true);
  });

  it('lists as CSV with a header, escaping fields', async () => {
    await run(['services', 'link', '1001', 'ERP "A", 1']);
    const result = await run(['services', 'list', '--format', 'csv', '--limit', '2']);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe('id,internal_code,status_code,status_name,created_date');
    expect(lines[1]).toMatch(/^1001,"ERP ""A"", 1",4,quote generated,2026-/);
    expect(lines).toHaveLength(3);
  });

  it('lists as a table by default, with passthrough filters', async () => {
    const result = await run(['services', 'list', '--filter', 'internal_code=PED-001003']);
    expect(result.stdout.split('\n')[0]).toMatch(/^ID\s+INTERNAL_CODE\s+STATUS_CODE/);
    expect(result.stdout).toContain('PED-001003');
    expect(result.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('gets one service in full as JSON, exactly as the platform sent it', async () => {
    const sent = JSON.parse(JSON.stringify(simulator.state.service(1005))) as unknown;
    // --format json, as every command that shows has it; --json, as the CONTRACT names it.
    for (const flags of [['--format', 'json'], ['--json']]) {
      const result = await run(['services', 'get', '1005', ...flags]);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual(sent);
    }
  });

  it('gets one service as a readable summary with what a checkout would charge', async () => {
    const service = simulator.state.service(1003) as {
      parts: unknown[];
      materials: { boards: Array<{ description: string }> };
    };
    const result = await run(['services', 'get', '1003']);
    expect(result.code).toBe(0);
    const text = result.stdout;
    expect(text).toMatch(/^service 1003 {2}· {2}ERP order PED-001003 {2}· {2}client CLI-\d+\n/);
    expect(text).toMatch(/^status: 6 approved$/m);
    expect(text).toMatch(/^ {2}created {10}2026-\d\d-\d\dT/m);
    expect(text).toMatch(/^labour:\n {2}cutting +R\$/m);
    expect(text).toContain(service.materials.boards[0]?.description);
    expect(text).toContain(`parts (${service.parts.length}):`);
    expect(text).toMatch(/edge banding: (c1|none)/);
    // The same amount a checkout of it charges.
    const lookup = await new PlatformClient({
      baseUrl: simulator.url,
      email: DEMO_CREDENTIALS.email,
      password: DEMO_CREDENTIALS.password,
      apiKey: DEMO_CREDENTIALS.apiKey,
      timeoutMs: 5000,
      logger: captureLog().logger,
    }).getService(1003);
    if (!lookup.found) throw new Error('service 1003 not found');
    const charge = await computedAmount(lookup.service, 'BRL');
    const total = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(
      charge.amount.amountMinor / 100,
    );
    expect(text).toContain(`amount the connector would charge: ${total}`);
  });

  it('links an ERP order code', async () => {
    const result = await run(['services', 'link', '1007', 'ERP-7']);
    expect(result).toMatchObject({ code: 0, stdout: 'service 1007 linked to ERP order ERP-7\n' });
    expect(simulator.state.internalCode(1007)).toBe('ERP-7');
  });

  it('exits 1 for an unknown service and for a platform failure', async () => {
    expect(await run(['services', 'get', '4242'])).toMatchObject({
      code: 1,
      stderr: 'error: service 4242 not found\n',
    });
    const failed = await run(['services', 'get', '1001'], { PLATFORM_PASSWORD: 'wrong-password' });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('401');
    expect(failed.stderr).not.toContain('wrong-password');
  });

  it('exits 2 on usage errors', async () => {
    expect((await run(['services', 'get', 'abc'])).code).toBe(2);
    expect((await run(['services', 'list', '--format', 'xml'])).code).toBe(2);
    expect((await run(['nonsense'])).code).toBe(2);
  });

  it('exits 78 naming the missing variables', async () => {
    const { code, stderr } = await runCliCaptured(['services', 'list'], {});
    expect(code).toBe(78);
    expect(stderr).toContain('config error: PLATFORM_BASE_URL: is required');
  });

  it('prints help with exit 0', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('services');
    expect(result.stdout).toContain('simulator');
  });
});
