import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { packageVersion } from '../../src/infra/package-version';
import { childCoverageEnv, ROOT } from '../support/spawn-ts';

const run = promisify(execFile);

/** The built CLI (npm ci builds dist/ through the prepare script, as on a fresh clone). */
describe('the connector command after npm ci', () => {
  const cli = path.join(ROOT, 'dist', 'main', 'cli.js');

  it('is executable and runs by its shebang', async () => {
    expect(statSync(cli).mode & 0o111).toBe(0o111);
    const { stdout } = await run(cli, ['--version'], {
      cwd: ROOT,
      env: { ...process.env, ...childCoverageEnv() },
    });
    expect(stdout.trim()).toBe(packageVersion());
  });

  it('runs as `npx connector` in the project, with no install step', async () => {
    // npx links the project into its cache (~/.npm/_npx) on first use: a cache of its own, so
    // another npm run at the same moment, or a half-written entry left by one, cannot touch it.
    const cache = mkdtempSync(path.join(tmpdir(), 'npx-cache-'));
    try {
      // Without the children's coverage: npm itself would write its own (every module of npm,
      // twice the time), and the command's is counted by the test above.
      const { stdout } = await run('npx', ['--no-install', 'connector', '--version'], {
        cwd: ROOT,
        env: {
          ...process.env,
          npm_config_update_notifier: 'false',
          npm_config_cache: cache,
        },
      });
      expect(stdout.trim()).toBe(packageVersion());
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
