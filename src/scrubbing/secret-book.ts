/**
 * The secret values a logger scrubs: the configuration's, then each registry shop's as the
 * process opens it. Values never go: a removed shop's secrets are still secrets.
 */
export class SecretBook {
  private readonly known = new Set<string>();
  /** The same values, in the order they came: a scanner indexes the ones it has not seen. */
  private readonly inOrder: string[] = [];
  /** Bumped by every addition that changed the set. */
  version = 0;

  constructor(values: readonly string[] = []) {
    this.add(values);
  }

  /** Adds values of 4 units or more (shorter ones would redact ordinary words); cheap. */
  add(values: readonly string[]): void {
    const before = this.inOrder.length;
    for (const value of values) {
      if (value.length < 4 || this.known.has(value)) continue;
      this.known.add(value);
      this.inOrder.push(value);
    }
    if (this.inOrder.length !== before) this.version += 1;
  }

  get size(): number {
    return this.inOrder.length;
  }

  slice(start: number, end: number): string[] {
    return this.inOrder.slice(start, end);
  }

  values(): ReadonlySet<string> {
    return this.known;
  }
}
