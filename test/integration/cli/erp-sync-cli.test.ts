import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { DEMO_CREDENTIALS, PlatformSimulator } from '../../../src/simulator/platform-simulator';
import { runCliCaptured } from '../../support/cli';
import { startTestRedis, type TestRedis } from '../../support/redis-server';
import { childCoverageEnv, ROOT, spawnTs } from '../../support/spawn-ts';

const SERVICES = 300;

describe('connector sync --once into a folder', () => {
  let simulator: PlatformSimulator;
  let redis: TestRedis;
  let env: Record<string, string>;
  let dir: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    simulator = new PlatformSimulator({ serviceCount: SERVICES });
    const url = await simulator.start();
    dir = mkdtempSync(path.join(tmpdir(), 'erp-export-'));
    env = {
      PLATFORM_BASE_URL: url,
      PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
      PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
      PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: `t${randomBytes(4).toString('hex')}`,
      ERP_SINK: 'directory',
      ERP_EXPORT_DIR: dir,
    };
  });
  afterAll(async () => {
    await simulator.stop();
    await redis.close();
  });

  const synced = () =>
    simulator.state.serviceIds().filter((id) => [4, 6].includes(simulator.state.statusCode(id)));

  it('writes one file per service, whole at every moment, and resends nothing the second time', async () => {
    // A reader polls the folder the whole time, as an importing ERP would: every file it can
    // open by its final name parses.
    const partial: string[] = [];
    let reads = 0;
    let polling = true;
    const reader = (async () => {
      while (polling) {
        for (const name of readdirSync(dir)) {
          if (!name.endsWith('.json') || name.startsWith('.')) continue;
          try {
            JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
            reads += 1;
          } catch {
            partial.push(name);
          }
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const first = await runCliCaptured(['sync', '--once', '--format', 'json'], env);
    const expected = synced();
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      seen: expected.length,
      new: expected.length,
      changed: 0,
      unchanged: 0,
      delivered: expected.length,
      failed: 0,
    });
    // A status change is written again, over the old file, while the reader reads.
    const moved = expected.slice(0, 40);
    for (const id of moved)
      simulator.state.setStatus(id, simulator.state.statusCode(id) === 4 ? 6 : 4);
    const second = await runCliCaptured(['sync', '--once'], env);
    polling = false;
    await reader;
    expect(second).toMatchObject({
      code: 0,
      stdout: `seen ${expected.length}  new 0  changed 40  unchanged ${expected.length - 40}  delivered 40  failed 0\n`,
    });
    expect(partial).toEqual([]);
    expect(reads).toBeGreaterThan(0);
    const files = readdirSync(dir).sort();
    expect(files).toEqual(expected.map((id) => `${id}.json`).sort());
    for (const id of moved) {
      const written = JSON.parse(readFileSync(path.join(dir, `${id}.json`), 'utf8')) as {
        status: { code: number };
      };
      expect(written.status.code).toBe(simulator.state.statusCode(id));
    }
    const third = await runCliCaptured(['sync', '--once'], env);
    expect(third.stdout).toBe(
      `seen ${expected.length}  new 0  changed 0  unchanged ${expected.length}  delivered 0  failed 0\n`,
    );
  });

  it('exits 1 with each failed service on stderr when the folder cannot be written', async () => {
    const blocker = path.join(mkdtempSync(path.join(tmpdir(), 'erp-blocked-')), 'a-file');
    writeFileSync(blocker, 'not a folder');
    const result = await runCliCaptured(['sync', '--once'], {
      ...env,
      QUEUE_PREFIX: `t${randomBytes(4).toString('hex')}`,
      ERP_EXPORT_DIR: path.join(blocker, 'export'),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/ delivered 0 {2}failed \d+\n$/);
    expect(result.stderr).toMatch(
      /^failed: service \d+: ERP export folder: cannot write \(ENOTDIR\)\. \(ERP_UNAVAILABLE\)$/m,
    );
    expect(result.stderr).toMatch(/error: some services were not delivered/);
  });

  it('syncs every SYNC_INTERVAL in the foreground until SIGTERM, then exits 0', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'erp-continuous-'));
    const sync = spawnTs('src/main/cli.ts', ['sync', '--format', 'json'], {
      ...env,
      QUEUE_PREFIX: `t${randomBytes(4).toString('hex')}`,
      ERP_EXPORT_DIR: folder,
      SYNC_INTERVAL: '1s',
    });
    try {
      await sync.waitForOutput(/"seen":\d+.*\n.*"seen":\d+.*\n/, 30_000);
      const [first, second] = sync
        .stdout()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { delivered: number; unchanged: number });
      expect(first?.delivered).toBe(synced().length);
      expect(second).toMatchObject({ delivered: 0, unchanged: synced().length });
      expect(readdirSync(folder)).toHaveLength(synced().length);
    } finally {
      sync.child.kill('SIGTERM');
    }
    expect(await sync.exited).toBe(0);
  });

  it('asks for ERP_SINK (78), and for --once or SYNC_INTERVAL (78)', async () => {
    const { ERP_SINK: _sink, ...withoutSink } = env;
    const noSink = await runCliCaptured(['sync', '--once'], withoutSink);
    expect(noSink).toMatchObject({
      code: 78,
      stderr: 'config error: ERP_SINK: is required: webhook or directory\n',
    });
    const noInterval = await runCliCaptured(['sync'], env);
    expect(noInterval.code).toBe(78);
    expect(noInterval.stderr).toMatch(/SYNC_INTERVAL is unset: give --once/);
    const webhookWithoutSecret = await runCliCaptured(['sync', '--once'], {
      ...env,
      ERP_SINK: 'webhook',
      ERP_WEBHOOK_URL: 'http://127.0.0.1:9/erp',
    });
    expect(webhookWithoutSecret).toMatchObject({
      code: 78,
      stderr: 'config error: ERP_WEBHOOK_SECRET: is required with ERP_SINK=webhook\n',
    });
  });
});

