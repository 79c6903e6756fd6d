import { errorMessage } from '../errors';
import { DEFAULT_PROVIDER } from '../payments/providers';

// The demo's life (CONTRACT "The first hour"): whatever ends it stops all it started.

export const DEMO_ENV_FILE = '.demo.env';

/** `export NAME='value'` lines a shell sources (the values hold no quote: ids, keys, URLs). */
export function demoVariables(variables: Record<string, string>): string {
  return Object.entries(variables)
    .map(([name, value]) => `export ${name}='${value.replaceAll("'", `'\\''`)}'`)
    .join('\n')
    .concat('\n');
}

/** Everything the demo started, stopped in the reverse order, once, whatever ends the demo. */
export class Started {
  private readonly stops: Array<() => Promise<unknown>> = [];
  private stopping: Promise<void> | undefined;

  /** Whether the demo is ending: what starts now is stopped at once. */
  get ending(): boolean {
    return this.stopping !== undefined;
  }

  /** Keeps how to stop what just started (stopped now when the demo is already ending). */
  track(stop: () => Promise<unknown>): void {
    if (this.stopping) void this.stopping.then(stop).catch(() => undefined);
    else this.stops.push(stop);
  }

  stopAll(): Promise<void> {
    this.stopping ??= (async () => {
      for (let stop = this.stops.pop(); stop; stop = this.stops.pop()) {
        await stop().catch((error: unknown) =>
          process.stderr.write(`demo: stopping: ${errorMessage(error)}\n`),
        );
      }
    })();
    return this.stopping;
  }
}

/** What ended the demo: Ctrl-C, a signal, or its parent gone (killed, passing no signal on). */
export function endOfDemo(): Promise<string> {
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
      process.once(signal, () => resolve(signal));
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) resolve('the process that started the demo is gone');
    }, 500).unref();
  });
}

export function demoProblems(env: NodeJS.ProcessEnv): string[] {
  const provider = env.PAYMENT_PROVIDER;
  return provider !== undefined && provider !== '' && provider !== DEFAULT_PROVIDER
    ? [
        `PAYMENT_PROVIDER: the demo runs the sandbox only (no outside account); unset it, or run \`npm start\` with ${provider}'s variables`,
      ]
    : [];
}
