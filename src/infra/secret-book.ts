/**
 * The secret values a logger scrubs: the configuration's at start, and each registry shop's as
 * the process opens it (`add`), so a shop added at run time is never logged either. Values only
 * come, never go: a removed shop's secrets are still secrets in an old line's neighbours.
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

  /** How many values the book holds. */
  get size(): number {
    return this.inOrder.length;
  }

  /** The values from the `start`-th to before the `end`-th, in the order they came. */
  slice(start: number, end: number): string[] {
    return this.inOrder.slice(start, end);
  }

  values(): ReadonlySet<string> {
    return this.known;
  }
}
