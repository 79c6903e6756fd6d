/**
 * A node's record in `SecretTrie.records`, side by side so a step through a node out of the cache
 * costs one memory read: node n's children are records[n * size + first] + 1 to the next node's
 * `first`; `fail` is the node of n's longest proper suffix in the trie, `longest` the length of the
 * longest secret ending n's string, 0 for none (the matcher completes both).
 */
export const RECORD_LAYOUT = { size: 3, first: 0, fail: 1, longest: 2 } as const;
const { size: RECORD, first: FIRST, longest: LONGEST } = RECORD_LAYOUT;

/**
 * The trie of `secrets` (empty ones ignored), numbered breadth first (a node's children are
 * consecutive: no edge needs a target), in typed arrays, built from them sorted: the nodes at
 * depth d are the distinct d-unit prefixes in sorted order, so each secret is read once and its
 * new node at depth d is the next number of that depth. `records` has one more record, closing the
 * last node's children; `nodeClass` is the class, less 1, of the unit leading to a node.
 */
export function buildSecretTrie(secrets: Iterable<string>) {
  // The default sort compares UTF-16 code units, the order the classes follow.
  const sorted = [...new Set(secrets)].filter((secret) => secret.length > 0).sort();
  const { classOf, classes } = classesOf(sorted);
  const shared = new Int32Array(sorted.length);
  let longestSecret = 0;
  for (let k = 0; k < sorted.length; k++) {
    shared[k] = commonPrefix(sorted[k - 1] ?? '', sorted[k] as string);
    longestSecret = Math.max(longestSecret, (sorted[k] as string).length);
  }
  const perDepth = nodesPerDepth(sorted, shared, longestSecret);
  const nextAt = new Int32Array(longestSecret + 1); // the next node number of each depth
  let nodes = 1;
  for (let depth = 1; depth <= longestSecret; depth++) {
    nextAt[depth] = nodes;
    nodes += perDepth[depth] as number;
  }
  const childCount = new Int32Array(nodes);
  const nodeClass = new Uint16Array(nodes);
  const records = new Int32Array((nodes + 1) * RECORD);
  const path = new Int32Array(longestSecret + 1); // the nodes of the secret before, by depth
  for (let k = 0; k < sorted.length; k++) {
    const secret = sorted[k] as string;
    for (let depth = (shared[k] as number) + 1; depth <= secret.length; depth++) {
      const node = nextAt[depth] as number;
      nextAt[depth] = node + 1;
      const parent = path[depth - 1] as number;
      childCount[parent] = (childCount[parent] as number) + 1;
      nodeClass[node] = (classOf[secret.charCodeAt(depth - 1)] as number) - 1;
      path[depth] = node;
    }
    records[(path[secret.length] as number) * RECORD + LONGEST] = secret.length;
  }
  for (let node = 0, first = 0; node < nodes; node++) {
    records[node * RECORD + FIRST] = first;
    first += childCount[node] as number;
    records[(node + 1) * RECORD + FIRST] = first;
  }
  return { nodes, records, nodeClass, perDepth, classOf, classes };
}

/** How many nodes each depth holds (the root's 1): a secret adds one at each depth past its shared prefix. */
function nodesPerDepth(sorted: readonly string[], shared: Int32Array, deepest: number): number[] {
  const change = new Int32Array(deepest + 2);
  for (let k = 0; k < sorted.length; k++) {
    const from = (shared[k] as number) + 1;
    change[from] = (change[from] as number) + 1;
    const past = (sorted[k] as string).length + 1;
    change[past] = (change[past] as number) - 1;
  }
  const perDepth = [1];
  for (let depth = 1, count = 0; depth <= deepest; depth++) {
    count += change[depth] as number;
    perDepth.push(count);
  }
  return perDepth;
}

/**
 * Numbers the code units the secrets hold (1 to `classes`; 0, or past the table's end, for none),
 * so a node's row is as wide as that alphabet, not 65,536. The table stops at the highest unit
 * held: a scanner builds many small automata while shops are opened, and 256 kB each was most of
 * what they allocated.
 */
function classesOf(secrets: readonly string[]): { classOf: Int32Array; classes: number } {
  let highest = -1;
  for (const secret of secrets) {
    for (let i = 0; i < secret.length; i++) highest = Math.max(highest, secret.charCodeAt(i));
  }
  const classOf = new Int32Array(highest + 1);
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
