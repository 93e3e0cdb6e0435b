/**
 * An object with one entry per key, each made from its key: what `Object.fromEntries` builds, typed by
 * the keys instead of collapsing to a string-keyed record.
 */
export function recordOf<K extends string, V>(keys: readonly K[], value: (key: K) => V): Record<K, V> {
  const out: Partial<Record<K, V>> = {};
  for (const key of keys) out[key] = value(key);
  // Every key of `keys` was set just above: nothing of the record is missing.
  return out as Record<K, V>;
}
