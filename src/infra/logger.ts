import type { Writable } from 'node:stream';
import winston from 'winston';
import { currentLogContext } from './log-context';
import { createRedactor, SecretBook } from './redact';

export type Logger = winston.Logger;

export interface LoggerOptions {
  level: string;
  format: 'json' | 'pretty';
  /** Values to scrub from every line (passwords, tokens, API keys); more come with `addLogSecrets`. */
  secrets: readonly string[];
  /** Where lines go; stdout when absent. Tests pass a stream to read the output. */
  stream?: Writable;
  /** A fixed field naming the process part, e.g. "api" or "simulator". */
  component?: string;
}

const LEVEL = Symbol.for('level');

/**
 * The connector's logger: constant messages with data in fields, the request or job id of
 * the current context stamped on every line, secrets redacted before any transport sees them.
 */
export function createLogger(options: LoggerOptions): Logger {
  const book = new SecretBook(options.secrets);
  const redact = createRedactor(book);
  const stampAndRedact = winston.format((info) => {
    const clean = redact({ ...currentLogContext(), ...info }) as winston.Logform.TransformableInfo;
    // Symbols are dropped by the copy; winston's transports need them back.
    clean[LEVEL] = info[LEVEL];
    return clean;
  });
  const render =
    options.format === 'json'
      ? winston.format.json()
      : winston.format.combine(
          winston.format.colorize(),
          winston.format.printf(({ level, message, timestamp, component, ...fields }) => {
            const rest = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
            return `${String(timestamp)} ${level} ${component ? `[${String(component)}] ` : ''}${String(message)}${rest}`;
          }),
        );
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
        stampAndRedact(),
        render,
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
 * winston runs every format (context, redaction, JSON) before its transport drops a line below
 * the level: a dropped `info` cost as much as a written one. The level methods and `log` here
 * return at once for a level that is off. They go through `this`, so children (which winston
 * makes with Object.create) keep their own fields.
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

/**
 * A listener for a connection's 'error' events that logs one warning per distinct message per
 * `quietMs` (Redis reconnects every few hundred ms while it is away), with how many repeats were
 * left out since the last line. Attached to every Redis client, queue and worker, so no error
 * reaches Node's default printing of unhandled 'error' events.
 */
export function connectionErrorLogger(
  logger: Logger,
  source: Record<string, unknown>,
  quietMs = 30_000,
): (error: Error) => void {
  const lastLogged = new Map<string, { at: number; repeats: number }>();
  return (error) => {
    const now = Date.now();
    const seen = lastLogged.get(error.message);
    if (seen && now - seen.at < quietMs) {
      seen.repeats += 1;
      return;
    }
    if (lastLogged.size > 100) lastLogged.clear();
    lastLogged.set(error.message, { at: now, repeats: 0 });
    logger.warn('connection error', {
      ...source,
      errMessage: error.message,
      ...(seen?.repeats ? { repeatsLeftOut: seen.repeats } : {}),
    });
  };
}
