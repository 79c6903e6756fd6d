// cluster-key-slot (the ioredis maintainers' package, which ioredis itself uses) ships no types.
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (0..16383) of a key: CRC16 of its hash tag, or of the key. */
  function calculateSlot(key: string | Buffer): number;
  export = calculateSlot;
}
