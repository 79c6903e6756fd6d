import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { configOf, ROUTE_TOKEN, startHarness, type Harness } from '../../support/harness';
import { startTestRedis } from '../../support/redis-server';

describe('the test harness', () => {
  it('reads no .env from the folder the tests run in', async () => {
    // A developer's .env, poisoned: a role no process has and a checkout route of its own.
    const folder = mkdtempSync(path.join(tmpdir(), 'connector-dotenv-'));
    writeFileSync(path.join(folder, '.env'), 'ROLE=poisoned\nCHECKOUT_ROUTE_PATH=/poisoned\n');
    const redis = await startTestRedis();
    const cwd = process.cwd();
    let h: Harness | undefined;
    try {
      process.chdir(folder);
      // The poison is live: a reading of the working folder's .env refuses it.
      expect(() => loadConfig({})).toThrow(/ROLE/);
      expect(configOf({ PLATFORM_BASE_URL: 'http://127.0.0.1:9' }).role).toBe('all');
      h = await startHarness({ redis });
      process.chdir(cwd);
      const answer = await fetch(`${h.url}/checkout`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ROUTE_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ service_id: 1001 }),
      });
      expect(answer.status).toBe(202);
    } finally {
      process.chdir(cwd);
      await h?.stop();
      await redis.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
