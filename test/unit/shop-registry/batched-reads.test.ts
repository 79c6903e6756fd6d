import { BatchedReads } from '../../../src/shop-registry/batched-reads';

/** A store whose reads are answered by hand, recording what each read asked for. */
function handStore() {
  const reads: Array<{
    keys: string[];
    answer(values: Record<string, number>): void;
    fail(error: Error): void;
  }> = [];
  let stored: Record<string, number> = {};
  const readMany = (keys: string[]) =>
    new Promise<Map<string, number>>((resolve, reject) => {
      // What is stored when the read is issued is what it returns.
      const snapshot = { ...stored };
      reads.push({
        keys,
        answer: () =>
          resolve(
            new Map(keys.filter((k) => k in snapshot).map((k) => [k, snapshot[k] as number])),
          ),
        fail: reject,
      });
    });
  return {
    reads,
    readMany,
    set: (values: Record<string, number>) => (stored = { ...stored, ...values }),
  };
}

describe('batched reads', () => {
  it('reads at once when nothing is on its way', async () => {
    const store = handStore();
    store.set({ a: 1 });
    const batched = new BatchedReads(store.readMany);
    const a = batched.read('a');
    expect(store.reads.map((r) => r.keys)).toEqual([['a']]);
    store.reads[0]?.answer({});
    await expect(a).resolves.toBe(1);
  });

  it('never answers a read with what was read before it was asked for', async () => {
    const store = handStore();
    store.set({ a: 1 });
    const batched = new BatchedReads(store.readMany);
    const first = batched.read('a');
    // A change lands while the first read is on its way; the next ask must see it.
    store.set({ a: 2 });
    const second = batched.read('a');
    const third = batched.read('b');
    expect(store.reads).toHaveLength(1);
    store.reads[0]?.answer({});
    await expect(first).resolves.toBe(1);
    // The waiting asks share one read, issued after they were made.
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.reads.map((r) => r.keys)).toEqual([['a'], ['a', 'b']]);
    store.reads[1]?.answer({});
    await expect(second).resolves.toBe(2);
    await expect(third).resolves.toBeUndefined();
  });

  it('fails the asks of a failed read, and reads again for the next ones', async () => {
    const store = handStore();
    store.set({ a: 1 });
    const batched = new BatchedReads(store.readMany);
    const failing = batched.read('a');
    store.reads[0]?.fail(new Error('Redis away'));
    await expect(failing).rejects.toThrow('Redis away');
    const again = batched.read('a');
    expect(store.reads).toHaveLength(2);
    store.reads[1]?.answer({});
    await expect(again).resolves.toBe(1);
  });
});
