// Usage text and usage errors of the `shrew` CLI.

import { parseArgs } from "node:util";
import { joinNames } from "../plain.js";
import { closestName } from "../spelling.js";

export const OPTIONS = {
  graph: { type: "string" },
  dims: { type: "string", multiple: true },
  seed: { type: "string" },
  params: { type: "string" },
  input: { type: "string", multiple: true },
  executor: { type: "string" },
  runs: { type: "string" },
  out: { type: "string" },
  json: { type: "boolean" },
  ir: { type: "boolean" },
  "optimized-ir": { type: "boolean" },
  tape: { type: "boolean" },
  plan: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

type Parsed = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; tokens: true }>>;
export type Values = Parsed["values"];
export type Tokens = Parsed["tokens"];

// Every command compiles (or loads) FILE: --dims, --seed and --params apply to all.
const COMPILE = ["dims", "seed", "params"];

/** The options of each command; any other one is a usage error rather than silently ignored. */
const COMMAND_OPTIONS: Record<string, readonly string[]> = {
  check: COMPILE,
  // --input: a graph typed per run (`input x: ?`) has a tape once it ran on them.
  dump: [...COMPILE, "graph", "input", "tape", "ir", "optimized-ir", "plan", "json"],
  // The JIT's statistics: stats runs the tape (with --executor interp it reported an empty arena).
  stats: [...COMPILE, "graph", "input", "json"],
  info: [...COMPILE, "json"],
  run: [...COMPILE, "graph", "input", "executor", "json", "out"],
  bench: [...COMPILE, "graph", "input", "executor", "runs", "json"],
  profile: [...COMPILE, "graph", "input", "runs", "json"],
  build: [...COMPILE, "out", "json"],
};

/**
 * Each option given to `command` applies to it, and one that takes a single
 * value is given once: parseArgs keeps the last of `--seed 1 --seed 2`.
 */
export function checkCommandOptions(command: string, tokens: Tokens): void {
  const allowed = COMMAND_OPTIONS[command];
  const seen = new Set<string>();
  for (const t of tokens) {
    if (t.kind !== "option" || t.name === "help" || t.name === "version") continue;
    if (!allowed.includes(t.name)) {
      // Which commands take it: `run --runs 5` was most likely meant for bench.
      const takers = Object.keys(COMMAND_OPTIONS).filter((c) => COMMAND_OPTIONS[c].includes(t.name));
      throw new UsageError(`${t.rawName} does not apply to ${command}; it goes with ${joinNames(takers)} ` +
        `(${command}'s options: ${allowed.map((o) => `--${o}`).join(", ")})`);
    }
    const spec: { type: string; multiple?: boolean } = OPTIONS[t.name as keyof typeof OPTIONS];
    if (spec.type === "string" && !spec.multiple && seen.has(t.name)) throw new UsageError(`--${t.name} is given twice`);
    seen.add(t.name);
  }
}

type ValueOption = { [K in keyof typeof OPTIONS]: (typeof OPTIONS)[K]["type"] extends "string" ? K : never }[keyof typeof OPTIONS];

/** A value of each option that takes one, for "--seed needs a value, as in --seed 42". */
const EXAMPLE: Record<ValueOption, string> = {
  graph: "G", dims: "Batch=8", seed: "42", params: "weights.bin", input: "x=random", executor: "interp", runs: "100", out: "DIR",
};

/** True when `arg` alone is one or more known options (`--json`, `--seed=3`, `-h`), not a value such as `-1` or `--`. */
function isOption(arg: string): boolean {
  const { tokens } = parseArgs({ args: [arg], options: OPTIONS, allowPositionals: true, strict: false, tokens: true });
  return tokens.length > 0 && tokens.every((t) => t.kind === "option" && Object.hasOwn(OPTIONS, t.name));
}

