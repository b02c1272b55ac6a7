// The files the `shrew` CLI reads and writes besides the program itself:
// .npy inputs, the --params blob and the --out directory. Every failure is a
// FileError naming the path (exit status 1), never a stack trace or a hang.
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** A file the CLI could not read or write: printed as one line, exit status 1. */
export class FileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FileError";
  }
}

/** The most the CLI reads of a file: past it, reading stops with an error saying why. */
export interface ReadLimit {
  readonly bytes: number;
  readonly why: string;
}

const MiB = 2 ** 20;
/** CompileOptions::max_source_bytes: a longer source does not compile. */
export const SOURCE_LIMIT: ReadLimit = { bytes: 64 * MiB, why: "over 64 MiB, the largest source the compiler takes" };
/** A bundle or parameter blob is copied into the wasm heap (2 GiB at most) next to the parameters it sets. */
export const BLOB_LIMIT: ReadLimit = { bytes: 1024 * MiB, why: "over 1 GiB, more than the wasm heap can load" };
/** An input tensor holds at most 1 GiB (maxTensorBytes' default); the .npy header gets 1 MiB more. */
export const NPY_LIMIT: ReadLimit = { bytes: 1025 * MiB, why: "over 1 GiB + 1 MiB, more than an input tensor holds (1 GiB)" };

const CHUNK = MiB;

/**
 * The bytes of `path`, `what` saying which option named it (none: FILE).
 * At most `limit` bytes are read, the limit chosen from the file's first 8
 * bytes when a function: /dev/zero, or a FIFO that never ends, would
 * otherwise be read until memory runs out.
 */
export function readBytes(path: string, what: string | undefined,
                          limit: ReadLimit | ((head: Uint8Array) => ReadLimit)): Uint8Array {
  const where = what === undefined ? path : `${path} (${what})`;
  try {
    const fd = openSync(path, "r");
    try {
      return readAtMost(fd, where, limit);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    if (e instanceof FileError) throw e;
    throw new FileError(`cannot read ${where}: ${(e as Error).message}`);
  }
}

function readAtMost(fd: number, where: string, limitFor: ReadLimit | ((head: Uint8Array) => ReadLimit)): Uint8Array {
  const stat = fstatSync(fd);
  const chunks: Uint8Array[] = [];
  let total = 0;
  let limit = typeof limitFor === "function" ? undefined : limitFor;
  for (let buf = Buffer.allocUnsafe(CHUNK); ;) {
    const n = readSync(fd, buf, 0, CHUNK, null);
    if (n === 0) break;
    // A short read (a pipe) is copied out, so the 1 MiB buffer serves the next one.
    if (n === CHUNK) chunks.push(buf), buf = Buffer.allocUnsafe(CHUNK);
    else chunks.push(new Uint8Array(buf.subarray(0, n)));
    total += n;
    if (limit === undefined && total >= 8) limit = (limitFor as (head: Uint8Array) => ReadLimit)(concat(chunks, 8));
    // A regular file's size is known: no need to read up to the limit to find it too big.
    const max = limit?.bytes ?? Infinity;
    if (total > max || (stat.isFile() && stat.size > max)) throw new FileError(`cannot read ${where}: ${limit!.why}`);
  }
  return concat(chunks, total);
}

/** The first `n` bytes of `chunks` as one plain Uint8Array. */
function concat(chunks: readonly Uint8Array[], n: number): Uint8Array {
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    if (at >= n) break;
    const part = c.subarray(0, n - at);
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Creates `dir` and its missing parents, one level at a time: Node's
 * `mkdirSync(dir, { recursive: true })` spins forever under /proc (the
 * kernel answers ENOENT to a mkdir whose parent exists), so it is not used.
 */
export function ensureDir(dir: string): void {
  const missing: string[] = [];
  for (let p = resolve(dir); !existsSync(p); p = dirname(p)) {
    missing.push(p);
    if (dirname(p) === p) break;
  }
  try {
    for (const d of missing.reverse()) mkdirSync(d);
  } catch (e) {
    throw new FileError(`cannot create ${dir} (--out): ${(e as Error).message}`);
  }
  if (!statSync(dir).isDirectory()) throw new FileError(`cannot write into ${dir} (--out): not a directory`);
}

/** Writes `bytes` to DIR/NAME. */
export function writeInto(dir: string, name: string, bytes: Uint8Array): void {
  const path = join(dir, name);
  try {
    writeFileSync(path, bytes);
  } catch (e) {
    throw new FileError(`cannot write ${path} (--out): ${(e as Error).message}`);
  }
}
