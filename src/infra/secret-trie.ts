/**
 * A node's record in `SecretTrie.records`: three numbers side by side, so that a step through a
 * node that is not in the processor's cache costs one memory read, not one per field.
 */
export const RECORD = 3;
/** Node n's children are the nodes records[n * RECORD + FIRST] + 1 to the next node's FIRST. */
export const FIRST = 0;
/** The node of the longest proper suffix of node n's string that is in the trie (the matcher's). */
export const FAIL = 1;
/** The length of the longest secret ending node n's string, 0 for none (the matcher completes it). */
export const LONGEST = 2;

/**
 * The trie of the secret values a SecretMatcher scans for, numbered breadth first, in typed
 * arrays (breadth-first numbering makes a node's children consecutive: no edge needs a target).
 */
export interface SecretTrie {
  nodes: number;
  /** RECORD numbers per node, and one more record whose FIRST closes the last node's children. */
  records: Int32Array;
  /** The class of the code unit that leads to node n from its parent, less 1 (it fits 16 bits). */
  nodeClass: Uint16Array;
  /** How many nodes each depth holds (the root's is 1). */
  perDepth: number[];
  /** Code unit to class: 0 for a unit no secret holds, else 1 to `classes`, in code unit order. */
  classOf: Int32Array;
  classes: number;
}

/**
 * Builds the trie of `secrets` (empty ones ignored) from them sorted, one depth at a time: the
 * nodes at depth d are the distinct d-unit prefixes, in sorted order, and a secret starts a new
 * one exactly where it shares fewer than d units with the secret before it.
 */
export function buildSecretTrie(secrets: Iterable<string>): SecretTrie {
  // The default sort compares UTF-16 code units, the order the classes follow.
  const sorted = [...new Set(secrets)].filter((secret) => secret.length > 0).sort();
  const { classOf, classes } = classesOf(sorted);
  const shared = new Int32Array(sorted.length);
  let nodes = 1;
  for (let k = 0; k < sorted.length; k++) {
    shared[k] = commonPrefix(sorted[k - 1] ?? '', sorted[k] as string);
    nodes += (sorted[k] as string).length - (shared[k] as number);
  }
  const childCount = new Int32Array(nodes);
  const nodeClass = new Uint16Array(nodes);
  const records = new Int32Array((nodes + 1) * RECORD);
  const perDepth = [1];
  const current = new Int32Array(sorted.length); // each secret's node at the depth before
  let live = sorted.map((_, k) => k);
  let made = 1;
  for (let depth = 1; live.length > 0; depth++) {
    perDepth.push(0);
    for (const k of live) {
      const secret = sorted[k] as string;
      if ((shared[k] as number) < depth) {
        const parent = current[k] as number;
        childCount[parent] = (childCount[parent] as number) + 1;
        nodeClass[made] = (classOf[secret.charCodeAt(depth - 1)] as number) - 1;
        perDepth[depth] = (perDepth[depth] as number) + 1;
        current[k] = made++;
      } else {
        current[k] = current[k - 1] as number;
      }
      if (secret.length === depth) records[(current[k] as number) * RECORD + LONGEST] = depth;
    }
    live = live.filter((k) => (sorted[k] as string).length > depth);
  }
  for (let node = 0, first = 0; node < nodes; node++) {
    records[node * RECORD + FIRST] = first;
    first += childCount[node] as number;
    records[(node + 1) * RECORD + FIRST] = first;
  }
  return { nodes, records, nodeClass, perDepth, classOf, classes };
}

/**
 * Numbers the code units the secrets hold, so a node's transitions fit a row as wide as that
 * alphabet (a few dozen for generated keys) rather than 65,536.
 */
function classesOf(secrets: readonly string[]): { classOf: Int32Array; classes: number } {
  const classOf = new Int32Array(0x10000);
  for (const secret of secrets) {
    for (let i = 0; i < secret.length; i++) classOf[secret.charCodeAt(i)] = 1;
  }
  let classes = 0;
  for (let unit = 0; unit < classOf.length; unit++) {
    if (classOf[unit] === 1) classOf[unit] = ++classes;
  }
  return { classOf, classes };
}

function commonPrefix(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let k = 0;
  while (k < limit && a.charCodeAt(k) === b.charCodeAt(k)) k++;
  return k;
}
