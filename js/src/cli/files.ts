// The files the `shrew` CLI reads and writes besides the program itself:
// .npy inputs, the --params blob and the --out directory. Every failure is a
// FileError naming the path (exit status 1), never a stack trace or a hang.
import { closeSync, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { NpyError, npyHeaderEnd, readNpyHeader } from "../npy.js";
import { byteSize, shapeSize } from "../tensor.js";

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
/** The longest source the wasm module compiles (src/wasm/out_of_memory.h: 64 bytes of memory per byte, 2 GiB at most). */
export const SOURCE_LIMIT: ReadLimit = { bytes: 28 * MiB, why: "over 28 MiB, the largest source the compiler takes" };
/** A bundle or parameter blob is copied into the wasm heap (2 GiB at most) next to the parameters it sets. */
export const BLOB_LIMIT: ReadLimit = { bytes: 1024 * MiB, why: "over 1 GiB, more than the wasm heap can load" };
/** An input tensor holds at most 1 GiB (maxTensorBytes' default). */
export const INPUT_LIMIT = 1024 * MiB;

const CHUNK = MiB;

/** The path that names standard input, as FILE, --params or a .npy input. */
export const STDIN = "-";

/**
 * Opens `path` to read; "-" is standard input, fd 0 itself: opening
 * /dev/stdin fails (ENXIO) when it is a socket, as Node's child pipes are.
 */
function openInput(path: string): number {
  return path === STDIN ? 0 : openSync(path, "r");
}

function closeInput(fd: number): void {
  if (fd !== 0) closeSync(fd);
}

const pause = new Int32Array(new SharedArrayBuffer(4));
/** readSync, waiting out EAGAIN: standard input may have been left non-blocking. */
function readSome(fd: number, buf: Uint8Array, at: number, n: number): number {
  for (;;) {
    try {
      return readSync(fd, buf, at, n, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}

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
    const fd = openInput(path);
    try {
      return readAtMost(fd, where, limit);
    } finally {
      closeInput(fd);
    }
  } catch (e) {
    if (e instanceof FileError) throw e;
    throw new FileError(`cannot read ${where}: ${(e as Error).message}`);
  }
}

/**
 * The bytes of the .npy file at `path` (for `what`, an option): its header,
 * then exactly the data the header's shape and dtype need. Nothing past that
 * is read, as numpy's np.load reads one array of a file np.save appended
 * several to: /dev/zero fails at its magic, an endless pipe after the data.
 */
export function readNpyFile(path: string, what: string): Uint8Array {
  const where = `${path} (${what})`;
  let fd: number;
  try {
    fd = openInput(path);
  } catch (e) {
    throw new FileError(`cannot read ${where}: ${(e as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    let bytes: Uint8Array = new Uint8Array(12);
    // Version 1.0 has a 10-byte prefix, which a 2-byte header could follow: 10 first.
    let got = readFully(fd, bytes, 0, 10, where);
    if (got === 10 && bytes[6] !== 1) got += readFully(fd, bytes, 10, 2, where);
    const end = npyHeaderEnd(bytes.subarray(0, got));
    bytes = grow(bytes, got, end);
    got += readFully(fd, bytes, got, end - got, where);
    const header = readNpyHeader(bytes.subarray(0, got));
    const need = header.dataBytes;
    // The tensor's bytes, not the file's: an int16 file is read as i32, twice its size.
    const tensorBytes = shapeSize(header.shape) * byteSize(header.dtype);
    if (tensorBytes > INPUT_LIMIT) {
      throw new NpyError(`shape [${header.shape.join(", ")}] of ${header.dtype} needs ${tensorBytes} bytes, ` +
                         "over 1 GiB, more than an input tensor holds");
    }
    const total = header.dataStart + need;
    // A regular file's size is known: a short one is reported before its data is read.
    if (stat.isFile() && stat.size < total) {
      throw new NpyError(`.npy data is truncated: shape [${header.shape.join(", ")}] needs ${need} bytes, file has ${stat.size - header.dataStart}`);
    }
    // A pipe's length is not known: room grows as data arrives (doubling, from
    // 1 MiB), so a header claiming 1 GiB over a few bytes allocates no 1 GiB.
    while (got < total) {
      const room = stat.isFile() ? total : Math.min(total, Math.max(2 * got, CHUNK));
      bytes = grow(bytes, got, room);
      const k = readFully(fd, bytes, got, room - got, where);
      got += k;
      if (got < room) break;
    }
    // A short read leaves readNpy to report the truncated data.
    return bytes.subarray(0, got);
  } finally {
    closeInput(fd);
  }
}

/** `bytes` with room for `n`, its first `used` kept. */
function grow(bytes: Uint8Array, used: number, n: number): Uint8Array {
  if (bytes.length >= n) return bytes;
  const out = new Uint8Array(n);
  out.set(bytes.subarray(0, used));
  return out;
}

/** Reads up to `n` bytes into `buf` at `at`, fewer only at the end of the file (a pipe returns pieces). */
function readFully(fd: number, buf: Uint8Array, at: number, n: number, where: string): number {
  let done = 0;
  try {
    while (done < n) {
      const k = readSome(fd, buf, at + done, Math.min(n - done, 2 ** 30));
      if (k === 0) break;
      done += k;
    }
  } catch (e) {
    throw new FileError(`cannot read ${where}: ${(e as Error).message}`);
  }
  return done;
}

function readAtMost(fd: number, where: string, limitFor: ReadLimit | ((head: Uint8Array) => ReadLimit)): Uint8Array {
  const stat = fstatSync(fd);
  const chunks: Uint8Array[] = [];
  let total = 0;
  let limit = typeof limitFor === "function" ? undefined : limitFor;
  for (let buf = Buffer.allocUnsafe(CHUNK); ;) {
    const n = readSome(fd, buf, 0, CHUNK);
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
    // existsSync follows links: a dangling one (or a loop) read as absent, and mkdir then said EEXIST.
    let link = false;
    try {
      link = lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
    } catch {
      // ENOTDIR (a path through a file): mkdir below reports it
    }
    if (link) {
      let to = "";
      try {
        to = ` (${readlinkSync(p)})`;
      } catch {
        // unreadable: the link alone is named
      }
      throw new FileError(`cannot write into ${dir} (--out): ${p} is a symbolic link that leads to no file or directory${to}`);
    }
    missing.push(p);
    if (dirname(p) === p) break;
  }
  try {
    for (const d of missing.reverse()) mkdirSync(d);
  } catch (e) {
    throw new FileError(`cannot create ${dir} (--out): ${(e as Error).message}`);
  }
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (e) {
    // A path through a regular file (ENOTDIR) or a symlink loop (ELOOP).
    throw new FileError(`cannot write into ${dir} (--out): ${(e as Error).message}`);
  }
  if (!isDir) throw new FileError(`cannot write into ${dir} (--out): not a directory`);
}

/**
 * Writes each file (path, bytes) in full, or none of them: each goes to a
 * temporary file next to it first, renamed over its path once all are
 * written. A disk that fills up half-way had truncated the previous file and
 * left a corrupt one in its place. `what` names the option (" (--out)").
 */
export function writeFiles(files: readonly (readonly [string, Uint8Array])[], what: string): void {
  const temps: string[] = [];
  try {
    for (const [path, bytes] of files) {
      const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
      temps.push(temp);
      try {
        writeFileSync(temp, bytes);
      } catch (e) {
        // Node's messages name the temporary file, which the user never named.
        const reason = (e as Error).message.replace(`, open '${temp}'`, "");
        throw new FileError(`cannot write ${path}${what}: ${reason}`);
      }
    }
    // A path that is a directory is found before any rename: none is replaced.
    for (const [path] of files) {
      let isDir = false;
      try {
        isDir = statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
      } catch {
        // ELOOP and the like: the rename below reports it.
      }
      if (isDir) throw new FileError(`cannot write ${path}${what}: it is a directory`);
    }
    files.forEach(([path], i) => {
      try {
        renameSync(temps[i], path);
      } catch (e) {
        const reason = (e as Error).message.replace(`, rename '${temps[i]}' -> '${path}'`, "");
        throw new FileError(`cannot write ${path}${what}: ${reason}`);
      }
    });
  } finally {
    for (const t of temps) {
      try {
        rmSync(t, { force: true });
      } catch {
        // It was never made (its directory is no directory).
      }
    }
  }
}
