/**
 * Reads by key, batched: while one read is on its way, the keys asked for meanwhile wait for the
 * next, which reads them all at once. Every request still reads what is stored after it arrived,
 * and a busy process makes one round trip for many requests.
 */
export class BatchedReads<T> {
  private waiting = new Map<
    string,
    Array<{ resolve(value: T | undefined): void; reject(error: unknown): void }>
  >();
  private reading: Promise<void> | undefined;

  constructor(private readonly readMany: (keys: string[]) => Promise<Map<string, T>>) {}

  read(key: string): Promise<T | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(key) ?? [];
      waiters.push({ resolve, reject });
      this.waiting.set(key, waiters);
      this.reading ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.size > 0) {
      const batch = this.waiting;
      this.waiting = new Map();
      try {
        const values = await this.readMany([...batch.keys()]);
        for (const [key, waiters] of batch) for (const w of waiters) w.resolve(values.get(key));
      } catch (error) {
        for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
      }
    }
    this.reading = undefined;
  }
}
