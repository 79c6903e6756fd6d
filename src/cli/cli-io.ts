import type { Readable, Writable } from 'node:stream';
import { once } from 'node:events';
import { Option } from 'commander';
import type { CliAdapters } from './cli-adapters';
import { forTerminal } from './terminal-text';

/**
 * Where a CLI run reads its environment and writes its output (real streams, or test buffers),
 * and the adapters the composition root built for it.
 */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: Writable;
  stderr: Writable;
  /** Where `--file -` reads from; process.stdin when absent. */
  stdin?: Readable;
  adapters: CliAdapters;
}

/**
 * `--format <format>`, as every command that lists or shows takes it: its choices, the first
 * the default.
 */
export function formatOption(
  choices: readonly [string, ...string[]],
  description = 'output format',
): Option {
  return new Option('--format <format>', description).choices(choices).default(choices[0]);
}

/** Exit codes of the CLI. */
export const EXIT = { ok: 0, failure: 1, usage: 2, config: 78 } as const;

/**
 * Writes with backpressure, so a large listing never piles up in memory; whatever it prints
 * (stored text, the platform's data) reaches the terminal with its non-printable characters
 * escaped, so none can rewrite what the operator sees.
 */
export async function write(stream: Writable, text: string): Promise<void> {
  if (text !== '' && !stream.write(forTerminal(text))) await once(stream, 'drain');
}

/** A failure the CLI reports on stderr with its own exit code. */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
