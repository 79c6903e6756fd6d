import { runCli } from '../../src/cli/program';
import { cliAdapters } from '../../src/main/cli-adapters';
import { BufferStream } from './buffer-stream';

/** Runs the CLI in-process as `npx connector` would, and returns what it printed. */
export async function runCliCaptured(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new BufferStream();
  const stderr = new BufferStream();
  const code = await runCli(args, { env, stdout, stderr, adapters: cliAdapters });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