/**
 * Why parseArgs (strict) refused `argv`, in one line of our own, and the
 * command if one is there. Its messages were Node's: "Option '--seed
 * <value>' argument missing", a misspelt option told to go after '--' as a
 * positional. The problems are read from the tokens of a non-strict pass, the
 * first one first, as the strict pass stopped there; `fallback` (its message)
 * when none is found. `malformed` is false for a value out of its option's
 * range, which is told in one line as the option's own check tells `--seed x`.
 */
export function commandLineError(argv: string[], fallback: string): { message: string; command: string | undefined; malformed: boolean } {
  const { positionals, tokens } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: false, tokens: true });
  const command = positionals[0];
  const say = (message: string, malformed = true) => ({ message, command, malformed });
  for (const t of tokens) {
    if (t.kind !== "option") continue;
    if (!Object.hasOwn(OPTIONS, t.name)) {
      // --help and --version go with every command.
      const known = command !== undefined && Object.hasOwn(COMMAND_OPTIONS, command)
        ? [...COMMAND_OPTIONS[command], "help", "version"] : Object.keys(OPTIONS);
      const hint = (word: string) => {
        const near = known.includes(word) ? word : closestName(word, known);
        return near === undefined ? "" : `; did you mean '--${near}'?`;
      };
      if (t.rawName.startsWith("--")) return say(`unknown option '${t.rawName}'${hint(t.name)}`);
      // `-seed`: a long option with one dash, which parseArgs reads as the
      // letters -s -e -e -d; the word is what was meant. A lone letter (-x)
      // has nothing to tell it from.
      const arg = argv[t.index].split("=")[0];
      if (arg.length > 2) return say(`unknown option '${arg}'${hint(arg.slice(1))}`);
      return say(`unknown option '${t.rawName}'`);
    }
    const name = t.name as keyof typeof OPTIONS;
    if (OPTIONS[name].type === "boolean") {
      if (t.value !== undefined) return say(`${t.rawName} takes no value, got '${t.value}'`);
      continue;
    }
    if (t.value === undefined) return say(`--${name} needs a value, as in --${name} ${EXAMPLE[name as ValueOption]}`);
    // What strict parseArgs calls ambiguous: a value after a space that starts
    // with '-' (a lone '-' is standard input, a value).
    if (!t.inlineValue && t.value.length > 1 && t.value.startsWith("-")) {
      // '--bogus' too: the value was left out before another option.
      if (t.value.startsWith("--") || isOption(t.value)) {
        return say(`--${name} needs a value, but '${t.value}' after it is an option`);
      }
      // Only a path may start with '-'; a negative seed or count is no value of its option.
      if (name === "params" || name === "out") {
        return say(`--${name} needs a value; to give '${t.value}', write --${name}=${t.value}`);
      }
      // A negative number is a value out of its option's range: said as the option's own check says it.
      const range = name === "seed" ? "a non-negative integer of at most 2^64 - 1 (18446744073709551615)"
        : name === "runs" ? "a positive integer" : undefined;
      if (range !== undefined && /^-\d/.test(t.value)) return say(`--${name} expects ${range}, got '${t.value}'`, false);
      return say(`--${name} needs a value, as in --${name} ${EXAMPLE[name as ValueOption]}, not '${t.value}'`);
    }
  }
  return say(fallback);
}

/** Each command's usage line, as js/README.md lists them. */
const SYNOPSIS: Record<string, string> = {
  check: "shrew check FILE",
  dump: "shrew dump  FILE [--graph G] [--input NAME=SPEC]... [--tape|--ir|--optimized-ir|--plan] [--json]",
  stats: "shrew stats FILE [--graph G] [--input NAME=SPEC]... [--json]",
  info: "shrew info  FILE [--json]",
  run: "shrew run   FILE [--graph G] [--input NAME=SPEC]... [--executor jit|interp] [--json] [--out DIR]",
  bench: "shrew bench FILE [--graph G] [--input NAME=SPEC]... [--runs N] [--executor jit|interp] [--json]",
  profile: "shrew profile FILE [--graph G] [--input NAME=SPEC]... [--runs N] [--json]",
  build: "shrew build FILE.sw [--out FILE.swb] [--json]",
};