describe('services list: pages, limits and the progress bar', () => {
  let simulator: PlatformSimulator;
  let env: Record<string, string>;

  beforeAll(async () => {
    simulator = new PlatformSimulator({ serviceCount: 120 });
    env = {
      PLATFORM_BASE_URL: await simulator.start(),
      PLATFORM_EMAIL: DEMO_CREDENTIALS.email,
      PLATFORM_PASSWORD: DEMO_CREDENTIALS.password,
      PLATFORM_API_KEY: DEMO_CREDENTIALS.apiKey,
      PLATFORM_PAGE_SIZE: '25',
    };
  });
  afterAll(() => simulator.stop());

  const ids = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: number }).id);

  it('lists one page by default, --limit N across pages, or --all; nothing on a stderr that is no terminal', async () => {
    const page = await runCliCaptured(['services', 'list', '--format', 'ndjson'], env);
    expect(ids(page.stdout)).toEqual(Array.from({ length: 25 }, (_, i) => 1001 + i));
    expect(page.stderr).toBe('');
    const limited = await runCliCaptured(
      ['services', 'list', '--format', 'ndjson', '--limit', '60'],
      env,
    );
    expect(ids(limited.stdout)).toEqual(Array.from({ length: 60 }, (_, i) => 1001 + i));
    const all = await runCliCaptured(['services', 'list', '--format', 'ndjson', '--all'], env);
    expect(ids(all.stdout)).toEqual(Array.from({ length: 120 }, (_, i) => 1001 + i));
    expect(all.stderr).toBe('');
    const both = await runCliCaptured(['services', 'list', '--all', '--limit', '5'], env);
    expect(both).toMatchObject({ code: 2, stderr: 'error: give --all or --limit, not both\n' });
  });

  it('draws a progress bar on stderr when it is a terminal', async () => {
    // `script` gives the CLI a real pseudo-terminal; stdout goes to a file so only stderr is seen.
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'cli-tty-')), 'out.ndjson');
    const command = [
      process.execPath,
      '--require',
      require.resolve('tsx/cjs'),
      path.join(ROOT, 'src/main/cli.ts'),
      'services list --all --format ndjson',
      `> ${out}`,
    ].join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', TERM: 'xterm', ...childCoverageEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let terminal = '';
    child.stdout.on('data', (chunk: Buffer) => (terminal += chunk.toString()));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(terminal).toMatch(/services [█░]+ \d+\/120/);
    expect(ids(readFileSync(out, 'utf8'))).toHaveLength(120);
  });
});
