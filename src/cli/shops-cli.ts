import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { AppError } from '../errors';
import type { ConnectLinks } from '../connect/connect-links';
import type { ShopAdmin } from '../shop-registry/shop-admin';
import { CliFailure, EXIT, type CliIo } from './cli-io';

/** Who the audit trail says made a change from the CLI. */
export function cliActor(env: CliIo['env']): string {
  let user = env.USER ?? env.LOGNAME;
  try {
    user ??= userInfo().username;
  } catch {
    user ??= 'unknown';
  }
  return `cli:${user}`;
}

export async function readDocument(file: string, io: CliIo): Promise<unknown> {
  let text: string;
  try {
    if (file === '-') {
      const chunks: Buffer[] = [];
      for await (const chunk of io.stdin ?? process.stdin)
        chunks.push(Buffer.from(chunk as Buffer));
      text = Buffer.concat(chunks).toString('utf8');
    } else {
      text = await readFile(file, 'utf8');
    }
  } catch (error) {
    throw new CliFailure(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      EXIT.usage,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CliFailure(`${file} is not valid JSON`, EXIT.usage);
  }
}

/** A document the registry refuses is a usage error (exit 2), each problem on its own line. */
export function asUsage(error: unknown): never {
  if (error instanceof AppError && error.code === 'VALIDATION_FAILED') {
    const lines = error.details.map((detail) => `  ${detail.field}: ${detail.problem}`).join('\n');
    throw new CliFailure(`${error.message}\n${lines}`, EXIT.usage);
  }
  throw error;
}

export interface ShopsCli {
  io: CliIo;
  /** `needs`: which of SHOP_SECRET_KEYS and PLATFORM_BASE_URL the verb requires. */
  withAdmin<T>(
    needs: Needs,
    run: (admin: ShopAdmin, links: ConnectLinks) => Promise<T>,
  ): Promise<T>;
  json(value: unknown): Promise<void>;
}

export type Needs = { keys: boolean; platform: boolean };
/** A verb that reads or changes the registry's clear fields: Redis only. */
export const READS: Needs = { keys: false, platform: false };
/** A verb that seals or opens a shop's secrets: SHOP_SECRET_KEYS too. */
export const SEALS: Needs = { keys: true, platform: false };
/** A verb that checks a shop's platform credentials: PLATFORM_BASE_URL too. */
export const CHECKS: Needs = { keys: true, platform: true };
