import type { Writable } from 'node:stream';
import winston from 'winston';
import { currentLogContext } from '../tracing/log-context';
import { createRedactor, SecretBook } from '../scrubbing/redact';
import { scrubSpansWith } from '../tracing/span-scrubbing';
import { isTracing, traceFields } from '../tracing/tracing';
import { redactedRedisUrl } from '../redis/redis-url';

export type Logger = winston.Logger;

export interface LoggerOptions {
  level: string;
  format: 'json' | 'pretty';
  /** Values to scrub from every line; more come with `addLogSecrets`. */
  secrets: readonly string[];
  /** Where lines go; stdout when absent. */
  stream?: Writable;
  /** A fixed field naming the process part, e.g. "api". */
  component?: string;
}

const LEVEL = Symbol.for('level');

/** Stamps the context's fields (request or job id, trace) on a line, then redacts it. */
function stampAndRedact(redact: (value: unknown) => unknown): winston.Logform.Format {
  return winston.format((info) => {
    const stamped = { ...currentLogContext(), ...traceFields(), ...info };
    const clean = redact(stamped) as winston.Logform.TransformableInfo;
    // Symbols are dropped by the copy; winston's transports need them back.
    clean[LEVEL] = info[LEVEL];
    return clean;
  })();
}

/** JSON, or one line a person reads: time, level, [component], message, then the fields. */
function renderFor(options: LoggerOptions): winston.Logform.Format {
  if (options.format === 'json') return winston.format.json();
  // A file or a pipe gets no escape codes.
  const colour = options.stream === undefined && process.stdout.isTTY === true;
  return winston.format.combine(
    ...(colour ? [winston.format.colorize()] : []),
    winston.format.printf(({ level, message, timestamp, component, ...fields }) => {
      const rest = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
      return `${String(timestamp)} ${level} ${component ? `[${String(component)}] ` : ''}${String(message)}${rest}`;
    }),
  );
}

/** The connector's logger: the context stamped on every line, secrets redacted before any transport. */
export function createLogger(options: LoggerOptions): Logger {
  const book = new SecretBook(options.secrets);
  const redact = createRedactor(book);
  // The spans this process exports are scrubbed by the same redactor, a shop's secrets included.
  if (isTracing()) scrubSpansWith(redact);
  const transport = options.stream
    ? new winston.transports.Stream({ stream: options.stream })
    : new winston.transports.Console();
  const logger = dropDisabledLevelsFirst(
    winston.createLogger({
      level: options.level,
      defaultMeta: options.component ? { component: options.component } : undefined,
      format: winston.format.combine(
        winston.format.errors({ stack: true }),
        winston.format.timestamp(),
        stampAndRedact(redact),
        renderFor(options),
      ),
      transports: [transport],
    }),
  );
  books.set(logger, book);
  return logger;
}

const books = new WeakMap<Logger, SecretBook>();

/** Scrubs `values` from every later line of `logger` (a shop's secrets, opened at run time). */
export function addLogSecrets(logger: Logger, values: readonly string[]): void {
  books.get(logger)?.add(values);
}

/**
 * winston runs every format before its transport drops a line below the level: a dropped `info`
 * cost as much as a written one. The level methods and `log` here return at once for a level that
 * is off, through `this`, so children (made with Object.create) keep their own fields.
 */
function dropDisabledLevelsFirst(logger: winston.Logger): winston.Logger {
  const patched = logger as unknown as Record<string, unknown>;
  for (const level of Object.keys(logger.levels)) {
    const write = patched[level] as (this: winston.Logger, ...args: unknown[]) => winston.Logger;
    patched[level] = function (this: winston.Logger, ...args: unknown[]) {
      return this.isLevelEnabled(level) ? write.apply(this, args) : this;
    };
  }
  const log = logger.log as (this: winston.Logger, ...args: unknown[]) => winston.Logger;
  patched.log = function (this: winston.Logger, level: unknown, ...rest: unknown[]) {
    if (typeof level === 'string' && !this.isLevelEnabled(level)) return this;
    return log.call(this, level, ...rest);
  };
  return logger;
}

/** Shapes an unknown thrown value into safe log fields: never a raw upstream error object. */
export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const fields: Record<string, unknown> = { err: error.name, errMessage: error.message };
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') fields.errCode = code;
    // An AppError's cause: what an upstream said, kept for the log and out of every answer.
    if (typeof error.cause === 'string') fields.cause = error.cause;
    if (error.stack) fields.stack = error.stack;
    return fields;
  }
  return { err: String(error) };
}

/** What a logger's Redis listeners share: REDIS_URL without its password, and what was said when. */
interface RedisTrouble {
  where?: string;
  said: Map<string, { at: number; repeats: number; sources: Set<string> }>;
}

const redisTrouble = new WeakMap<Logger, RedisTrouble>();

function troubleOf(logger: Logger): RedisTrouble {
  const trouble = redisTrouble.get(logger) ?? { said: new Map() };
  redisTrouble.set(logger, trouble);
  return trouble;
}

/** What an operator should check when Redis does not answer: said beside `redisUrl`. */
export const REDIS_CHECK = 'is Redis running and reachable there? start it, or fix REDIS_URL';

/** Tells `logger`'s Redis listeners which REDIS_URL they are about (named without its password). */
export function redisLocation(logger: Logger, url: string): void {
  troubleOf(logger).where = redactedRedisUrl(url);
}

/**
 * A listener for a connection's 'error' events, one for every Redis client, queue and worker of
 * the process, with one voice: a distinct error is said once per `quietMs` for all of them (Redis
 * away makes each reconnect every few hundred ms), with REDIS_URL, what to check, the sources
 * that met it and the repeats left out. An outage is one line every 30 s, not a stream.
 */
export function connectionErrorLogger(
  logger: Logger,
  source: Record<string, unknown>,
  quietMs = 30_000,
): (error: Error) => void {
  const name = Object.entries(source)
    .map(([key, value]) => `${key} ${String(value)}`)
    .join(', ');
  return (error) => {
    const trouble = troubleOf(logger);
    const now = Date.now();
    const seen = trouble.said.get(error.message);
    if (seen && now - seen.at < quietMs) {
      seen.repeats += 1;
      seen.sources.add(name);
      return;
    }
    if (trouble.said.size > 100) trouble.said.clear();
    trouble.said.set(error.message, { at: now, repeats: 0, sources: new Set([name]) });
    logger.warn('connection error', {
      ...source,
      errMessage: error.message,
      redisUrl: trouble.where,
      check: REDIS_CHECK,
      ...(seen?.repeats ? { repeatsLeftOut: seen.repeats, metBy: [...seen.sources] } : {}),
    });
  };
}
