import path from 'node:path';
import { z } from 'zod';
import { httpUrl } from '../payments/provider-fields';
import { duration, positiveInt, requireFor, secret } from './env-values';

/** The ERP sync's variables: shared by the server and `connector sync`. */
export const syncShape = {
  SYNC_INTERVAL: duration
    .optional()
    .describe(
      'A sync pass every this long (`30s`, `5m`, `1h`; at least `1s`); unset: no scheduled passes (paid services are still sent at once, and `connector sync --once` still runs one).',
    ),
  SYNC_STATUSES: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be status codes separated by commas, such as 4,6')
    .transform((text) => [...new Set(text.split(',').map(Number))])
    .prefault('4,6')
    .describe('Status codes whose services are synced (4 quote generated, 6 approved).'),
  ERP_SINK: z
    .enum(['webhook', 'directory'], { error: 'must be webhook or directory' })
    .optional()
    .describe(
      'Where the ERP sync sends services: `webhook` (POST each service, signed) or `directory` (one JSON file per service). The sync is off while it is unset.',
    ),
  ERP_WEBHOOK_URL: httpUrl
    .optional()
    .describe(
      'With `ERP_SINK=webhook`: the ERP\'s endpoint each service is POSTed to; a 2xx answer `{"internal_code": "..."}` links the ERP order back.',
    ),
  ERP_WEBHOOK_SECRET: secret(
    z
      .string()
      .min(16, 'must be at least 16 characters')
      .optional()
      .describe(
        'With `ERP_SINK=webhook`: the secret the ERP verifies `X-Connector-Signature` with; at least 16 characters.',
      ),
  ),
  ERP_WEBHOOK_TIMEOUT_MS: positiveInt
    .prefault('10000')
    .describe('Milliseconds one webhook delivery may take.'),
  ERP_EXPORT_DIR: z
    .string()
    .min(1)
    .optional()
    .describe(
      'With `ERP_SINK=directory`: the folder the ERP imports `<service_id>.json` files from (created if absent).',
    ),
};

type SyncEnv = z.output<z.ZodObject<typeof syncShape>>;

export type ErpSinkConfig =
  | { kind: 'webhook'; url: string; secret: string; timeoutMs: number }
  | { kind: 'directory'; dir: string };

export interface SyncConfig {
  intervalMs: number | undefined;
  statuses: number[];
  /** Undefined while ERP_SINK is unset: no sync at all, and paid services trigger nothing. */
  sink: ErpSinkConfig | undefined;
}

export function syncIssues(env: SyncEnv, ctx: z.RefinementCtx): void {
  const needs: Record<'webhook' | 'directory', Array<keyof SyncEnv>> = {
    webhook: ['ERP_WEBHOOK_URL', 'ERP_WEBHOOK_SECRET'],
    directory: ['ERP_EXPORT_DIR'],
  };
  if (env.ERP_SINK) {
    requireFor(env, ctx, needs[env.ERP_SINK], `ERP_SINK=${env.ERP_SINK}`);
  } else if (env.SYNC_INTERVAL !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['ERP_SINK'],
      message: 'is required with SYNC_INTERVAL: say where services go (webhook or directory)',
    });
  }
}

export function syncConfigFrom(env: SyncEnv): SyncConfig {
  const sink: ErpSinkConfig | undefined =
    env.ERP_SINK === 'webhook' && env.ERP_WEBHOOK_URL && env.ERP_WEBHOOK_SECRET
      ? {
          kind: 'webhook',
          url: env.ERP_WEBHOOK_URL,
          secret: env.ERP_WEBHOOK_SECRET,
          timeoutMs: env.ERP_WEBHOOK_TIMEOUT_MS,
        }
      : env.ERP_SINK === 'directory' && env.ERP_EXPORT_DIR
        ? { kind: 'directory', dir: path.resolve(env.ERP_EXPORT_DIR) }
        : undefined;
  return { intervalMs: env.SYNC_INTERVAL, statuses: env.SYNC_STATUSES, sink };
}
