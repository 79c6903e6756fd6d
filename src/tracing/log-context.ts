import { AsyncLocalStorage } from 'node:async_hooks';

/** Fields stamped on every log line written while a request or a job is being handled. */
export interface LogContext {
  /** The shop whose checkout, job or request it is. */
  shop?: string;
  requestId?: string;
  jobId?: string;
  queue?: string;
}

const storage = new AsyncLocalStorage<LogContext>();
const NONE: LogContext = Object.freeze({});

/** Runs `fn` with `context` merged over the current one; every log line inside carries it. */
export function runWithLogContext<T>(context: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...context }, fn);
}

/** The context of the request or job being handled, if any. */
export function currentLogContext(): LogContext {
  return storage.getStore() ?? NONE;
}
