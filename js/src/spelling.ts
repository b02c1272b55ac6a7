// "Did you mean …?" for a misspelt name the package reports itself (an
// option, an input, an output): the rule of src/base/spelling.cc
// (ClosestName), so that the package and the runtime suggest the same names.
// Lengths, edits and the alphabetical order are those of the UTF-8 bytes, as
// the C++ side counts them.

const ENCODER = new TextEncoder();

/** Optimal string alignment distance: insert, delete, substitute, and a swap of neighbours ("rleu" → "relu") count 1. */
function editDistance(a: Uint8Array, b: Uint8Array): number {
  let prev2 = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) cur[j] = Math.min(cur[j], prev2[j - 2] + 1);
    }
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[b.length];
}

const lower = (c: number) => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c);

function equalIgnoringCase(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((c, i) => lower(c) === lower(b[i]));
}

/** Byte order, as std::string_view's operator< (UTF-8 bytes sort as code points do). */
function before(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i];
  return a.length < b.length;
}

/**
 * The candidate equal to `name` but for ASCII case, else the one nearest to
 * `name` whose distance is at most a third of the longer name (so none for
 * names of one or two letters), ties to an anagram of `name` (a swap is the
 * likelier slip: 'i46' is i64, not i16), then to the alphabetically first (so
 * the candidates' order does not matter); undefined when none is, or when
 * `name` itself is a candidate.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  if (list.includes(name)) return undefined;
  const n = ENCODER.encode(name);
  const encoded = list.map((c) => ({ c, bytes: ENCODER.encode(c) }));
  // "Relu" is "relu", not the equally near "gelu".
  const sameButCase = encoded.find((e) => equalIgnoringCase(e.bytes, n));
  if (sameButCase) return sameButCase.c;
  const sorted = (b: Uint8Array) => Array.from(b).sort((x, y) => x - y).join(",");
  const letters = sorted(n);
  let best: { c: string; bytes: Uint8Array; distance: number; anagram: boolean } | undefined;
  for (const { c, bytes } of encoded) {
    // One edit per three characters: 'y' is not a misspelt 'x'.
    const limit = Math.floor(Math.max(n.length, bytes.length) / 3);
    // The distance is at least the difference in length: far ones are skipped cheaply.
    if (limit === 0 || Math.abs(n.length - bytes.length) > limit) continue;
    const distance = editDistance(n, bytes);
    if (distance > limit) continue;
    const anagram = sorted(bytes) === letters;
    if (!best || distance < best.distance ||
        (distance === best.distance && (anagram !== best.anagram ? anagram : before(bytes, best.bytes)))) {
      best = { c, bytes, distance, anagram };
    }
  }
  return best?.c;
}

/** `; did you mean 'X'?` for the closest name (closestName), or "" when none is close. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const near = closestName(name, candidates);
  return near === undefined ? "" : `; did you mean '${near}'?`;
}
