import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';

export const port = z.coerce.number().int().min(0).max(65535);
export const positiveInt = z.coerce.number().int().positive();
export const nonNegativeInt = z.coerce.number().int().min(0);

/** `5m`, `30s`, `1h`, `500ms` (or a bare number of milliseconds) as milliseconds. */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const DURATION = /^(\d+)(ms|s|m|h)?$/;
export const duration = z
  .string()
  .regex(DURATION, 'must be a duration such as 30s, 5m or 1h')
  .transform((text) => {
    const [, digits = '0', unit = 'ms'] = DURATION.exec(text) ?? [];
    return Number(digits) * UNIT_MS[unit as keyof typeof UNIT_MS];
  })
  .refine((ms) => ms >= 1000, 'must be at least 1s');

/** `schema.optional()` with the schema's description and flags: zod keeps them per instance. */
export function optional<T extends z.ZodType>(schema: T): z.ZodOptional<T> {
  const wrapped = schema.optional();
  const meta = schema.meta();
  return meta ? wrapped.meta(meta) : wrapped;
}

/** A secret (never logged nor echoed; a Kubernetes Secret): SECRET_VARIABLES and docs use it. */
export function secret<T extends z.ZodType>(schema: T): T {
  return schema.meta({ secret: true }) as T;
}

export function isSecret(schema: z.ZodType): boolean {
  return schema.meta()?.['secret'] === true;
}

/** Raised when the environment is invalid; `problems` holds one line per variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

/** Merges, lowest first: config/defaults.env, `cwd`/.env, `env`. Empty values count as unset. */
export function readEnvironment(env: Env, cwd = process.cwd()): Env {
  const merged: Env = {};
  const layers = [
    readEnvFile(path.join(__dirname, '..', '..', 'config', 'defaults.env')),
    readEnvFile(path.join(cwd, '.env')),
    env,
  ];
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer))
      if (value !== undefined && value !== '') merged[key] = value;
  }
  return merged;
}

function readEnvFile(file: string): Env {
  try {
    return parseEnv(readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
}

/** A variable a reading refuses, and why: `VARIABLE: problem` is its line (exit 78). */
export interface ConfigProblem {
  variable: string;
  problem: string;
}

function problemsOf(error: z.ZodError, env: Env): ConfigProblem[] {
  return error.issues.map((issue) => {
    // A variable's own name, also for a problem inside its value (PAYMENT_METHODS' second item).
    const variable = String(issue.path[0] ?? '');
    const missing = issue.code === 'invalid_type' && env[variable] === undefined;
    return { variable, problem: missing ? 'is required' : issue.message };
  });
}

/** The one reader of the environment: `schema`'s output, frozen; else ConfigError (exit 78). */
export function readConfig<T>(schema: z.ZodType<T>, env: Env = process.env, cwd?: string): T {
  const raw = readEnvironment(env, cwd);
  const result = schema.safeParse(raw);
  if (result.success) return deepFreeze(result.data);
  throw new ConfigError(problemsOf(result.error, raw).map((p) => `${p.variable}: ${p.problem}`));
}

/** `readConfig` for doctor: `read` answers undefined, `problems` holds each refusal once. */
export function readLeniently(env: Env, cwd?: string) {
  const raw = readEnvironment(env, cwd);
  const problems = new Map<string, ConfigProblem>();
  const read = <T>(schema: z.ZodType<T>): T | undefined => {
    const result = schema.safeParse(raw);
    if (result.success) return result.data;
    for (const found of problemsOf(result.error, raw))
      problems.set(`${found.variable}: ${found.problem}`, found);
    return undefined;
  };
  return { raw, read, problems: () => [...problems.values()] };
}

/** Reports `name` as `message` when `env` lacks it (ERP_SINK for `connector sync`). */
export function requireVariable(
  env: Record<string, unknown>,
  ctx: z.RefinementCtx,
  name: string,
  message: string,
): void {
  if (env[name] === undefined) ctx.addIssue({ code: 'custom', path: [name], message });
}

/** Reports each of `names` that `env` lacks as required by `choice` (e.g. ERP_SINK=webhook). */
export function requireFor(
  env: Record<string, unknown>,
  ctx: z.RefinementCtx,
  names: readonly string[],
  choice: string,
): void {
  for (const name of names) requireVariable(env, ctx, name, `is required with ${choice}`);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Shared by the server (which writes records) and `connector migrate` (which extends old ones). */
export const checkoutRetentionDays = z.coerce
  .number()
  .int()
  .min(30, 'must be at least 30 (days)')
  .max(3650, 'must be at most 3650 (days)')
  .prefault(180)
  .describe(
    'Days a checkout\'s record is kept after its outcome (30 to 3650): its story, its return page, and what follows it, as a refund (a Pix may be returned for 90 days), a chargeback or a late payment, each sent to the ERP as a payment record. Memory per record: docs/operating.md "Redis memory".',
  );
