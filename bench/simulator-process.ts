import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * The platform simulator in a child process (`connector simulator --port 0`), so its own CPU
 * and memory stay out of what a benchmark measures.
 */
export async function startSimulatorProcess(
  services: number,
): Promise<{ url: string; stop: () => void }> {
  const child = spawn(
    process.execPath,
    [
      '--require',
      require.resolve('tsx/cjs'),
      path.join(__dirname, '..', 'src', 'main', 'cli.ts'),
      'simulator',
      '--port',
      '0',
      '--services',
      String(services),
    ],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'error' },
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', () => reject(new Error('simulator exited')));
  });
  return { url, stop: () => child.kill('SIGINT') };
}
