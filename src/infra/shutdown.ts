import type { Server } from 'node:http';
import { errorFields, type Logger } from './logger';

type Step = { name: string; run: () => Promise<void> };

/**
 * Ordered graceful shutdown. Steps run in the order they were added (stop accepting HTTP first,
 * then workers, then Redis). If they take longer than `timeoutMs` the process exits with 1.
 */
export class Shutdown {
  private readonly steps: Step[] = [];
  private started: Promise<void> | undefined;
  private startedAt: number | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly timeoutMs: number,
    private readonly exit: (code: number) => void = (code) => process.exit(code),
  ) {}

  add(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run });
  }

  /**
   * SIGTERM and SIGINT run the steps, then exit 0. An unhandled rejection or an uncaught exception
   * is logged and does the same, then exits 1: such a process is not to be trusted, a supervisor
   * restarts it, and jobs in hand are retried when their locks lapse.
   */
  listen(): void {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => void this.run(signal).then(() => this.exit(0)));
    }
    const crash = (kind: 'unhandledRejection' | 'uncaughtException') => (error: unknown) => {
      this.logger.error(
        kind === 'unhandledRejection' ? 'unhandled promise rejection' : 'uncaught exception',
        errorFields(error),
      );
      void this.run(kind).then(() => this.exit(1));
    };
    process.on('unhandledRejection', crash('unhandledRejection'));
    process.on('uncaughtException', crash('uncaughtException'));
  }

  /** Milliseconds left before the deadline (the whole timeout before shutdown starts). */
  remainingMs(): number {
    return this.startedAt === undefined
      ? this.timeoutMs
      : Math.max(0, this.timeoutMs - (Date.now() - this.startedAt));
  }

  /** Runs every step once, however often it is called. */
  run(reason: string): Promise<void> {
    this.started ??= this.runSteps(reason);
    return this.started;
  }

  private async runSteps(reason: string): Promise<void> {
    this.startedAt = Date.now();
    this.logger.info('shutdown started', { reason, timeoutMs: this.timeoutMs });
    const deadline = setTimeout(() => {
      this.logger.error('shutdown timed out, exiting', { timeoutMs: this.timeoutMs });
      this.exit(1);
    }, this.timeoutMs);
    deadline.unref();
    for (const step of this.steps) {
      try {
        this.logger.debug('shutdown step', { step: step.name });
        await step.run();
      } catch (error) {
        this.logger.warn('shutdown step failed', { step: step.name, ...errorFields(error) });
      }
    }
    clearTimeout(deadline);
    this.logger.info('shutdown complete');
  }
}

/** Stops accepting connections, lets in-flight requests finish; after `graceMs`, closes what is left. */
export function closeHttpServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    // A keep-alive socket becomes idle when its in-flight response ends: close it then, not
    // after the keep-alive timeout.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearTimeout(force);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
