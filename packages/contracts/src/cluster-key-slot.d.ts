/**
 * `cluster-key-slot` ships no types (a CommonJS module whose export is the function): the slot
 * of a key, CRC16 of the key or of its `{hash tag}`, mod 16384.
 */
declare module 'cluster-key-slot' {
  const calculateSlot: (key: string) => number;
  export default calculateSlot;
}
