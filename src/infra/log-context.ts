import { AsyncLocalStorage } from 'node:async_hooks';

/** Fields stamped on every log line written while a request or a job is being handled. */
export interface LogContext {
  /** The shop whose checkout, job or request it is. */
  shop?: string;
  requestId?: string;
  jobId?: string;
  queue?: string;
}

/**
 * What follows a request or a job through its asynchronous work: its log fields and, with tracing
 * on, its OpenTelemetry context (opaque here; src/infra/tracing-sdk.ts). One AsyncLocalStorage
 * for both: each one a process enables is paid on every promise it creates (bench:tracing).
 */
interface Carried {
  log: LogContext;
  trace?: unknown;
}

const storage = new AsyncLocalStorage<Carried>();
const NONE: LogContext = Object.freeze({});

/** Runs `fn` with `context` merged over the current one; every log line inside carries it. */
export function runWithLogContext<T>(context: LogContext, fn: () => T): T {
  const current = storage.getStore();
  return storage.run({ log: { ...current?.log, ...context }, trace: current?.trace }, fn);
}

/** The context of the request or job being handled, if any. */
export function currentLogContext(): LogContext {
  return storage.getStore()?.log ?? NONE;
}

/** The trace context carried now (src/infra/tracing-sdk.ts), if any. */
export function carriedTrace(): unknown {
  return storage.getStore()?.trace;
}

/** Runs `fn` (with `args`) carrying `trace` as its trace context, the log context as it is. */
export function runCarryingTrace<A extends unknown[], R>(
  trace: unknown,
  fn: (...args: A) => R,
  ...args: A
): R {
  return storage.run({ log: storage.getStore()?.log ?? NONE, trace }, fn, ...args);
}

/**
 * Carries `trace` from now on in the current execution and what it starts (as
 * AsyncLocalStorage.enterWith); answers what puts back what was carried before.
 */
export function enterCarryingTrace(trace: unknown): () => void {
  const previous = storage.getStore();
  storage.enterWith({ log: previous?.log ?? NONE, trace });
  return () => storage.enterWith(previous ?? { log: NONE });
}
