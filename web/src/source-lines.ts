// Where compiler spans end, in lines. Spans count UTF-8 bytes (column,
// length) while the editor counts UTF-16 units: re-encoding the source for
// each span made every cursor move on a large program cost a TextEncoder
// pass per instruction. This table is made once per compile; a lookup is a
// binary search.

/** A compiler span: 1-based line, 1-based byte column, byte length (line 0: no position). */
export interface ByteSpan {
  line: number;
  column: number;
  length: number;
}

export class SourceLines {
  /** UTF-8 byte offset where each line starts (index 0: line 1). */
  readonly #starts: number[] = [0];
  readonly #bytes: number;

  /** `source`: the text as compiled (lines end with "\n", as the editor's document joins them). */
  constructor(source: string) {
    let bytes = 0;
    for (let i = 0; i < source.length; i++) {
      const c = source.charCodeAt(i);
      if (c === 10) {
        bytes += 1;
        this.#starts.push(bytes);
      } else if (c < 0x80) bytes += 1;
      else if (c < 0x800) bytes += 2;
      else if (c >= 0xd800 && c < 0xdc00 && i + 1 < source.length && (source.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        bytes += 4;  // a surrogate pair: one 4-byte character
        i++;
      } else bytes += 3;  // the rest of the BMP, and a lone surrogate (encoded as U+FFFD)
    }
    this.#bytes = bytes;
  }

  get lineCount(): number {
    return this.#starts.length;
  }

  /** The last line a span covers (a span can run over several lines); its own line if it has no position. */
  lastLine(span: ByteSpan): number {
    if (span.line < 1 || span.line > this.#starts.length) return span.line;
    const lineStart = this.#starts[span.line - 1];
    const lineEnd = span.line < this.#starts.length ? this.#starts[span.line] - 1 : this.#bytes;
    // Clamped like the editor's span range: the start to its line, the end to the text.
    const from = Math.min(lineStart + Math.max(0, span.column - 1), lineEnd);
    return this.#lineAt(Math.min(this.#bytes, from + Math.max(0, span.length)));
  }

  /** The 1-based line holding byte offset `byte`. */
  #lineAt(byte: number): number {
    let lo = 0, hi = this.#starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#starts[mid] <= byte) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}