/**
 * What follows a malformed command line's error (an unknown option, a
 * missing value or FILE, an unknown command): the usage line of `command`
 * when it is one, else of every command, and where the rest is. The whole
 * help text buried the one line that said what was wrong.
 */
export function usageHint(command: string | undefined): string {
  const lines = command !== undefined && Object.hasOwn(SYNOPSIS, command) ? [SYNOPSIS[command]] : Object.values(SYNOPSIS);
  return `${lines.map((l, i) => `${i === 0 ? "usage: " : "       "}${l}`).join("\n")}\n` +
    "       (every command also takes [--dims K=V,...] [--seed S] [--params FILE])\n" +
    "run 'shrew help' (or --help) for more";
}

/** A bad command line: printed with a hint, exit status 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export const USAGE = `Usage: shrew <command> FILE [options]

FILE is a .sw source or a bundle that \`shrew build\` wrote (.swb); a bundle
runs without compiling, with the dims, seed and parameters it was built with.
FILE, --params FILE or an --input PATH.npy may be -, standard input (one of them).
Files are read up to 28 MiB (a source) and 1 GiB (a bundle, --params): past
that, reading stops with an error. Of a .npy input, the header is read (up to
1 MiB), then the data its shape and dtype need (up to 1 GiB), nothing after.

Commands, with the options each takes besides --dims, --seed and --params (all do):
  check FILE                 compile and print diagnostics, warnings too, on stderr (exit 1
                             on error)
  dump FILE                  print a graph: --tape (default), --ir, --optimized-ir, --plan;
                             --graph, --input (runs it once first: needed for the tape and
                             plan of an input of unknown type, ?), --json
  stats FILE                 a graph's JIT statistics (after a tape run) and the whole
                             program's optimiser counts; --graph, --input, --json
  info FILE                  metadata, seed, graphs, inputs (optional ones marked)/outputs,
                             parameter count and bytes; --json
  run FILE                   run a graph on seeded random or given inputs; --graph, --input,
                             --executor, --json, --out
  bench FILE                 time runs: median, p10, p90 µs per run (outputs reused); --graph,
                             --input, --executor, --runs, --json
  profile FILE               time each tape instruction (its mean over the runs, outliers left
                             out): per operation, then the 20 dearest instructions; --graph,
                             --input, --runs (at most 10000), --json (every instruction)
  build FILE.sw              compile and write a bundle; --out FILE.swb (default: next to
                             FILE), --json
An option the command does not take, or a single-valued one given twice, is a usage error.

Options:
  --graph G                  graph to use (default: the first)
  --dims K=V,...             symbolic dimension values (e.g. Batch=8); a generated input
                             takes a dimension's size from --dims, else from an --input
                             file with that dimension, else 1
  --seed S                   parameter and random-input seed (default: the program's
                             @config seed, else 0; a bundle's: the one it was built with;
                             for a bundle --seed draws the random inputs only)
  --params FILE              parameter values saved by saveParams() instead of the seeded ones
  --input NAME=SPEC          SPEC: PATH.npy | random | randint:LO:HI (repeatable); an
                             optional input without one is left out of the run
  --executor jit|interp      executor for run/bench (default jit)
  --runs N                   timed runs for bench and profile (default 100)
  --out DIR                  run: write each output to DIR/NAME.npy; build: the bundle's path
  --json                     machine-readable output; run: the values of an i64 output
                             (64-bit integers) are exact decimal strings, e.g. ["-9223372036854775807"];
                             float NaN, Infinity, -Infinity are the strings "NaN", "Infinity",
                             "-Infinity" (JSON has no such numbers); -0 is -0
  -h, --help                 this text
  -V, --version              version

Exit status: 0 success; 1 an error in the program, a run or a file (one line
naming it, or the compiler's diagnostics); 2 a usage error.`;
