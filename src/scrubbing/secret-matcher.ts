import { buildSecretTrie, RECORD_LAYOUT } from './secret-trie';

// Module constants, not imported bindings: a transpiler's import is a property read (esbuild's
// a getter call) on every use, and these are used for every code unit of every log line.
const { size: RECORD, first: FIRST, fail: FAIL, longest: LONGEST } = RECORD_LAYOUT;

/**
 * Shallow nodes get a full row of transitions, up to 4 MB (it stays in the processor's cache):
 * ordinary text rarely goes deeper than two or three units into a trie of random keys, so most
 * code units cost one read, whatever the number of secrets. A small automaton gets at most
 * DENSE_PER_NODE entries a node: the rows are for speed, not most of its size.
 */
const DENSE_ENTRIES = 1 << 20;
const DENSE_PER_NODE = 2;

/**
 * One Aho-Corasick automaton over every known secret value, matching UTF-16 code units exactly
 * (no normalisation: a secret followed by a combining mark must still be found). One pass over a
 * string finds every occurrence of every secret. It lives in typed arrays: with 10,000 shops (two
 * million nodes) objects and Maps would cost hundreds of MB and the GC's walk; a node costs 14 bytes.
 */
export class SecretMatcher {
  /**
   * No node below this one ends a secret (breadth-first numbering): the scan reads a state's
   * record only from here on, so the shallow states ordinary text visits cost one memory access a
   * code unit, not two (the records are megabytes, out of the cache between two log lines).
   */
  private matchFrom = 0;

  private constructor(
    /** Code unit to class (0, or past its end: in no secret). */
    private readonly classOf: Int32Array,
    private readonly records: Int32Array,
    /** The class, less 1, of the code unit that leads to node n. */
    private readonly nodeClass: Uint16Array,
    /** Row n (width entries) is node n's next node for each class, for n below denseNodes. */
    private readonly dense: Int32Array,
    private readonly width: number,
    private readonly denseNodes: number,
  ) {}

  /** Linear in the secrets' total length; empty values are ignored. */
  static build(secrets: Iterable<string>): SecretMatcher {
    const trie = buildSecretTrie(secrets);
    const width = trie.classes + 1;
    const budget = Math.min(DENSE_ENTRIES, trie.nodes * DENSE_PER_NODE);
    let denseNodes = 1; // the root's row, always
    for (let depth = 1; depth < trie.perDepth.length; depth++) {
      const more = trie.perDepth[depth] as number;
      if ((denseNodes + more) * width > budget) break;
      denseNodes += more;
    }
    const { classOf, records, nodeClass } = trie;
    const dense = new Int32Array(denseNodes * width);
    const matcher = new SecretMatcher(classOf, records, nodeClass, dense, width, denseNodes);
    matcher.link(trie.nodes);
    while (matcher.matchFrom < trie.nodes && records[matcher.matchFrom * RECORD + LONGEST] === 0)
      matcher.matchFrom += 1;
    return matcher;
  }

  /**
   * Every stretch of `text` covered by an occurrence of a secret, as [start, end) pairs in order,
   * overlapping occurrences merged: no piece of any secret is left out.
   */
  find(text: string): number[] {
    const stretches: number[] = [];
    if (this.width === 1) return stretches; // no secrets: no unit has a class
    const { classOf, records, dense, width, denseNodes, matchFrom } = this;
    const classed = classOf.length;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      const unitClass = unit < classed ? (classOf[unit] as number) : 0;
      // A unit no secret holds ends every partial match; a shallow state has its row.
      if (unitClass === 0) state = 0;
      else if (state < denseNodes) state = dense[state * width + unitClass] as number;
      else state = this.next(state, unitClass);
      if (state < matchFrom) continue;
      const length = records[state * RECORD + LONGEST] as number;
      if (length === 0) continue;
      // The longest secret ending here covers every shorter one ending here.
      let start = i + 1 - length;
      while (stretches.length > 0 && (stretches[stretches.length - 1] as number) > start) {
        start = Math.min(start, stretches[stretches.length - 2] as number);
        stretches.length -= 2;
      }
      stretches.push(start, i + 1);
    }
    return stretches;
  }

  replace(text: string, replacement: string): string {
    return replaceStretches(text, this.find(text), replacement);
  }

  /** The state after `state` reads a unit of `unitClass` (not 0): goto, or failure links. */
  private next(state: number, unitClass: number): number {
    const { records, nodeClass } = this;
    for (let node = state; ; node = records[node * RECORD + FAIL] as number) {
      if (node < this.denseNodes) return this.dense[node * this.width + unitClass] as number;
      // The children, in class order: a binary search (most deep nodes have one).
      let low = (records[node * RECORD + FIRST] as number) + 1;
      let high = records[(node + 1) * RECORD + FIRST] as number;
      while (low <= high) {
        const mid = (low + high) >>> 1;
        const found = (nodeClass[mid] as number) + 1;
        if (found === unitClass) return mid;
        if (found < unitClass) low = mid + 1;
        else high = mid - 1;
      }
    }
  }

  /** Failure links, inherited match lengths and dense rows, breadth first (suffixes done before). */
  private link(nodes: number): void {
    const { records, nodeClass, dense, width, denseNodes } = this;
    for (let node = 0; node < nodes; node++) {
      const row = node * width;
      const fail = records[node * RECORD + FAIL] as number;
      if (node > 0 && node < denseNodes) dense.copyWithin(row, fail * width, fail * width + width);
      const last = records[(node + 1) * RECORD + FIRST] as number;
      for (let child = (records[node * RECORD + FIRST] as number) + 1; child <= last; child++) {
        const unitClass = (nodeClass[child] as number) + 1;
        if (node < denseNodes) dense[row + unitClass] = child;
        const suffix = node === 0 ? 0 : this.next(fail, unitClass);
        records[child * RECORD + FAIL] = suffix;
        const own = child * RECORD + LONGEST;
        if (records[own] === 0) records[own] = records[suffix * RECORD + LONGEST] as number;
      }
    }
  }
}

/** `text` with each [start, end) stretch (in order, apart) replaced by `replacement`. */
export function replaceStretches(text: string, stretches: number[], replacement: string): string {
  if (stretches.length === 0) return text;
  let out = '';
  let from = 0;
  for (let k = 0; k < stretches.length; k += 2) {
    out += text.slice(from, stretches[k]) + replacement;
    from = stretches[k + 1] as number;
  }
  return out + text.slice(from);
}
