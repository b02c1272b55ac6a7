// Usage text and usage errors of the `shrew` CLI.

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

Commands:
  check FILE                 compile and print diagnostics (exit 1 on error)
  dump FILE                  print a graph: --tape (default), --ir, --optimized-ir, --plan; --json
  stats FILE                 JIT and optimiser statistics (--json)
  info FILE                  metadata, seed, graphs, inputs (optional ones marked)/outputs,
                             parameter count and bytes
  run FILE                   run a graph on seeded random or given inputs
  bench FILE                 time runs: median, p10, p90 µs per run (outputs reused)
  build FILE.sw              compile and write a bundle (--out FILE.swb; default: next to FILE)

Options:
  --graph G                  graph to use (default: the first)
  --dims K=V,...             symbolic dimension values (e.g. Batch=8); generated inputs
                             take 1 for a dimension left unbound
  --seed S                   parameter and random-input seed (default: the program's
                             @config seed, else 0; a bundle's: the one it was built with)
  --params FILE              parameter values saved by saveParams() instead of the seeded ones
  --input NAME=SPEC          SPEC: PATH.npy | random | randint:LO:HI (repeatable); an
                             optional input without one is left out of the run
  --executor jit|interp      executor for run/bench (default jit)
  --runs N                   timed runs for bench (default 100)
  --out DIR                  run: write each output to DIR/NAME.npy; build: the bundle's path
  --json                     machine-readable output; run: the values of an i64 output
                             (64-bit integers) are exact decimal strings, e.g. ["-9223372036854775807"];
                             float NaN, Infinity, -Infinity are the strings "NaN", "Infinity",
                             "-Infinity" (JSON has no such numbers); -0 is -0
  -h, --help                 this text
  -V, --version              version`;
