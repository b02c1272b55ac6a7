// The files the `shrew` CLI reads and writes besides the program itself:
// .npy inputs, the --params blob and the --out directory. Every failure is a
// FileError naming the path (exit status 1), never a stack trace or a hang.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** A file the CLI could not read or write: printed as one line, exit status 1. */
export class FileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FileError";
  }
}

/** The bytes of `path`; `what` says which option named it. */
export function readBytes(path: string, what: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch (e) {
    throw new FileError(`cannot read ${path} (${what}): ${(e as Error).message}`);
  }
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
