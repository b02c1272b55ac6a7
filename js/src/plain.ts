// Plain data from what callers pass in, and objects that hold any name as
// an own property.

/** obj[key] = value as an own property, "__proto__" included (assigning it would set the prototype). */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
