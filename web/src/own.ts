// Lookups by a name from the program (a dim, an input, a dtype): a plain
// object answers `in` and `[]` from Object.prototype too, so a dim named
// constructor or toString read as a function, and one named __proto__ set
// the object's prototype instead of a property.

/** `obj[key]` if it is obj's own property, else undefined (never Object.prototype's). */
export function own<T>(obj: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** An empty record without a prototype: any name is a plain key, `__proto__` included. */
export function record<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** A record of these entries, without a prototype (Object.fromEntries makes one with it). */
export function recordOf<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const r = record<T>();
  for (const [k, v] of entries) r[k] = v;
  return r;
}
