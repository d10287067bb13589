// cluster-key-slot 1.1.1 ships no types: the one function we use (the same one ioredis uses to route).
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (0-16383) of a key, honouring `{hash tags}`. */
  export default function calculateSlot(key: string | Buffer): number;
}
