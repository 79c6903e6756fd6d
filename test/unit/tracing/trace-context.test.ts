import { EventEmitter } from 'node:events';
import { createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { currentLogContext, runWithLogContext } from '../../../src/tracing/log-context';

/*
 * OpenTelemetry's context (the SDK's AsyncLocalStorage context manager) beside the log context
 * (src/tracing/log-context.ts): each keeps the other across awaits, nested runs, bound callbacks
 * and listeners.
 */
describe('the trace context carried with the log context', () => {
  const manager = new AsyncLocalStorageContextManager().enable();
  const KEY = createContextKey('test key');
  const traced = ROOT_CONTEXT.setValue(KEY, 'checkout trace');

  it('is the root outside any run', () => {
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it('keeps the log fields inside a trace context, and the trace context inside log fields', async () => {
    const seen = await runWithLogContext({ requestId: 'req-1', shop: 'acme' }, () =>
      manager.with(traced, async () => {
        await new Promise((resolve) => setImmediate(resolve));
        const inner = runWithLogContext({ jobId: 'job-9' }, () => ({
          log: currentLogContext(),
          value: manager.active().getValue(KEY),
        }));
        return { inner, outer: currentLogContext(), value: manager.active().getValue(KEY) };
      }),
    );
    expect(seen).toEqual({
      inner: { log: { requestId: 'req-1', shop: 'acme', jobId: 'job-9' }, value: 'checkout trace' },
      outer: { requestId: 'req-1', shop: 'acme' },
      value: 'checkout trace',
    });
    expect(manager.active()).toBe(ROOT_CONTEXT);
    expect(currentLogContext()).toEqual({});
  });

  it('passes this and the arguments to the function it runs', () => {
    const target = { factor: 3 };
    const result = manager.with(
      traced,
      function (this: typeof target, a: number, b: number) {
        return (a + b) * this.factor;
      },
      target,
      2,
      5,
    );
    expect(result).toBe(21);
  });

  it('runs a bound function and an emitter listener in the bound context', async () => {
    const bound = manager.bind(traced, () => manager.active().getValue(KEY));
    expect(bound()).toBe('checkout trace');
    const emitter = manager.bind(traced, new EventEmitter());
    const heard = new Promise((resolve) =>
      emitter.on('done', () => resolve(manager.active().getValue(KEY))),
    );
    runWithLogContext({ requestId: 'elsewhere' }, () => emitter.emit('done'));
    await expect(heard).resolves.toBe('checkout trace');
  });

  it('attaches a context until its token is disposed, once', () => {
    runWithLogContext({ requestId: 'req-2' }, () => {
      const token = manager.attach(traced);
      expect(manager.active().getValue(KEY)).toBe('checkout trace');
      expect(currentLogContext()).toEqual({ requestId: 'req-2' });
      token.dispose();
      token.dispose();
      expect(manager.active()).toBe(ROOT_CONTEXT);
      expect(currentLogContext()).toEqual({ requestId: 'req-2' });
    });
  });
});
