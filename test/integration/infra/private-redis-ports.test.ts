import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serverPid, spawnOnFreePorts } from '../../../src/demo/private-redis';
import { killAll } from '../../support/redis-topology';

// A port is free when chosen and can be taken before redis-server binds it: CI once saw a cluster
// node whose port another suite's server took; the node exited and the group's start timed out.
describe('a redis-server started on free ports', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'connector-ports-'));
  let squatter: Server | undefined;
  afterAll(async () => {
    await new Promise((resolve) => (squatter ? squatter.close(resolve) : resolve(undefined)));
    rmSync(dir, { recursive: true, force: true });
  });

  it('is started again on new ports when one is taken before it binds', async () => {
    const taken = new Set<number>();
    const tried: number[][] = [];
    const { ports, child } = await spawnOnFreePorts(
      2,
      (chosen) => {
        tried.push(chosen);
        const [port = 0] = chosen;
        // The first time, something else takes the port between the choice and the bind
        // (listen without a host binds before it returns).
        if (tried.length === 1) squatter = createServer((socket) => socket.destroy()).listen(port);
        return spawn(
          'redis-server',
          ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''],
          { stdio: 'ignore' },
        );
      },
      taken,
    );
    try {
      expect(tried).toHaveLength(2);
      expect(ports).toEqual(tried[1]);
      expect(ports).not.toContain(tried[0]?.[0]);
      expect(await serverPid(ports[0] ?? 0)).toBe(child.pid);
      expect([...taken].sort()).toEqual([...ports].sort());
    } finally {
      await killAll([child]);
    }
  });
});
