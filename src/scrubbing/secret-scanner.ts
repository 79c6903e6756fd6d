import type { SecretBook } from './secret-book';
import { replaceStretches, SecretMatcher } from './secret-matcher';

/** Strings scanned with no new secret, after which the automata are merged into one. */
const QUIET_SCANS = 256;

/** An automaton over the book's values from `from` to before `to`. */
interface Level {
  from: number;
  to: number;
  matcher: SecretMatcher;
}

/**
 * Scans strings for the values of a growing SecretBook. One automaton rebuilt over every value
 * after each addition would be quadratic when additions and lines take turns (the registry logs
 * "shop served" after each shop it opens: 2,000 shops took 21 s). So values go into levels like
 * the digits of a binary counter: a new level takes in every level not larger than itself, and a
 * value is rebuilt about log2(n) times. Once the book is still for QUIET_SCANS strings, the levels
 * become one automaton again.
 */
export class SecretScanner {
  /** Oldest (and largest) first. */
  private levels: Level[] = [];
  private quietScans = 0;
  /** How many values the builds so far have taken, merges included. */
  builtValues = 0;

  constructor(private readonly book: SecretBook) {}

  /** How many automata a string is scanned with now. */
  get automata(): number {
    return this.levels.length;
  }

  replace(text: string, replacement: string): string {
    this.catchUp();
    const { levels } = this;
    if (levels.length === 0) return text;
    if (levels.length === 1) return (levels[0] as Level).matcher.replace(text, replacement);
    return replaceStretches(
      text,
      mergeStretches(this.levels.map((level) => level.matcher.find(text))),
      replacement,
    );
  }

  private catchUp(): void {
    const size = this.book.size;
    const indexed = this.levels[this.levels.length - 1]?.to ?? 0;
    if (size === indexed) {
      this.quietScans += 1;
      if (this.levels.length > 1 && this.quietScans >= QUIET_SCANS) {
        this.levels = [this.build(0, size)];
      }
      return;
    }
    this.quietScans = 0;
    let from = indexed;
    for (let last = this.levels.pop(); last !== undefined; last = this.levels.pop()) {
      if (last.to - last.from > size - from) {
        this.levels.push(last);
        break;
      }
      from = last.from;
    }
    this.levels.push(this.build(from, size));
  }

  private build(from: number, to: number): Level {
    this.builtValues += to - from;
    return { from, to, matcher: SecretMatcher.build(this.book.slice(from, to)) };
  }
}

/** The union of several lists of [start, end) stretches, overlapping ones merged. */
function mergeStretches(lists: number[][]): number[] {
  const pairs: [number, number][] = [];
  for (const list of lists) {
    for (let k = 0; k < list.length; k += 2) pairs.push([list[k] as number, list[k + 1] as number]);
  }
  pairs.sort((a, b) => a[0] - b[0]);
  const merged: number[] = [];
  for (const [start, end] of pairs) {
    const last = merged.length - 1;
    if (last > 0 && (merged[last] as number) > start) {
      merged[last] = Math.max(merged[last] as number, end);
    } else merged.push(start, end);
  }
  return merged;
}
