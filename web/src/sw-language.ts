// `.sw` syntax highlighting (LANGUAGE.md §2): a CodeMirror stream tokenizer
// for comments, strings, numbers, directives, the soft keywords of table A,
// the reserved words of table B and op calls.
import { HighlightStyle, StreamLanguage, syntaxHighlighting, type StreamParser } from "@codemirror/language";
import { tags as t } from "@lezer/highlight";

const KEYWORDS = new Set(`input output param node op call if else repeat scan for in type init
gradient impl signature as track plot range model loss optimizer lr_schedule grad_clip precision
accumulation_steps optimizations quantization generation backend checkpoints frozen device source compute
aggregate log_every recompute_in_backward must_preserve in_place no_grad cpu gpu tpu`.split(/\s+/));
const DTYPES = new Set("f16 f32 f64 bf16 i8 i16 i32 i64 u8 u16 u32 u64 bool complex64 complex128".split(" "));
const ATOMS = new Set(["true", "false", "null"]);

interface State {
  inBlockComment: boolean;
}

const parser: StreamParser<State> = {
  name: "shrew",
  startState: () => ({ inBlockComment: false }),
  token(stream, state) {
    if (state.inBlockComment) {
      // Block comments do not nest: the first `*/` ends it.
      if (stream.skipTo("*/")) {
        stream.match("*/");
        state.inBlockComment = false;
      } else stream.skipToEnd();
      return "blockComment";
    }
    if (stream.eatSpace()) return null;
    if (stream.match("//")) {
      stream.skipToEnd();
      return "lineComment";
    }
    if (stream.match("/*")) {
      state.inBlockComment = true;
      return "blockComment";
    }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return "string";
    if (stream.match(/^@[A-Za-z0-9_]*/)) return "meta";
    if (stream.match(/^(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?/)) return "number";
    const word = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/) as RegExpMatchArray | null;
    if (word) {
      const w = word[0];
      if (w === "Tensor") return "typeName";
      if (DTYPES.has(w)) return "typeName";
      if (ATOMS.has(w)) return "atom";
      const call = /^\s*\(/.test(stream.string.slice(stream.pos));
      if (KEYWORDS.has(w) && !call) return "keyword";
      if (call) return "function";
      if (/^[A-Z]/.test(w)) return "className";
      return "variableName";
    }
    if (stream.match(/^(?:\*\*|->|==|!=|<=|>=|&&|\|\||[-+*/%<>=!?:])/)) return "operator";
    stream.next();
    return "punctuation";
  },
  languageData: { commentTokens: { line: "//", block: { open: "/*", close: "*/" } } },
  tokenTable: {
    blockComment: t.blockComment,
    lineComment: t.lineComment,
    meta: t.meta,
    typeName: t.typeName,
    atom: t.atom,
    keyword: t.keyword,
    function: t.function(t.variableName),
    className: t.className,
  },
};

export const swLanguage = StreamLanguage.define(parser);

export const swHighlight = syntaxHighlighting(HighlightStyle.define([
  { tag: [t.lineComment, t.blockComment], color: "#7a8699", fontStyle: "italic" },
  { tag: t.string, color: "#a0522d" },
  { tag: t.number, color: "#0b7a75" },
  { tag: t.meta, color: "#8b3fb5", fontWeight: "600" },
  { tag: t.keyword, color: "#1f5fbf", fontWeight: "600" },
  { tag: t.typeName, color: "#b0437a" },
  { tag: t.atom, color: "#0b7a75" },
  { tag: t.function(t.variableName), color: "#c25e00" },
  { tag: t.className, color: "#4b5d8a" },
  { tag: t.operator, color: "#5a6270" },
]));
