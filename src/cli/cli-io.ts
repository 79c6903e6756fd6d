import type { Readable, Writable } from 'node:stream';
import { once } from 'node:events';
import { Option } from 'commander';
import { queueConfig, readConfig } from '../config';
import type { CliAdapters, QueueAccess } from './cli-adapters';
import { forTerminal } from './terminal-text';

/** Where a CLI run reads and writes (real streams or test buffers), and its adapters. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: Writable;
  stderr: Writable;
  stdin?: Readable;
  adapters: CliAdapters;
}

/** `--format <format>`: its choices, the first the default. */
export function formatOption(
  choices: readonly [string, ...string[]],
  description = 'output format',
): Option {
  return new Option('--format <format>', description).choices(choices).default(choices[0]);
}

export const EXIT = { ok: 0, failure: 1, usage: 2, config: 78 } as const;

/** Writes with backpressure, non-printable characters escaped: no output rewrites the terminal. */
export async function write(stream: Writable, text: string): Promise<void> {
  if (text !== '' && !stream.write(forTerminal(text))) await once(stream, 'drain');
}

export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** Runs `run` on the connector's Redis (REDIS_URL, QUEUE_PREFIX) for `shop`, and closes it. */
export async function withQueues<T>(
  io: CliIo,
  run: (access: QueueAccess) => Promise<T>,
  shop?: string,
): Promise<T> {
  const access = await io.adapters.openQueues(readConfig(queueConfig, io.env).redis, shop);
  try {
    return await run(access);
  } finally {
    await access.close();
  }
}
