// The `shrew` CLI, run as a child process on the examples: every
// subcommand, --json parsed and checked, exit codes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readNpy, writeNpy, Shrew, Tensor } from "../dist/index.js";
import { quantile } from "../dist/cli/quantile.js";
import { formatDuration } from "../dist/cli/format.js";
import { ROOT, EXAMPLES } from "./helpers.mjs";

const CLI = `${ROOT}js/dist/cli/main.js`;
const MLP = `${EXAMPLES}mlp_classifier.sw`;
const shrew = (...args) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

test("check: ok file exits 0, bad file prints FILE:LINE:COL and exits 1", () => {
  const ok = shrew("check", MLP);
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /ok \(1 graph: Classifier\)/);
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const bad = join(dir, "bad.sw");
  writeFileSync(bad, "@graph G {\n    input x: Tensor<[2], f32>;\n    output y: relu(zz);\n}\n");
  const r = shrew("check", bad);
  assert.equal(r.code, 1);
  assert.match(r.err, /bad\.sw:3:\d+: error/);
  // The file's bytes reach the compiler unchanged: after the invalid byte 0xFF columns still count bytes.
  const latin = join(dir, "latin.sw");
  writeFileSync(latin, Buffer.concat([Buffer.from("@graph G {\n    input x: Tensor<[2], f32>;\n    output y: /*"),
    Buffer.from([0xff]), Buffer.from("*/ zz;\n}\n")]));
  const l = shrew("check", latin);
  assert.equal(l.code, 1);
  assert.match(l.err, /latin\.sw:3:21: error\[E040\]: undefined name 'zz'/);
});

test("version, --version and -V print the package's version (version was an unknown command)", () => {
  const { version } = JSON.parse(readFileSync(`${ROOT}js/package.json`, "utf8"));
  for (const args of [["version"], ["--version"], ["-V"]]) {
    const r = shrew(...args);
    assert.deepEqual([r.code, r.out, r.err], [0, `shrew ${version}\n`, ""], args.join(" "));
  }
  assert.match(shrew("versoin").err, /^Error: unknown command 'versoin'; did you mean 'version'\?/);
  assert.match(shrew("version", "x.sw").err, /^Error: version takes no FILE\n/);
});

test("usage errors exit 2; missing file exits 1", () => {
  assert.equal(shrew().code, 2);
  assert.equal(shrew("frobnicate", MLP).code, 2);
  assert.equal(shrew("run", MLP, "--bogus").code, 2);
  assert.equal(shrew("check", "/nonexistent.sw").code, 1);
  assert.equal(shrew("--help").code, 0);
});

// They printed the whole help text (60 lines) after the one that says what is wrong.
test("a malformed command line prints the error, the usage line of its command and where help is", () => {
  const TAIL = "       (every command also takes [--dims K=V,...] [--seed S] [--params FILE])\n" +
    "run 'shrew help' (or --help) for more\n";
  const LINES = {
    check: "shrew check FILE",
    dump: "shrew dump  FILE [--graph G] [--input NAME=SPEC]... [--tape|--ir|--optimized-ir|--plan] [--json]",
    stats: "shrew stats FILE [--graph G] [--input NAME=SPEC]... [--json]",
    info: "shrew info  FILE [--json]",
    run: "shrew run   FILE [--graph G] [--input NAME=SPEC]... [--executor jit|interp] [--json] [--out DIR]",
    bench: "shrew bench FILE [--graph G] [--input NAME=SPEC]... [--runs N] [--executor jit|interp] [--json]",
    profile: "shrew profile FILE [--graph G] [--input NAME=SPEC]... [--runs N] [--json]",
    build: "shrew build FILE.sw [--out FILE.swb] [--json]",
  };
  const ALL = Object.values(LINES).map((l, i) => `${i === 0 ? "usage: " : "       "}${l}\n`).join("");
  for (const [args, error, usage] of [
    [["run", MLP, "--bogus"], "Error: unknown option '--bogus'", `usage: ${LINES.run}\n`],
    [["bench", MLP, "--runs"], "Error: --runs needs a value, as in --runs 100", `usage: ${LINES.bench}\n`],
    [["--bogus", "dump", MLP], "Error: unknown option '--bogus'", `usage: ${LINES.dump}\n`],
    [["build"], /^Error: build takes exactly one FILE \(\.sw source or \.swb bundle\)$/, `usage: ${LINES.build}\n`],
    [["info", MLP, MLP], /^Error: info takes exactly one FILE/, `usage: ${LINES.info}\n`],
    [["frobnicate", MLP], "Error: unknown command 'frobnicate'", ALL],
    [[], /^Error: no command given$/, ALL],
    [["--bogus"], "Error: unknown option '--bogus'", ALL],
    // Our own one-line messages, not Node's (which told a misspelt option to go after '--' as a positional).
    // A misspelt option or command is told the closest one: among the command's options (and --help,
    // --version), else among all.
    [["run", MLP, "--dim", "Batch=3"], "Error: unknown option '--dim'; did you mean '--dims'?", `usage: ${LINES.run}\n`],
    [["info", MLP, "--hepl"], "Error: unknown option '--hepl'; did you mean '--help'?", `usage: ${LINES.info}\n`],
    [["check", MLP, "--jsn"], "Error: unknown option '--jsn'", `usage: ${LINES.check}\n`],
    [["--jsn"], "Error: unknown option '--jsn'; did you mean '--json'?", ALL],
    [["run", MLP, "-x"], "Error: unknown option '-x'", `usage: ${LINES.run}\n`],
    // A long option with one dash (parseArgs reads -seed as -s -e -e -d) is told the long one.
    [["run", MLP, "-seed", "3"], "Error: unknown option '-seed'; did you mean '--seed'?", `usage: ${LINES.run}\n`],
    [["run", MLP, "-grpah=Mlp"], "Error: unknown option '-grpah'; did you mean '--graph'?", `usage: ${LINES.run}\n`],
    [["info", MLP, "-help"], "Error: unknown option '-help'; did you mean '--help'?", `usage: ${LINES.info}\n`],
    [["run", MLP, "-xyz"], "Error: unknown option '-xyz'", `usage: ${LINES.run}\n`],
    [["rn", MLP], "Error: unknown command 'rn'; did you mean 'run'?", ALL],
    [["hepl"], "Error: unknown command 'hepl'; did you mean 'help'?", ALL],
    // A value missing, given to a flag, or starting with '-' after a space (parseArgs' "ambiguous").
    [["run", MLP, "--seed"], "Error: --seed needs a value, as in --seed 42", `usage: ${LINES.run}\n`],
    [["run", MLP, "--json=1"], "Error: --json takes no value, got '1'", `usage: ${LINES.run}\n`],
    [["run", MLP, "--seed", "--json"], "Error: --seed needs a value, but '--json' after it is an option", `usage: ${LINES.run}\n`],
    [["dump", MLP, "--graph", "-h"], "Error: --graph needs a value, but '-h' after it is an option", `usage: ${LINES.dump}\n`],
    [["run", MLP, "--seed", "--bogus"], "Error: --seed needs a value, but '--bogus' after it is an option", `usage: ${LINES.run}\n`],
    // Only a path may start with '-'.
    [["run", MLP, "--params", "-w.bin"], "Error: --params needs a value; to give '-w.bin', write --params=-w.bin", `usage: ${LINES.run}\n`],
    // The first problem is the one told, as parseArgs stops there.
    [["run", MLP, "--bogus", "--seed"], "Error: unknown option '--bogus'", `usage: ${LINES.run}\n`],
    // A help topic that is no command (it printed the whole text).
    [["help", "foo"], "Error: help takes a command name (check, dump, stats, info, run, bench, profile, build, help, version), got 'foo'", ALL],
    [["help", "rn"], "Error: help takes a command name (check, dump, stats, info, run, bench, profile, build, help, version), got 'rn'; did you mean 'run'?", ALL],
    [["help", "versoin"], "Error: help takes a command name (check, dump, stats, info, run, bench, profile, build, help, version), got 'versoin'; did you mean 'version'?", ALL],
    [["help", "run", "bench"], "Error: help takes a command name (check, dump, stats, info, run, bench, profile, build, help, version), got 'run bench'", ALL],
  ]) {
    const r = shrew(...args);
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.out, "");
    const nl = r.err.indexOf("\n");
    if (typeof error === "string") assert.equal(r.err.slice(0, nl), error, args.join(" "));
    else assert.match(r.err.slice(0, nl), error, args.join(" "));
    assert.equal(r.err.slice(nl + 1), usage + TAIL, args.join(" "));
  }
  // The usage lines are those the help text and js/README.md give.
  const readme = readFileSync(`${ROOT}js/README.md`, "utf8");
  for (const line of Object.values(LINES)) assert.ok(readme.includes(`\n${line}\n`), line);
  // Asked for, the whole text, on stdout.
  for (const args of [["--help"], ["help"], ["run", "--help"], ["help", "run"], ["help", "help"], ["help", "version"]]) {
    const h = shrew(...args);
    assert.equal(h.code, 0);
    assert.match(h.out, /^Usage: shrew <command> FILE \[options\]\n[^]*\nCommands, with the options each takes/);
    assert.equal(h.err, "");
  }
});

test("an option given without its value says what one looks like", async () => {
  const { main } = await import("../dist/cli/main.js");
  for (const [command, option, example] of [["run", "graph", "G"], ["run", "dims", "Batch=8"], ["run", "seed", "42"],
    ["run", "params", "weights.bin"], ["run", "input", "x=random"], ["run", "executor", "interp"], ["bench", "runs", "100"], ["run", "out", "DIR"]]) {
    const err = [];
    const code = await main([command, MLP, `--${option}`], (s) => assert.fail(s), (s) => err.push(s));
    assert.equal(code, 2);
    assert.equal(err.join("\n").split("\n")[0], `Error: --${option} needs a value, as in --${option} ${example}`);
  }
});

test("bench's median of an even count is the mean of the two middle runs; p10 and p90 interpolate as bench/ does", async () => {
  // The upper middle was taken: 4 for [1, 2, 4, 10], and the nearest rank for p10 and p90.
  assert.equal(quantile([1, 2, 4, 10], 0.5), 3);
  assert.equal(quantile([1, 3, 5], 0.5), 3);
  assert.equal(quantile([7], 0.5), 7);
  assert.ok(Math.abs(quantile([1, 2, 4, 10], 0.1) - 1.3) < 1e-12);
  assert.ok(Math.abs(quantile([1, 2, 4, 10], 0.9) - 8.2) < 1e-12);
  assert.ok(Number.isNaN(quantile([], 0.5)));
  const bench = await import(`${ROOT}bench/lib/stats.mjs`);
  const samples = Array.from({ length: 37 }, (_, i) => ((i * 7919) % 101) / 3).sort((a, b) => a - b);
  for (const q of [0, 0.1, 0.5, 0.9, 1]) assert.equal(quantile(samples, q), bench.quantile(samples, q), String(q));
});

test("bench's durations are written in the unit that reads best", () => {
  for (const [us, text] of [[0.7, "0.7 µs"], [999.9, "999.9 µs"], [999.96, "1.00 ms"], [2134.5, "2.13 ms"],
    [37173, "37.2 ms"], [359000, "359 ms"], [999400, "999 ms"], [999600, "1.00 s"], [2.5e6, "2.50 s"]]) {
    assert.equal(formatDuration(us), text, String(us));
  }
});

test("run --json: exact shape of the result, deterministic for a seed", () => {
  const r = shrew("run", MLP, "--dims", "Batch=3", "--seed", "9", "--json");
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.deepEqual(Object.keys(j), ["graph", "outputs"]);
  assert.equal(j.graph, "Classifier");
  assert.deepEqual(Object.keys(j.outputs), ["probs", "logits"]);
  assert.deepEqual(j.outputs.probs.dtype, "f32");
  assert.deepEqual(j.outputs.probs.shape, [3, 10]);
  assert.equal(j.outputs.probs.data.length, 30);
  const again = JSON.parse(shrew("run", MLP, "--dims", "Batch=3", "--seed", "9", "--json", "--executor", "interp").out);
  for (let i = 0; i < 30; i++) assert.ok(Math.abs(again.outputs.probs.data[i] - j.outputs.probs.data[i]) < 1e-5);
});

// Seed 181493619's first draw is 1 - 2^-31, which an f32 rounds to 1: random floats are in [-1, 1).
test("random f32 inputs stay below 1 where the draw rounds up to it", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "r.sw");
  writeFileSync(src, "@graph R { input x: Tensor<[1], f32>; output x; }\n");
  const r = shrew("run", src, "--seed", "181493619", "--json");
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.outputs.x.data[0], 1 - 2 ** -24);
});

test("run: text output, --input npy, --out writes .npy files, integer inputs need randint", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const x = join(dir, "x.npy");
  writeFileSync(x, writeNpy(new Tensor("f32", [2, 784])));
  const r = shrew("run", MLP, "--input", `images=${x}`, "--out", dir);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /probs: f32\[2, 10\]/);
  const probs = readNpy(new Uint8Array(readFileSync(join(dir, "probs.npy"))));
  assert.deepEqual([...probs.shape], [2, 10]);
  const gpt = `${EXAMPLES}tiny_gpt.sw`;
  const bad = shrew("run", gpt, "--dims", "Batch=1");
  assert.equal(bad.code, 2);
  assert.match(bad.err, /randint/);
  const ok = shrew("run", gpt, "--dims", "Batch=1", "--input", "tokens=randint:0:96", "--input", "targets=randint:0:96", "--json");
  assert.equal(ok.code, 0, ok.err);
  assert.deepEqual(JSON.parse(ok.out).outputs.logits.shape, [1, 16, 96]);
  const wrong = shrew("run", MLP, "--input", `nope=random`);
  assert.equal(wrong.code, 2);
});

/** The CLI exits with `code` and one error line matching `pattern`: no trace, no hang. */
function expectError(code, pattern, ...args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", timeout: 60_000 });
  assert.equal(r.error, undefined, `${args.join(" ")}: ${r.error}`);  // a hang ends in ETIMEDOUT
  assert.equal(r.status, code, `${args.join(" ")}: ${r.stderr}`);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
}

test("bad --out, --input, --dims and --runs are one-line errors, never a trace or a hang", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  // Node's recursive mkdir spins forever under /proc.
  expectError(1, /cannot create \/proc\/shrew-out \(--out\): ENOENT/, "run", MLP, "--out", "/proc/shrew-out");
  const file = join(dir, "file");
  writeFileSync(file, "");
  expectError(1, /cannot write into .*file \(--out\): not a directory/, "run", MLP, "--out", file);
  expectError(1, /cannot create .*file\/sub \(--out\): ENOTDIR/, "run", MLP, "--out", join(file, "sub"));
  expectError(1, /cannot read .*none\.npy \(--input images\): ENOENT/, "run", MLP, "--input", `images=${join(dir, "none.npy")}`);
  expectError(1, /mlp_classifier\.sw \(--input images\): not a \.npy file/, "run", MLP, "--input", `images=${MLP}`);
  expectError(2, /--input images is given twice/, "run", MLP, "--input", "images=random", "--input", "images=random");
  expectError(2, /--dims gives Batch twice/, "run", MLP, "--dims", "Batch=2,Batch=3");
  for (const bad of ["Batch=2=3", "Batch=", "=4", "Batch= 4", "Batch=0x10", "Batch=1e3"]) {
    expectError(2, /--dims expects NAME=SIZE/, "run", MLP, "--dims", bad);
  }
  expectError(2, /--runs expects a positive integer, got '0'/, "bench", MLP, "--runs", "0");
  expectError(1, /dimension 'Foo' is not used by this program; its dimensions: Batch/, "run", MLP, "--dims", "Foo=3");
  for (const bad of ["", "1e3", "0x10", " 7"]) expectError(2, /--seed expects a non-negative integer/, "run", MLP, "--seed", bad);
  expectError(2, /--out expects a directory, got ''/, "run", MLP, "--out", "");
  // An empty path is a usage error, not an attempt to open '' ("cannot read  (--input images): ENOENT").
  expectError(2, /^Error: --input images= expects PATH\.npy, random or randint:LO:HI after '=', got nothing\n$/, "run", MLP, "--input", "images=");
  expectError(2, /^Error: --params expects a file, got ''\n$/, "run", MLP, "--params", "");
  // Nested --out directories are created.
  const nested = join(dir, "a", "b");
  const ok = shrew("run", MLP, "--out", nested);
  assert.equal(ok.code, 0, ok.err);
  assert.deepEqual([...readNpy(new Uint8Array(readFileSync(join(nested, "probs.npy")))).shape], [1, 10]);
});

test("--params FILE runs with saved parameter values; a bad or missing file is an error", async () => {
  const { Shrew } = await import("../dist/index.js");
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "affine.sw");
  writeFileSync(src, "@graph G {\n    input x: Tensor<[3], f32>;\n    param w: Tensor<[3], f32> { init: \"normal(0, 1)\"; };\n    output y: x + w;\n}\n");
  const donor = (await Shrew.load()).compile(readFileSync(src, "utf8"), { seed: 77 });
  const blob = join(dir, "w.params");
  writeFileSync(blob, donor.saveParams());
  const w = [...donor.getParam("G/w").data];
  donor.dispose();
  const x = join(dir, "x.npy");
  writeFileSync(x, writeNpy(new Tensor("f32", [3], new Float32Array(3))));
  const r = shrew("run", src, "--params", blob, "--input", `x=${x}`, "--json");
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out).outputs.y.data, w);  // y = 0 + w: the saved values, not seed 0's
  const seeded = JSON.parse(shrew("run", src, "--input", `x=${x}`, "--json").out).outputs.y.data;
  assert.notDeepEqual(seeded, w);
  const missing = shrew("run", src, "--params", join(dir, "none.params"));
  assert.equal(missing.code, 1);
  assert.match(missing.err, /cannot read .*none\.params/);
  const other = join(dir, "other.params");
  writeFileSync(other, new Uint8Array([1, 2, 3]));
  const bad = shrew("run", src, "--params", other);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /bad magic/);
  // A blob of another shape names the file too (its message began "parameter 'G/w'", unnamed).
  const wider = join(dir, "wider.sw");
  writeFileSync(wider, readFileSync(src, "utf8").replaceAll("[3]", "[4]"));
  expectError(1, new RegExp(`^Error: ${blob.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(--params\\): parameter blob: parameter 'G/w': expected f32\\[4\\], the blob has f32\\[3\\]\n$`),
              "run", wider, "--params", blob);
});

test("dump: tape, ir, optimized-ir, plan, --json", () => {
  assert.match(shrew("dump", MLP).out, /\S/);
  // [Batch, 784] binds no plan until a run: the empty plan and arena 0 are explained on stderr.
  assert.equal(shrew("dump", MLP).err, "note: graph 'Classifier' has not run, so no memory plan is bound (arena 0): give its input " +
    "sizes (--dims Batch=SIZE) or its inputs (--input) to see the plan of that binding\n");
  assert.match(shrew("dump", MLP, "--dims", "Batch=2").out, /arena_bytes=[1-9]/);
  assert.equal(shrew("dump", MLP, "--input", "images=random", "--dims", "Batch=2").err, "");
  assert.equal(shrew("dump", MLP, "--ir").err, "");
  assert.match(shrew("dump", MLP, "--ir").out, /^graph Classifier/);
  assert.match(shrew("dump", MLP, "--optimized-ir").out, /^graph Classifier/);
  JSON.parse(shrew("dump", MLP, "--plan").out);
  JSON.parse(shrew("dump", MLP, "--ir", "--json").out);
  assert.equal(JSON.parse(shrew("dump", MLP, "--json").out).graph, "Classifier");
  assert.equal(shrew("dump", MLP, "--graph", "Nope").code, 1);
  const calls = shrew("dump", `${EXAMPLES}graph_calls.sw`, "--graph", "Model", "--ir");
  assert.match(calls.out, /^graph Model/);
});

test("stats, info, bench (--json)", () => {
  const s = JSON.parse(shrew("stats", MLP, "--dims", "Batch=2", "--json").out);
  assert.equal(s.graph, "Classifier");
  assert.ok(s.stats.numInstructions > 0);
  assert.ok(s.stats.arenaBytes > 0);
  assert.equal(typeof s.optimizer.opsFused, "number");
  assert.match(shrew("stats", MLP).out, /numInstructions/);
  // The optimiser's counts are the program's, and say so.
  assert.match(shrew("stats", MLP).out, /^optimiser, whole program: OptStats \{ dce: \d+, identity: \d+, const_fold: \d+, cse: \d+, fusion: \d+ \}$/m);
  const info = JSON.parse(shrew("info", MLP, "--json").out);
  assert.equal(info.metadata.model.name, "DigitMLP");
  assert.equal(info.graphs[0].name, "Classifier");
  assert.equal(info.paramCount, 784 * 128 + 128 + 128 * 10 + 10);
  assert.equal(info.paramBytes, info.paramCount * 4);
  assert.match(shrew("info", MLP).out, /DigitMLP/);
  const b = JSON.parse(shrew("bench", MLP, "--runs", "20", "--json").out);
  for (const k of ["medianUs", "p10Us", "p90Us", "tapeUs", "compileMs", "arenaBytes"]) assert.equal(typeof b[k], "number", k);
  assert.ok(b.p10Us <= b.medianUs && b.medianUs <= b.p90Us);
  assert.ok(b.tapeUs > 0, `tapeUs ${b.tapeUs}`);
  assert.match(shrew("bench", MLP, "--runs", "5").out, /tape inside wasm \d+(\.\d+)? (µs|ms) per run \(median of 5 loops of 1;/);
  // One run is said in the singular (it read "1 runs" and "median of 1 loops").
  const once = shrew("bench", MLP, "--runs", "1").out.split("\n");
  assert.equal(once[0], "graph Classifier (jit), 1 run");
  assert.match(once[2], /per run \(median of 1 loop of 1;/);
  const interp = shrew("bench", MLP, "--runs", "5", "--executor", "interp", "--json");
  assert.equal(interp.code, 0, interp.err);
  assert.equal(JSON.parse(interp.out).tapeUs, null);  // the interpreter has no tape
  assert.equal(JSON.parse(interp.out).arenaBytes, null);
});

test("profile: per operation and the dearest instructions; --json has every instruction", () => {
  const text = shrew("profile", MLP, "--dims", "Batch=8", "--runs", "5");
  assert.equal(text.code, 0, text.err);
  const lines = text.out.split("\n");
  assert.match(lines[0], /^graph Classifier, 5 timed runs: a run \d+(\.\d+)? (µs|ms) untimed, its kernels \d+(\.\d+)? (µs|ms) timed \(a clock read, \d+ ns, taken off each\)$/);
  assert.equal(lines[1], "by operation:");
  assert.match(shrew("profile", MLP, "--runs", "1").out, /^graph Classifier, 1 timed run: /);
  assert.match(lines[2], /^  fused_matmul_add\+relu +1x +\d+(\.\d+)? (µs|ms) +\d+\.\d%$/);
  const j = JSON.parse(shrew("profile", MLP, "--dims", "Batch=8", "--runs", "4", "--json").out);
  assert.equal(j.graph, "Classifier");
  assert.equal(j.runs, 4);
  assert.deepEqual(j.instructions.map((i) => i.op), ["fused_matmul_add+relu", "fused_matmul_add", "softmax"]);
  assert.deepEqual(j.instructions[0].shape, [8, 128]);
  // The text lists the same instructions, dearest first, each with its source line.
  const listed = lines.slice(lines.indexOf("by instruction (the tape's index; dearest first):") + 1).filter((l) => l !== "");
  assert.equal(listed.length, 3);
  for (const l of listed) assert.match(l, /^ +\d+ +\d+(\.\d+)? (µs|ms) +\d+\.\d%  \S+ \S+ f32\[8, (128|10)\]  .+  line \d+$/);
  expectError(2, /^Error: --runs for profile is at most 10000, got 10001\n/, "profile", MLP, "--runs", "10001");
  expectError(2, /--executor does not apply to profile; it goes with run, bench/, "profile", MLP, "--executor", "jit");
  expectError(1, /no graph named 'Nope'/, "profile", MLP, "--graph", "Nope");
});

// A graph typed per run (`input x: ?`) is compiled when it first runs: bench
// times its tape after the warm-up (benchRun said "has not run yet"), and on
// the interpreter it has no JIT statistics to ask for ("run it, then ask").
test("bench on a graph with an input of unknown type, on both executors", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "any.sw"), x = join(dir, "x.npy");
  writeFileSync(src, "@graph G {\n    input x: ?;\n    output y: relu(x) * 2;\n}\n");
  writeFileSync(x, writeNpy(new Tensor("f32", [4], [-1, 2, 3, -4])));
  const jit = shrew("bench", src, "--input", `x=${x}`, "--runs", "3", "--json");
  assert.equal(jit.code, 0, jit.err);
  assert.ok(JSON.parse(jit.out).tapeUs > 0, jit.out);
  assert.ok(JSON.parse(jit.out).arenaBytes >= 0, jit.out);
  const interp = shrew("bench", src, "--input", `x=${x}`, "--runs", "3", "--executor", "interp", "--json");
  assert.equal(interp.code, 0, interp.err);
  assert.equal(JSON.parse(interp.out).tapeUs, null);
  assert.deepEqual(JSON.parse(shrew("run", src, "--input", `x=${x}`, "--json").out).outputs.y.data, [0, 4, 6, 0]);
});

test("run: an input or output named __proto__ is fed, printed in --json and written by --out", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "proto.sw");
  writeFileSync(src, "@graph G {\n    input __proto__: Tensor<[2], f32>;\n    output tripled: __proto__ * 3.0;\n    output __proto__2: __proto__;\n}\n@graph H {\n    input x: Tensor<[2], f32>;\n    output __proto__: x * 3.0;\n    output y: x;\n}\n");
  const x = join(dir, "x.npy");
  writeFileSync(x, writeNpy(new Tensor("f32", [2], [1, 2])));
  const fed = shrew("run", src, "--input", `__proto__=${x}`, "--json");
  assert.equal(fed.code, 0, fed.err);
  assert.deepEqual(JSON.parse(fed.out).outputs.tripled.data, [3, 6]);
  const r = shrew("run", src, "--graph", "H", "--input", `x=${x}`, "--json", "--out", join(dir, "out"));
  assert.equal(r.code, 0, r.err);
  const outputs = JSON.parse(r.out).outputs;
  assert.deepEqual(Object.keys(outputs), ["__proto__", "y"]);
  assert.deepEqual(outputs.__proto__.data, [3, 6]);
  assert.deepEqual([...readNpy(new Uint8Array(readFileSync(join(dir, "out", "__proto__.npy")))).data], [3, 6]);
});

test("run and bench: an input too large for a typed array is one line naming the input and its size", () => {
  for (const cmd of ["run", "bench"]) {
    expectError(1, /^Error: input 'images' of graph 'Classifier' is 313599999996864 bytes \(f32\[99999999999, 784\]\), over the limit of 1073741824 bytes\n$/,
      cmd, MLP, "--dims", "Batch=99999999999");
  }
  // Over the runtime's 1 GiB but within what JS allocates: refused before 6 GB were allocated and filled
  // (45 s, then "Invalid typed array length: 6272000000", the input unnamed).
  const started = Date.now();
  expectError(1, /^Error: input 'images' of graph 'Classifier' is 6272000000 bytes \(f32\[2000000, 784\]\), over the limit of 1073741824 bytes\n$/,
    "run", MLP, "--dims", "Batch=2000000");
  assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
});

const INTS = "@graph G {\n    input u: Tensor<[4], u8>;\n    input m: Tensor<[4], bool>;\n    input k: Tensor<[4], i32>;\n" +
  "    output a: u;\n    output b: !m;\n    output c: k + k;\n}\n";

test("--input randint:LO:HI: malformed, or drawing values the input's dtype cannot hold, is a usage error", () => {
  const ints = join(mkdtempSync(join(tmpdir(), "shrew-cli-")), "ints.sw");
  writeFileSync(ints, INTS);
  const full = { u: "randint:0:256", m: "randint:0:2", k: "randint:-2147483648:2147483648" };  // each dtype's whole range
  const inputs = (name, spec) => Object.entries({ ...full, [name]: spec }).flatMap(([n, v]) => ["--input", `${n}=${v}`]);
  const ok = shrew("run", ints, ...inputs("u", full.u), "--json");
  assert.equal(ok.code, 0, ok.err);
  assert.ok(JSON.parse(ok.out).outputs.b.data.every((v) => v === 0 || v === 1));
  // HI is exclusive; values outside the dtype used to wrap (u8 300 → 44, bool 7 → true).
  for (const [name, spec, dtype] of [["u", "randint:250:300", "u8"], ["m", "randint:0:7", "bool"],
    ["k", "randint:0:2147483649", "i32"], ["k", "randint:-2147483649:0", "i32"]]) {
    expectError(2, new RegExp(`--input ${name}=${spec} draws values outside ${dtype}`), "run", ints, ...inputs(name, spec));
  }
  for (const spec of ["randint::5", "randint:0:5:9", "randint:1:", "randint:a:b"]) {
    expectError(2, /needs integers with LO < HI/, "run", ints, "--input", `k=${spec}`);
  }
  // bench writes every output (u8, bool, i32) into the warm-up's arrays, on both executors.
  for (const executor of ["jit", "interp"]) {
    const b = shrew("bench", ints, ...inputs("u", full.u), "--runs", "3", "--executor", executor, "--json");
    assert.equal(b.code, 0, b.err);
    assert.equal(JSON.parse(b.out).runs, 3);
  }
});

test("stats reports bad options and inputs like run (it used to drop them and print the stats of no run)", () => {
  const ints = join(mkdtempSync(join(tmpdir(), "shrew-cli-")), "ints.sw");
  writeFileSync(ints, INTS);
  expectError(1, /cannot read \/nonexistent\.npy \(--input images\)/, "stats", MLP, "--input", "images=/nonexistent.npy");
  expectError(2, /graph 'Classifier' has no input 'zz'/, "stats", MLP, "--input", "zz=random");
  expectError(2, /--executor expects jit or interp, got 'foo'\n/, "bench", MLP, "--executor", "foo");
  // Misspelt, they are told the closest name.
  expectError(2, /^Error: --executor expects jit or interp, got 'jti'; did you mean 'jit'\?\n$/, "bench", MLP, "--executor", "jti");
  expectError(2, /^Error: graph 'Classifier' has no input 'image'; did you mean 'images'\? its inputs are: images\n$/,
    "stats", MLP, "--input", "image=random");
  expectError(1, /^Error: no graph named 'Clasifier'; did you mean 'Classifier'\? graphs: Classifier\n$/, "run", MLP, "--graph", "Clasifier");
  expectError(2, /--executor does not apply to stats/, "stats", MLP, "--executor", "interp");
  expectError(2, /needs integers with LO < HI/, "stats", ints, "--input", "k=randint:5:1");
  // Integer inputs without --input: no run, stats all the same.
  const plain = shrew("stats", ints, "--json");
  assert.equal(plain.code, 0, plain.err);
  assert.ok(JSON.parse(plain.out).stats.numInstructions > 0);
});

test("run: a graph with an input of unknown type (input x: ?) runs on the .npy it is given, on both executors", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "dyn.sw");
  writeFileSync(src, "@graph B { input x: ?; output y: relu(x) * 2; }\n");
  const x = join(dir, "x.npy");
  writeFileSync(x, writeNpy(new Tensor("f64", [2, 2], new Float64Array([-3, 4, 0.25, -0.5]))));
  for (const executor of ["jit", "interp"]) {
    const r = shrew("run", src, "--input", `x=${x}`, "--executor", executor, "--json");
    assert.equal(r.code, 0, r.err);
    const y = JSON.parse(r.out).outputs.y;
    assert.equal(y.dtype, "f64");
    assert.deepEqual(y.shape, [2, 2]);
    assert.deepEqual(y.data, [0, 8, 0.5, 0]);
  }
  // Without values there is nothing to take its type from: a usage error.
  const none = shrew("run", src);
  assert.equal(none.code, 2);
  assert.match(none.err, /input 'x' has an unknown type \(\?\): give its values with --input x=PATH\.npy/);
});

// Its tape and plan exist once it ran: dump said "run it, then ask again",
// but took no --input to run it with.
test("dump: a graph with an input of unknown type shows its tape and plan after running on --input", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "dyn.sw"), x = join(dir, "x.npy");
  writeFileSync(src, "@graph B { input x: ?; output y: relu(x) * 2; }\n");
  writeFileSync(x, writeNpy(new Tensor("f32", [2, 3])));
  const tape = shrew("dump", src, "--input", `x=${x}`);
  assert.equal(tape.code, 0, tape.err);
  assert.match(tape.out, /^jit B\n/);
  assert.match(tape.out, /arena_bytes=[1-9]/);
  const plan = shrew("dump", src, "--plan", "--input", `x=${x}`, "--json");
  assert.equal(plan.code, 0, plan.err);
  assert.equal(JSON.parse(plan.out).bound, true);
  // Without values: the same usage error as run's, whose advice dump now takes.
  const none = shrew("dump", src);
  assert.equal(none.code, 2);
  assert.match(none.err, /input 'x' has an unknown type \(\?\): give its values with --input x=PATH\.npy/);
  // The IR needs no run.
  assert.equal(shrew("dump", src, "--ir").code, 0);
  // A graph with typed inputs of sizes to bind that calls B is compiled per
  // input signature too: dump runs it on random inputs, as stats does.
  const caller = join(dir, "caller.sw");
  writeFileSync(caller, "@graph Top { input t: Tensor<[N, 3], f32>; output o: B(t) + 1; }\n" +
    "@graph B { input x: ?; output y: relu(x) * 2; }\n");
  const top = shrew("dump", caller);
  assert.equal(top.code, 0, top.err);
  assert.match(top.out, /^jit Top\n/);
  assert.match(top.out, /call\[B\]/);
  assert.match(top.out, /arena_bytes=[1-9]/);
  // A symbolic graph is planned for the --input it is given.
  writeFileSync(x, writeNpy(new Tensor("f32", [5, 784])));
  const mlp = shrew("dump", MLP, "--plan", "--json", "--input", `images=${x}`);
  assert.equal(mlp.code, 0, mlp.err);
  assert.equal(JSON.parse(mlp.out).buffers.find((b) => b.kind === "input").size, 5 * 784 * 4);
});

// OPS.md §5: without a host seed the program's @config seed initialises the
// parameters. The CLI used to pass seed 0 whenever --seed was absent.
const SEEDED = "@config { seed: 7; }\n@graph G {\n    input x: Tensor<[2], f32>;\n" +
  "    param w: Tensor<[2], f32> { init: \"normal(0, 1)\"; };\n    output y: w + 0;\n}\n";

test("without --seed the program's @config seed is used by run, info and build; --seed overrides it", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "seeded.sw");
  writeFileSync(src, SEEDED);
  const y = (...args) => {
    const r = shrew("run", src, "--json", ...args);
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out).outputs.y.data;
  };
  const plain = y();
  assert.deepEqual(plain, y("--seed", "7"));
  assert.notDeepEqual(plain, y("--seed", "0"));
  const info = shrew("info", src, "--json");
  assert.equal(info.code, 0, info.err);
  assert.equal(JSON.parse(info.out).seed, 7);
  assert.match(shrew("info", src).out, /^ {2}seed: 7$/m);
  assert.equal(JSON.parse(shrew("info", src, "--seed", "3", "--json").out).seed, 3);
  // Missing parents of build's --out are created, as run's --out DIR's are (it failed with ENOENT).
  const swb = join(dir, "nested", "deeper", "seeded.swb");
  const b = shrew("build", src, "--out", swb, "--json");
  assert.equal(b.code, 0, b.err);
  assert.equal(JSON.parse(b.out).seed, 7);
  assert.equal(JSON.parse(shrew("info", swb, "--json").out).seed, 7);
  const fromBundle = shrew("run", swb, "--json");
  assert.equal(fromBundle.code, 0, fromBundle.err);
  assert.deepEqual(JSON.parse(fromBundle.out).outputs.y.data, plain);
});

// --seed took at most 2^53 - 1, and a seed read back past that (@config's
// seed -1 is 2^64 - 1) printed rounded: 18446744073709552000.
test("--seed takes any u64, exactly: the same parameters and random inputs as @config's seed of that value; info and build report it exactly", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  // y = x + w: the seed draws both the parameter and the random input.
  const body = "@graph G {\n    input x: Tensor<[4], f32>;\n    param w: Tensor<[4], f32> { init: \"normal(0, 1)\"; };\n    output y: x + w;\n}\n";
  const src = join(dir, "plain.sw"), minusOne = join(dir, "minus-one.sw"), past = join(dir, "past.sw");
  writeFileSync(src, body);
  writeFileSync(minusOne, `@config { seed: -1; }\n${body}`);
  writeFileSync(past, `@config { seed: 9007199254740993; }\n${body}`);
  const y = (file, ...args) => {
    const r = shrew("run", file, "--json", ...args);
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out).outputs.y.data;
  };
  const MAX = "18446744073709551615";
  assert.deepEqual(y(src, "--seed", MAX), y(minusOne));
  assert.notDeepEqual(y(src, "--seed", MAX), y(src, "--seed", "18446744073709551614"));
  assert.deepEqual(y(src, "--seed", "9007199254740993"), y(past));
  assert.notDeepEqual(y(src, "--seed", "9007199254740993"), y(src, "--seed", "9007199254740992"));
  // Reported exactly: text, and in --json a decimal string past 2^53 - 1 (JSON readers round such numbers).
  assert.match(shrew("info", minusOne).out, new RegExp(`^ {2}seed: ${MAX}$`, "m"));
  assert.equal(JSON.parse(shrew("info", minusOne, "--json").out).seed, MAX);
  assert.equal(JSON.parse(shrew("info", src, "--seed", "9007199254740993", "--json").out).seed, "9007199254740993");
  assert.equal(JSON.parse(shrew("info", src, "--seed", "9007199254740991", "--json").out).seed, 9007199254740991);
  const swb = join(dir, "minus-one.swb");
  const b = shrew("build", minusOne, "--out", swb, "--json");
  assert.equal(b.code, 0, b.err);
  // A bundle's IR is the optimised one: --ir is told which flag shows it.
  expectError(2, /^Error: .*minus-one\.swb is a bundle, which holds the optimised IR only: dump it with --optimized-ir\n$/, "dump", swb, "--ir");
  assert.equal(shrew("dump", swb, "--optimized-ir").code, 0);
  assert.equal(JSON.parse(b.out).seed, MAX);
  assert.equal(JSON.parse(shrew("info", swb, "--json").out).seed, MAX);
  assert.deepEqual(y(swb), y(minusOne));
  expectError(2, /^Error: --seed expects a non-negative integer of at most 2\^64 - 1 \(18446744073709551615\), got '18446744073709551616'\n$/,
    "run", src, "--seed", "18446744073709551616");
  expectError(2, /^Error: --seed expects a non-negative integer of at most 2\^64 - 1 .*got '-1'\n$/, "run", src, "--seed=-1");
});

test("run prints 64-bit integers exactly: text, and --json as decimal strings", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "i64.sw");
  writeFileSync(src, "@graph G {\n    input x: Tensor<[3], i64>;\n    output y: x + 0;\n}\n");
  const x = join(dir, "x.npy");
  const values = [2n ** 53n + 1n, -(2n ** 63n) + 1n, 5n];
  writeFileSync(x, writeNpy(new Tensor("i64", [3], new BigInt64Array(values))));
  for (const executor of ["jit", "interp"]) {
    const t = shrew("run", src, "--input", `x=${x}`, "--executor", executor);
    assert.equal(t.code, 0, t.err);
    assert.match(t.out, /y: i64\[3\] = \[9007199254740993, -9223372036854775807, 5\]/);
    const j = shrew("run", src, "--input", `x=${x}`, "--executor", executor, "--json");
    assert.equal(j.code, 0, j.err);
    const y = JSON.parse(j.out).outputs.y;
    assert.equal(y.dtype, "i64");
    assert.deepEqual(y.data, values.map(String));
  }
});

test("info: @config integers past 2^53 stay exact, NaN and infinities are strings in JSON, -0 is -0", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "config.sw");
  writeFileSync(src, "@config { big: 9007199254740993; small: -5; inf: 1e999; ninf: -1e999; nan: 0.0 / 0.0; nz: -0.0; }\n" +
    "@graph G { input x: Tensor<[2], f32>; output x; }\n");
  const want = { big: "9007199254740993", inf: "Infinity", nan: "NaN", ninf: "-Infinity", nz: -0, small: -5 };
  const j = shrew("info", src, "--json");
  assert.equal(j.code, 0, j.err);
  assert.deepEqual(JSON.parse(j.out).metadata.config, want);  // deepEqual tells -0 from 0 (it was written 0)
  assert.match(j.out, /"nz":-0[,}]/);
  const t = shrew("info", src);
  assert.equal(t.code, 0, t.err);
  assert.deepEqual(JSON.parse(t.out.match(/^ {2}config: (.*)$/m)[1]), want);
});

test("info marks optional inputs", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "opt.sw");
  writeFileSync(src, "@graph G {\n    input x: Tensor<[2], f32>;\n    input m: Tensor<[2], f32>?;\n    output y: x + 0;\n}\n");
  const r = shrew("info", src);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^ {2}input {2}x: Tensor<\[2\], f32>$/m);
  assert.match(r.out, /^ {2}input {2}m: Tensor<\[2\], f32> \(optional\)$/m);
  const j = JSON.parse(shrew("info", src, "--json").out);
  assert.deepEqual(j.graphs[0].inputs.map((i) => [i.name, i.optional]), [["x", false], ["m", true]]);
});

test("--dims accepts a name used only in a graph's -> return type", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "ret.sw");
  writeFileSync(src, "@graph G(x: Tensor<[N], f32>) -> Tensor<[M], f32> {\n    output y: relu(x);\n}\n");
  const r = shrew("run", src, "--dims", "N=2,M=2");
  assert.equal(r.code, 0, r.err);
});

test("run: a failure at a place in the source shows it with the source line and a caret, as a diagnostic, from a bundle too", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  // Multi-byte text before the span: the caret counts characters, the span UTF-8 bytes.
  const file = join(dir, "gather.sw");
  writeFileSync(file, "@graph G {\n  input ids: Tensor<[3], i64>;\n  param table: Tensor<[2, 4], f32>;\n" +
    "  /* é */ output e: embedding(ids, table);\n}\n");
  const r = shrew("run", file, "--input", "ids=randint:5:9");
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /embedding index \d out of range for a table of 2 rows/);
  const excerpt = r.err.slice(r.err.indexOf("  --> "));
  const before = "  /* é */ ", statement = "output e: embedding(ids, table);";
  assert.equal(excerpt, `  --> ${file}:4:${Buffer.byteLength(before) + 1}\n  ${before}${statement}\n` +
    `  ${" ".repeat(before.length)}^${"~".repeat(statement.length - 1)}\n`);
  // A bundle carries the source it was built from: the same excerpt, under
  // that file's name (the bundle's own bytes are no text to quote), even
  // once the .sw file is gone. It showed the message alone.
  const bundle = join(dir, "gather.swb");
  assert.equal(shrew("build", file, "--out", bundle).code, 0);
  unlinkSync(file);
  const b = shrew("run", bundle, "--input", "ids=randint:5:9");
  assert.equal(b.code, 1);
  assert.equal(b.err, r.err);
  assert.equal(shrew("bench", bundle, "--input", "ids=randint:5:9").err, r.err);
});

test("run: the caret stays under the span past control characters, and a long line shows a window around it", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const head = "@graph G {\n  input ids: Tensor<[3], i64>;\n  param table: Tensor<[2, 4], f32>;\n";
  const statement = "output e: embedding(ids, table);";
  // Three ESC bytes before the span: shown as spaces (escaped, each took
  // four characters and the caret landed under them).
  const ctrl = join(dir, "ctrl.sw");
  writeFileSync(ctrl, `${head}  /*\x1b\x1b\x1b*/ ${statement}\n}\n`);
  const r = shrew("run", ctrl, "--input", "ids=randint:5:9");
  assert.equal(r.code, 1, r.err);
  assert.equal(r.err.slice(r.err.indexOf("  --> ")),
    `  --> ${ctrl}:4:11\n    /*   */ ${statement}\n  ${" ".repeat(10)}^${"~".repeat(statement.length - 1)}\n`);
  // Wide characters take two cells, a combining mark none, and a zero-width space is shown as
  // a space (the caret counted code points: 5 columns left of the span after あああ😀😀, and
  // the zero-width spaces were printed as they are, counted one column each).
  for (const [comment, cells] of [["あああ😀😀", 10], ["e\u0301e\u0301", 2], ["\u200b\u200b", 2]]) {
    const wide = join(dir, "wide.sw");
    writeFileSync(wide, `${head}  /*${comment}*/ ${statement}\n}\n`);
    const w = shrew("run", wide, "--input", "ids=randint:5:9");
    assert.equal(w.code, 1, w.err);
    const [, text, marks] = w.err.slice(w.err.indexOf("  --> ")).split("\n");
    assert.equal(marks, `${" ".repeat(2 + 4 + cells + 3)}^${"~".repeat(statement.length - 1)}`, `${comment}\n${text}\n${marks}`);
    if (comment.startsWith("\u200b")) assert.equal(text, `    /*  */ ${statement}`);
  }
  // A line of 1,500 bytes: 76 characters around the span, not its cut-off start and end.
  const long = join(dir, "long.sw");
  const before = `  /*${"c".repeat(1200)}*/ `;
  writeFileSync(long, `${head}${before}${statement} /*${"d".repeat(300)}*/\n}\n`);
  const l = shrew("run", long, "--input", "ids=randint:5:9");
  assert.equal(l.code, 1, l.err);
  const [where, text, marks] = l.err.slice(l.err.indexOf("  --> ")).split("\n");
  assert.equal(where, `  --> ${long}:4:${before.length + 1}`);
  assert.ok(text.startsWith("  …") && text.endsWith("…") && text.includes(statement), text);
  assert.equal(marks.indexOf("^"), text.indexOf(statement), `${text}\n${marks}`);
  assert.equal(marks.trimEnd().length - marks.indexOf("^"), statement.length);
});

/** A .npy file with this header dict (padded as numpy pads it) and these data bytes. */
function npyBytes(header, data = new Uint8Array(0)) {
  const len = Math.ceil((10 + header.length + 1) / 64) * 64 - 10;
  const h = Buffer.from(header.padEnd(len - 1, " ") + "\n", "latin1");
  const prefix = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, len & 0xff, len >> 8]);
  return Buffer.concat([prefix, h, Buffer.from(data)]);
}

test("a .npy whose shape has more than 2^53 - 1 elements is one line naming the file and the option", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const huge = join(dir, "huge.npy");
  writeFileSync(huge, npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000, 100000000000), }", new Uint8Array(48)));
  for (const cmd of ["run", "stats", "bench"]) {
    expectError(1, /^Error: .*huge\.npy \(--input images\): shape \[100000000000, 100000000000\] has too many elements\n$/,
      cmd, MLP, "--input", `images=${huge}`);
  }
});

test("an optional input without --input is left out: run, stats and bench work unless the graph reads it", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  // Neither optional input could be generated: an i64 needs randint, a `?` type a .npy.
  const unread = join(dir, "unread.sw");
  writeFileSync(unread, "@graph G {\n    input mask: Tensor<[2], i64>?;\n    input extra: ? ?;\n    input z: Tensor<[2], f32>;\n    output y: z * 2.0;\n}\n");
  const z = join(dir, "z.npy");
  writeFileSync(z, writeNpy(new Tensor("f32", [2], [1, -2])));
  const r = shrew("run", unread, "--input", `z=${z}`, "--json");
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out).outputs.y.data, [2, -4]);
  const s = shrew("stats", unread, "--json");
  assert.equal(s.code, 0, s.err);
  assert.ok(JSON.parse(s.out).stats.arenaBytes > 0, "stats ran the graph");
  // (bench on a graph with an input of unknown type fails apart from this: benchRun needs a fixed tape.)
  const fixed = join(dir, "fixed.sw");
  writeFileSync(fixed, "@graph G {\n    input mask: Tensor<[2], i64>?;\n    input z: Tensor<[2], f32>;\n    output y: z * 2.0;\n}\n");
  const b = shrew("bench", fixed, "--runs", "2", "--json");
  assert.equal(b.code, 0, b.err);
  assert.equal(JSON.parse(b.out).runs, 2);
  // Given, it is fed (here to a graph that reads it); left out, the run names it.
  const read = join(dir, "read.sw");
  writeFileSync(read, "@graph G {\n    input x: Tensor<[2], f32>;\n    input m: Tensor<[2], f32>?;\n    output y: x + m;\n}\n");
  const m = join(dir, "m.npy");
  writeFileSync(m, writeNpy(new Tensor("f32", [2], [10, 20])));
  const fed = shrew("run", read, "--input", `x=${z}`, "--input", `m=${m}`, "--json");
  assert.equal(fed.code, 0, fed.err);
  assert.deepEqual(JSON.parse(fed.out).outputs.y.data, [11, 18]);
  // With the source line of the node that reads it.
  expectError(1, /^Error: optional input 'm' of graph 'G' was not supplied but node 'y' \(add\) reads it \(expected Tensor<\[2\], f32>\)\n  --> .*read\.sw:4:5\n      output y: x \+ m;\n/, "run", read, "--input", `x=${z}`);
});

test("a failed write to stdout is one line on stderr, exit 1; a reader that stops early (EPIPE) is not an error", () => {
  const full = openSync("/dev/full", "w");
  try {
    for (const args of [["run", MLP, "--json"], ["dump", `${EXAMPLES}tiny_gpt.sw`, "--dims", "Batch=1"], ["--help"]]) {
      const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", stdio: ["ignore", full, "pipe"] });
      assert.equal(r.status, 1, `${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stderr, "Error: cannot write to stdout: ENOSPC: no space left on device, write\n");
    }
    // An error that printed nothing on stdout is that error alone.
    const missing = spawnSync(process.execPath, [CLI, "check", "/nonexistent.sw"], { encoding: "utf8", stdio: ["ignore", full, "pipe"] });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^Error: cannot read \/nonexistent\.sw: ENOENT[^\n]*\n$/);
  } finally {
    closeSync(full);
  }
  // 7 MB of --json through `head -c 10`: the CLI's writes after head exits fail with EPIPE.
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "big.sw");
  writeFileSync(src, "@graph G {\n    input x: Tensor<[N], f32>;\n    output y: x * 2.0;\n}\n");
  const r = spawnSync("bash", ["-c", '"$0" "$1" run "$2" --dims N=400000 --json | head -c 10; exit "${PIPESTATUS[0]}"',
    process.execPath, CLI, src], { encoding: "utf8" });
  assert.equal(r.stdout, '{"graph":"');
  assert.equal(r.stderr, "");
  assert.equal(r.status, 0);
});

test("run: -0 keeps its sign; --json tells NaN, Infinity and -Infinity apart (as strings) and writes -0", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "special.sw");
  writeFileSync(src, "@graph G {\n    input x: Tensor<[4], f32>;\n    output y: x * -0.0;\n    output z: x / 0.0;\n}\n");
  const x = join(dir, "x.npy");
  writeFileSync(x, writeNpy(new Tensor("f32", [4], [1, -2, 0, NaN])));
  for (const executor of ["jit", "interp"]) {
    const t = shrew("run", src, "--input", `x=${x}`, "--executor", executor);
    assert.equal(t.code, 0, t.err);
    assert.match(t.out, /^ {2}y: f32\[4\] = \[-0\.0, 0\.0, -0\.0, NaN\]$/m);
    assert.match(t.out, /^ {2}z: f32\[4\] = \[Infinity, -Infinity, NaN, NaN\]$/m);
    const j = shrew("run", src, "--input", `x=${x}`, "--executor", executor, "--json");
    assert.equal(j.code, 0, j.err);
    assert.match(j.out, /"data":\[-0,0,-0,"NaN"\]/);
    const { y, z } = JSON.parse(j.out).outputs;
    assert.deepEqual(y.data.map((v) => Object.is(v, -0) ? "-0" : v), ["-0", 0, "-0", "NaN"]);
    assert.deepEqual(z.data, ["Infinity", "-Infinity", "NaN", "NaN"]);
    assert.deepEqual(y.shape, [4]);
  }
});

test("a program without graphs: check and info report it (exit 0), build writes it, graph commands say they need one", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "meta.sw");
  writeFileSync(src, '@model { name: "only metadata"; version: "1"; }\n');
  const c = shrew("check", src);
  assert.equal(c.code, 0, c.err);
  assert.equal(c.out, `${src}: ok (no graphs)\n`);
  const i = shrew("info", src);
  assert.equal(i.code, 0, i.err);
  assert.equal(i.out, `${src}: only metadata v1\n  seed: 0\nno graphs\nparameters: 0 values, 0 B\n`);
  const j = JSON.parse(shrew("info", src, "--json").out);
  assert.deepEqual([j.metadata.model, j.graphs], [{ name: "only metadata", version: "1" }, []]);
  const swb = join(dir, "meta.swb");
  const b = shrew("build", src, "--out", swb);
  assert.equal(b.code, 0, b.err);
  assert.match(b.out, /\(no graphs; parameters 0 B\)/);
  assert.equal(shrew("check", swb).code, 0);
  for (const cmd of ["run", "dump", "stats", "bench"]) {
    expectError(1, new RegExp(`^Error: .*meta\\.sw has no graphs: ${cmd} needs one\\n$`), cmd, src);
  }
  // An empty list is said to be empty (it was "graphs: " and "its inputs are: ").
  expectError(1, /^Error: no graph named 'X'; graphs: \(none\)\n$/, "run", src, "--graph", "X");
  const noInputs = join(dir, "noin.sw");
  writeFileSync(noInputs, "@graph G {\n  output y: 1.0;\n}\n");
  expectError(2, /^Error: graph 'G' has no input 'a'; its inputs are: \(none\)\n$/, "run", noInputs, "--input", "a=random");
});

test("options: repeated single values, options a command does not take, bad --runs are usage errors; stats checks inputs as run", () => {
  expectError(2, /^Error: --runs expects a positive integer, got 'abc'\n$/, "bench", MLP, "--runs", "abc");
  // A negative value reads as any other out of range (it was followed by the usage line, which parseArgs' own
  // check of a value starting with '-' brought), whichever problem follows it.
  expectError(2, /^Error: --runs expects a positive integer, got '-5'\n$/, "bench", MLP, "--runs", "-5");
  const seedRange = "--seed expects a non-negative integer of at most 2\\^64 - 1 \\(18446744073709551615\\)";
  for (const v of ["x", "-1"]) expectError(2, new RegExp(`^Error: ${seedRange}, got '${v}'\n$`), "run", MLP, "--seed", v);
  expectError(2, new RegExp(`^Error: ${seedRange}, got '-1'\n$`), "run", MLP, "--seed", "-1", "--bogus");
  // An empty --dims entry is a size left out, as `Batch=` is (they were skipped).
  for (const v of ["Batch=2,", ",Batch=2", "Batch=2,,", ""]) {
    expectError(2, new RegExp(`^Error: --dims expects NAME=SIZE\\[,NAME=SIZE…\\], got an empty entry in '${v}'\n$`), "run", MLP, "--dims", v);
  }
  expectError(2, /^Error: --runs expects a positive integer, got '1.5'\n$/, "profile", MLP, "--runs", "1.5");
  for (const [opt, a, b] of [["seed", "1", "2"], ["graph", "Classifier", "Classifier"], ["out", "a", "b"], ["executor", "jit", "interp"]]) {
    expectError(2, new RegExp(`^Error: --${opt} is given twice\\n$`), "run", MLP, `--${opt}`, a, `--${opt}`, b);
  }
  expectError(2, /^Error: --runs is given twice\n$/, "bench", MLP, "--runs", "3", "--runs", "4");
  // The message names the commands that do take the option, then this command's own.
  expectError(2, /^Error: --out does not apply to check; it goes with run, build \(check's options: --dims, --seed, --params\)\n$/,
    "check", MLP, "--out", "/tmp/x", "--executor", "interp");
  expectError(2, /^Error: --executor does not apply to check; it goes with run, bench /, "check", MLP, "--executor", "interp");
  expectError(2, /^Error: --runs does not apply to run; it goes with bench, profile \(run's options: /, "run", MLP, "--runs", "abc");
  expectError(2, /^Error: --runs does not apply to stats; it goes with bench, profile /, "stats", MLP, "--runs", "5");
  expectError(2, /^Error: --graph does not apply to info; it goes with dump, stats, run, bench, profile /, "info", MLP, "--graph", "Classifier");
  expectError(2, /^Error: --tape does not apply to run; it goes with dump /, "run", MLP, "--tape");
  expectError(2, /^Error: --input does not apply to build; it goes with dump, stats, run, bench, profile /, "build", MLP, "--input", "images=random");
  // The options each command does take still work (dims, seed and params apply to every command).
  assert.equal(shrew("dump", MLP, "--dims", "Batch=2", "--seed", "3", "--plan", "--json").code, 0);
  assert.equal(shrew("check", MLP, "--dims", "Batch=2", "--seed", "3").code, 0);
  // An explicit `random` for an integer input is wrong for stats as for run; left out, stats does without a run.
  const gpt = `${EXAMPLES}tiny_gpt.sw`;
  for (const cmd of ["run", "stats"]) {
    expectError(2, /^Error: integer input 'tokens' \(Tensor<\[Batch, 16\], i64>\) needs --input tokens=randint:LO:HI or a \.npy file, not random\n$/,
      cmd, gpt, "--input", "tokens=random", "--input", "targets=randint:0:96");
  }
  // Without a run nothing is planned: a note on stderr says why the arena fields are 0 (they looked like a plan).
  const unplanned = shrew("stats", gpt, "--json");
  assert.equal(unplanned.code, 0);
  assert.equal(JSON.parse(unplanned.out).stats.arenaBytes, 0);
  assert.match(unplanned.err, /^note: graph 'LanguageModel' did not run, so no memory plan is bound and the arena fields are 0: integer input 'tokens' .* needs --input tokens=randint:LO:HI/);
  // An input file run rejects, stats rejects too (it printed the stats of no run).
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const v4 = join(dir, "v4.npy");
  writeFileSync(v4, writeNpy(new Tensor("f32", [4])));
  for (const cmd of ["run", "stats"]) {
    expectError(1, /^Error: input 'images' of graph 'Classifier': expected rank 2, got rank 1: expected \[Batch, 784\], got \[4\]\n$/,
      cmd, MLP, "--input", `images=${v4}`);
  }
});

test("stats: a run that fails (an @assert) leaves a note saying so on stderr, not arena fields of 0 alone", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "assert.sw");
  writeFileSync(src, '@graph G {\n    input x: Tensor<[N, 3], f32>;\n    @assert N > 2, "need 3 rows";\n    output y: x * 2.0;\n}\n');
  const failed = shrew("stats", src);
  assert.equal(failed.code, 0, failed.err);
  assert.match(failed.out, /arenaBytes +0\n/);
  assert.match(failed.err, /^note: graph 'G' did not run, so no memory plan is bound and the arena fields are 0: its run failed: .*need 3 rows/);
  // A graph typed per run whose run fails has no compile to show: the run's error, not "run it, then ask again".
  const typed = join(dir, "typed.sw"), x = join(dir, "x.npy");
  writeFileSync(typed, "@graph G {\n    input x: ?;\n    node y: Tensor<[3], f32> { op: relu(x); };\n    output y;\n}\n");
  writeFileSync(x, writeNpy(new Tensor("f32", [2, 3])));
  const r = shrew("stats", typed, "--input", `x=${x}`);
  assert.equal(r.code, 1);
  assert.match(r.err, /^Error: .*declared type Tensor<\[3\], f32> does not match/);
  assert.doesNotMatch(r.err, /ask again/);
  // Run and planned: no note.
  const ran = shrew("stats", src, "--dims", "N=3");
  assert.equal(ran.code, 0, ran.err);
  assert.equal(ran.err, "");
  assert.match(ran.out, /arenaBytes +[1-9]/);
});

// graph_calls.sw's first graph is Dense, which Model calls: `--input features=…`
// without --graph said only that Dense has no such input.
test("run: an --input of another graph than the first, without --graph, names the graph that has it", () => {
  const calls = `${EXAMPLES}graph_calls.sw`;
  const r = shrew("run", calls, "--input", "features=random");
  assert.equal(r.code, 2);
  assert.match(r.err, /^Error: graph 'Dense' has no input 'features'; its inputs are: \w+\. Graph 'Model' has one: choose it with --graph Model \(without --graph, the first graph runs\)\n$/);
  // No graph has it, or --graph was given: as before.
  assert.doesNotMatch(shrew("run", calls, "--input", "nope=random").err, /Graph/);
  assert.doesNotMatch(shrew("stats", calls, "--graph", "Dense", "--input", "features=random").err, /Graph/);
  assert.equal(shrew("run", calls, "--graph", "Model", "--input", "features=random").code, 0);
});

// numpy arrays are float64 unless asked otherwise: the run's dtype error did
// not say which file it came from or what to save it as.
test("run: a .npy input of another dtype than the input's names the file and the numpy dtype to save it as", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const f64 = join(dir, "f64.npy"), f32 = join(dir, "f32.npy");
  writeFileSync(f64, writeNpy(new Tensor("f64", [2, 784])));
  writeFileSync(f32, writeNpy(new Tensor("f32", [4])));
  for (const cmd of ["run", "bench", "stats", "dump"]) {
    const r = shrew(cmd, MLP, "--input", `images=${f64}`);
    assert.equal(r.code, 1, cmd);
    assert.equal(r.err, "Error: input 'images' of graph 'Classifier': expected dtype f32, got f64 (declared Tensor<[Batch, 784], f32>)\n" +
      `  (images is read from ${f64}, whose values are f64: save the array as float32, e.g. numpy.save(path, array.astype(numpy.float32)))\n`, cmd);
  }
  // Other errors about the file (its shape) have no such line; nor has a generated input.
  assert.doesNotMatch(shrew("run", MLP, "--input", `images=${f32}`).err, /numpy/);
  // A file of a type read widened (int8 as i32) says what it holds: "whose values are i32" misled.
  const i8 = join(dir, "i8.npy");
  writeFileSync(i8, npyBytes("{'descr': '|i1', 'fortran_order': False, 'shape': (1, 784), }", new Uint8Array(784)));
  const r = shrew("run", MLP, "--input", `images=${i8}`);
  assert.equal(r.code, 1);
  assert.match(r.err, /\(images is read from .*i8\.npy, whose values are int8 \(read as i32\): save the array as float32, /);
  // Read as what it holds: no "(read as ...)" (numpy calls it bool, its scalar bool_).
  const b1 = join(dir, "b1.npy");
  writeFileSync(b1, npyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (1, 784), }", new Uint8Array(784)));
  assert.match(shrew("run", MLP, "--input", `images=${b1}`).err, /whose values are bool: save the array as float32/);
});

// Inputs left for the CLI to generate took 1 for every dim: with x from a
// [4, 12] file, y: [N, 1] was made [1, 1] and the run blamed y, which the
// user never gave. A file now binds the dims the generated inputs take.
test("run: a generated input takes its dims from the --input files (explicit --dims first)", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "pair.sw");
  writeFileSync(src, "@graph G { input x: Tensor<[N, K], f32>; input y: Tensor<[N, 1], f32>; output s: x * y; }\n");
  const x = join(dir, "x.npy");
  writeFileSync(x, writeNpy(new Tensor("f32", [4, 3], Float32Array.from({ length: 12 }, (_, i) => i))));
  const r = shrew("run", src, "--input", `x=${x}`, "--json");
  assert.equal(r.code, 0, r.err);
  const s = JSON.parse(r.out).outputs.s;
  assert.deepEqual(s.shape, [4, 3]);
  // --dims still decides: N = 2 disagrees with the file, and the run says so about x.
  const d = shrew("run", src, "--input", `x=${x}`, "--dims", "N=2");
  assert.equal(d.code, 1);
  assert.match(d.err, /input 'x'/);
});

// A run of Model uses the parameters of the graphs it calls (Residual, and
// through it Dense): info showed Model's own 96 values only, where the model is 368.
test("info: a graph that calls others lists them and its parameters with theirs, from a source and a bundle", () => {
  const calls = `${EXAMPLES}graph_calls.sw`;
  const text = shrew("info", calls);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /^graph Model\n(?: {2}(?:in|out)put .*\n)+ {2}params: 3 tensors, 96 values, 384 B\n {2}calls: Residual, Dense; with their params: 5 tensors, 368 values, 1\.4 KiB\n/m);
  assert.match(text.out, /^graph Dense\n(?: {2}(?:in|out)put .*\n)+ {2}params: 2 tensors, 272 values, 1\.1 KiB\ngraph Residual\n/m);  // calls nothing: no line
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  // One of each is said in the singular (it read "1 tensors, 1 values").
  const one = join(dir, "one.sw");
  writeFileSync(one, "@graph G {\n  input x: Tensor<[2], f32>;\n  param s: Tensor<[1], f32>;\n  output y: x * s;\n}\n");
  const o = shrew("info", one);
  assert.equal(o.code, 0, o.err);
  assert.match(o.out, /\n {2}params: 1 tensor, 1 value, 4 B\nparameters: 1 value, 4 B\n$/);
  const swb = join(dir, "calls.swb");
  assert.equal(shrew("build", calls, "--out", swb).code, 0);
  for (const file of [calls, swb]) {
    const j = JSON.parse(shrew("info", file, "--json").out);
    const g = Object.fromEntries(j.graphs.map((x) => [x.name, x]));
    assert.deepEqual(g.Model.calls, ["Residual", "Dense"]);
    assert.deepEqual([g.Model.params, g.Model.paramElements, g.Model.paramsWithCalls, g.Model.paramElementsWithCalls, g.Model.paramBytesWithCalls],
                     [3, 96, 5, 368, 1472]);
    assert.deepEqual([g.Dense.calls, g.Dense.paramElementsWithCalls], [[], 272]);
    assert.equal(j.paramCount, 368);
  }
});

test("build: a failed write names --out; --out naming the source (or a link to it) is refused, the source kept", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  // A missing directory is created (as run's --out DIR is); one that cannot be is named with --out.
  assert.equal(shrew("build", MLP, "--out", join(dir, "nodir", "x.swb")).code, 0);
  assert.equal(readFileSync(join(dir, "nodir", "x.swb")).subarray(0, 8).toString(), "SHRWBND1");
  writeFileSync(join(dir, "afile"), "x");
  expectError(1, /^Error: cannot write into \S+afile \(--out\): not a directory\n$/, "build", MLP, "--out", join(dir, "afile", "x.swb"));
  const src = join(dir, "victim.sw");
  const text = readFileSync(MLP, "utf8");
  writeFileSync(src, text);
  symlinkSync(src, join(dir, "link.sw"));
  for (const out of [src, join(dir, ".", "victim.sw"), join(dir, "link.sw")]) {
    expectError(2, /^Error: --out .* is the source file: build would overwrite it\n$/, "build", src, "--out", out);
  }
  expectError(2, /is the source file/, "build", join(dir, "link.sw"), "--out", src);
  assert.equal(readFileSync(src, "utf8"), text);
  // The default output is next to the source.
  const ok = shrew("build", src);
  assert.equal(ok.code, 0, ok.err);
  assert.equal(readFileSync(join(dir, "victim.swb")).subarray(0, 8).toString(), "SHRWBND1");
});

test("run --out refuses to overwrite an --input file or the --params file with an output (the user's file was replaced)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "double.sw");
  writeFileSync(src, "@graph G {\n  input x: Tensor<[3], f32>;\n  param w: Tensor<[3], f32> { init: \"ones\"; };\n  output y: x * w;\n  output w2: w;\n}\n");
  const od = join(dir, "od");
  mkdirSync(od);
  const input = writeNpy(new Tensor("f32", [3], [1, 2, 3]));
  writeFileSync(join(od, "y.npy"), input);
  expectError(2, /^Error: --out \S+od would overwrite the --input file of 'x', \S+y\.npy, with output 'y' \(\S+od\/y\.npy\)\n$/,
              "run", src, "--input", `x=${join(od, "y.npy")}`, "--out", od);
  assert.deepEqual(readFileSync(join(od, "y.npy")), Buffer.from(input));
  // Through a link to it too; the --params file likewise.
  symlinkSync(join(od, "y.npy"), join(dir, "x.npy"));
  expectError(2, /would overwrite the --input file of 'x'/, "run", src, "--input", `x=${join(dir, "x.npy")}`, "--out", od);
  const blob = join(od, "w2.npy");
  assert.equal(shrew("run", src, "--input", `x=${join(dir, "x.npy")}`, "--out", join(dir, "elsewhere")).code, 0);
  const params = (await Shrew.load()).compile(readFileSync(src, "utf8")).saveParams();
  writeFileSync(blob, params);
  expectError(2, /would overwrite the --params file, \S+w2\.npy, with output 'w2'/, "run", src, "--params", blob, "--out", od);
  assert.deepEqual(readFileSync(blob), Buffer.from(params));
  assert.deepEqual(readFileSync(join(od, "y.npy")), Buffer.from(input));
  // Elsewhere the outputs are written as before.
  assert.deepEqual(Array.from(readNpy(readFileSync(join(dir, "elsewhere", "y.npy"))).data), [1, 2, 3]);
});

// W003 (a config key used before its definition) explains later surprises:
// only check printed warnings, run, build and the rest compiled silently.
test("every command prints the source's warnings on stderr; stdout (--json too) holds the result alone", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "w3.sw");
  writeFileSync(src, "@config { Hidden: Base * 2; Base: 3; }\n@graph G {\n  input x: Tensor<[2], f32>;\n  output y: x * 2.0;\n}\n");
  const warning = `${src}:1:19: warning[W003]: config key 'Base' is defined later: here it is the string "Base", and the arithmetic on it is opaque\n` +
    "  @config { Hidden: Base * 2; Base: 3; }\n                    ^~~~\n";
  for (const args of [["check"], ["run"], ["run", "--json"], ["dump"], ["stats", "--json"], ["info"], ["bench", "--runs", "1"],
                      ["build", "--out", join(dir, "w3.swb")]]) {
    const r = shrew(args[0], src, ...args.slice(1));
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.err}`);
    assert.equal(r.err, warning, args.join(" "));
    if (args.includes("--json")) JSON.parse(r.out);
  }
});

test("check: warnings go to stderr, without a blank line; stdout is the ok line alone", () => {
  const src = join(mkdtempSync(join(tmpdir(), "shrew-cli-")), "imp.sw");
  writeFileSync(src, '@import "foo.sw";\n@graph G {\n  input x: Tensor<[2], f32>;\n  output y: x * 2;\n}\n');
  const r = shrew("check", src);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, `${src}: ok (1 graph: G)\n`);
  assert.equal(r.err, `${src}:1:1: warning[W001]: @import "foo.sw" is parsed and ignored: no file is read\n` +
    '  @import "foo.sw";\n  ^~~~~~~\n');
});

test("errors escape control characters and cap very long lines from files (a parameter blob's names, a .npy header)", async () => {
  const { Shrew } = await import("../dist/index.js");
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "affine.sw");
  writeFileSync(src, "@graph G {\n    input x: Tensor<[3], f32>;\n    param w: Tensor<[3], f32>;\n    output y: x + w;\n}\n");
  const program = (await Shrew.load()).compile(readFileSync(src, "utf8"));
  const blob = Buffer.from(program.saveParams());
  program.dispose();
  // The blob's first record is its name's u32 length, then the name: give it another name.
  const at = blob.indexOf("G/w");
  const renamed = (name) => {
    const len = Buffer.alloc(4);
    len.writeUInt32LE(Buffer.byteLength(name, "latin1"));
    return Buffer.concat([blob.subarray(0, at - 4), len, Buffer.from(name, "latin1"), blob.subarray(at + 3)]);
  };
  const esc = join(dir, "esc.params");
  writeFileSync(esc, renamed("G/\x1b[2J\x07\x7f"));
  const r = shrew("run", src, "--params", esc);
  assert.equal(r.code, 1);
  assert.equal(r.err, `Error: ${esc} (--params): parameter blob has 'G/\\x1b[2J\\x07\\x7f', which this program does not have; its parameters: G/w\n`);
  const long = join(dir, "long.params");
  writeFileSync(long, renamed(`G/${"A".repeat(100_000)}`));
  const l = shrew("run", src, "--params", long);
  assert.equal(l.code, 1);
  assert.ok(l.err.length < 1100, `${l.err.length} characters`);
  assert.match(l.err, /^Error: \S+long\.params \(--params\): parameter blob has 'G\/A+ … \[\d+ characters left out\] … A+', which this program does not have; its parameters: G\/w\n$/);
  // A .npy dtype is echoed too.
  const npy = join(dir, "x.npy");
  writeFileSync(npy, npyBytes("{'descr': '\x1b[31m', 'fortran_order': False, 'shape': (3,), }"));
  expectError(1, /^Error: .*x\.npy \(--input x\): unsupported \.npy dtype '\\x1b\[31m' /, "run", src, "--input", `x=${npy}`);
});

test("reading stops at a documented limit: /dev/zero as a source or an input is an error, not a hang", () => {
  expectError(1, /^Error: cannot read \/dev\/zero: over 28 MiB, the largest source the compiler takes\n$/, "check", "/dev/zero");
  // (A .npy input is read as far as its header says: see the test below.)
  // A regular file's size is known before it is read (sparse files: no disk used).
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const big = join(dir, "big.npy");
  writeFileSync(big, npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 784), }"));
  truncateSync(big, 2 ** 31);
  const blob = join(dir, "big.params");
  writeFileSync(blob, "SHRWPRM1");
  truncateSync(blob, 2 ** 31);
  expectError(1, /^Error: cannot read .*big\.params \(--params\): over 1 GiB, more than the wasm heap can load\n$/, "run", MLP, "--params", blob);
  // Without a parameter blob's magic, reading stops at the head (/dev/zero was read to 1 GiB).
  for (const notBlob of ["/dev/zero", big]) {
    expectError(1, /^Error: cannot read .* \(--params\): not a Shrew parameter blob \(it does not start with SHRWPRM1\)\n$/,
      "run", MLP, "--params", notBlob);
  }
  const bundle = join(dir, "big.swb");
  writeFileSync(bundle, "SHRWBND1");
  truncateSync(bundle, 2 ** 31);
  expectError(1, /^Error: cannot read .*big\.swb: over 1 GiB, more than the wasm heap can load\n$/, "info", bundle);
  // The two kinds of file swapped: each told where it goes (a blob as FILE was compiled: a page of E001s).
  expectError(1, /^Error: cannot read .*big\.params: a parameter blob \(saveParams\), not a \.sw source or bundle: give it with --params, after the FILE it belongs to\n$/,
    "run", blob);
  expectError(1, /^Error: cannot read .*big\.swb \(--params\): a bundle, not a parameter blob: give it as FILE \(it carries its parameters\)\n$/,
    "run", MLP, "--params", bundle);
  const src = join(dir, "big.sw");
  writeFileSync(src, "@graph G {}\n");
  truncateSync(src, 28 * 2 ** 20 + 1);
  expectError(1, /^Error: cannot read .*big\.sw: over 28 MiB/, "check", src);
  // Below the limits files read as before, a pipe included (read in pieces).
  const piped = spawnSync("bash", ["-c", 'cat "$2" | "$0" "$1" check /dev/stdin', process.execPath, CLI, MLP], { encoding: "utf8" });
  assert.equal(piped.status, 0, piped.stderr);
  assert.equal(piped.stdout, "/dev/stdin: ok (1 graph: Classifier)\n");
});

/** What a terminal would act on: C0 controls but tab and newline, DEL, C1 controls, bidirectional overrides. */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

test("stdout escapes control characters from the source, a bundle and paths as errors do; --json stays valid and exact", () => {
  // Strings may hold any byte (LANGUAGE.md §2.7); paths are the user's.
  const dir = join(mkdtempSync(join(tmpdir(), "shrew-cli-")), "d\x1b[2J");
  mkdirSync(dir);
  const src = join(dir, "m.sw");
  const name = "evil\x1b[31mRED", description = "a\u009bb\u202eRTL", note = "\x1b]0;title\x07\x7f";
  writeFileSync(src, `@model { name: "${name}"; description: "${description}"; }\n@config { note: "${note}"; }\n` +
    "@graph G {\n  input x: Tensor<[2], f32>;\n  output qqqqqq: x * 2.0;\n}\n");
  const esc = (s) => s.replace("\x1b", "\\x1b");
  const c = shrew("check", src);
  assert.equal(c.code, 0, c.err);
  assert.equal(c.out, `${esc(src)}: ok (1 graph: G)\n`);
  const i = shrew("info", src);
  assert.equal(i.code, 0, i.err);
  assert.doesNotMatch(i.out, RAW_CONTROL);
  assert.match(i.out, /^.*m\.sw: evil\\x1b\[31mRED\n {2}description: a\\u\{9b\}b\\u\{202e\}RTL\n/);
  assert.match(i.out, /^ {2}config: \{"note":"\\u001b\]0;title\\u0007\\u007f"\}$/m);
  const j = shrew("info", src, "--json");
  assert.equal(j.code, 0, j.err);
  assert.doesNotMatch(j.out, RAW_CONTROL);
  const info = JSON.parse(j.out);
  assert.deepEqual([info.file, info.metadata.model.name, info.metadata.model.description, info.metadata.config.note],
    [src, name, description, note]);
  const out = join(dir, "out\x07");
  const r = shrew("run", src, "--out", out);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /wrote 1 \.npy file\(s\) to .*d\\x1b\[2J\/out\\x07\n$/);
  const swb = join(dir, "m.swb");
  const b = shrew("build", src, "--out", swb);
  assert.equal(b.code, 0, b.err);
  assert.doesNotMatch(b.out, RAW_CONTROL);
  // A bundle whose output is renamed CSI (U+009B) "31mA": no identifier has a C1
  // control, so the loader refuses it, and nothing of it reaches the terminal raw.
  const bundle = join(dir, "c1.swb");
  writeFileSync(bundle, Buffer.from(readFileSync(swb).toString("latin1").replaceAll("qqqqqq", "\xc2\x9b31mA"), "latin1"));
  for (const args of [["info"], ["run"], ["dump", "--optimized-ir"], ["run", "--json"]]) {
    const t = shrew(args[0], bundle, ...args.slice(1));
    assert.equal(t.code, 1, args.join(" "));
    assert.match(t.err, /name is not a well-formed name/, args.join(" "));
    assert.doesNotMatch(t.out + t.err, RAW_CONTROL, args.join(" "));
  }
});

test("info, check, build and run keep each field on its line: newlines and tabs in strings and paths are shown escaped", () => {
  // A string may span lines (LANGUAGE.md §2.7) and a path may hold a newline: printed raw,
  // either would start a line that reads as another field.
  const dir = join(mkdtempSync(join(tmpdir(), "shrew-cli-")), "two\nlines");
  mkdirSync(dir);
  const src = join(dir, "m.sw");
  writeFileSync(src, '@model { name: "A\nseed: 7"; version: "1\t2"; description: "x\r\n  author: me"; }\n' +
    "@graph G {\n  input x: Tensor<[2], f32>;\n  output y: x * 2.0;\n}\n");
  const shown = src.replace("\n", "\\n");
  const i = shrew("info", src);
  assert.equal(i.code, 0, i.err);
  const lines = i.out.split("\n");
  assert.equal(lines[0], `${shown}: A\\nseed: 7 v1\\t2`);
  assert.equal(lines[1], "  description: x\\r\\n  author: me");
  assert.match(lines[2], /^ {2}seed: \d+$/);
  assert.equal(lines.filter((l) => l.startsWith("  seed:")).length, 1);
  // --json keeps the exact strings.
  const j = JSON.parse(shrew("info", src, "--json").out);
  assert.deepEqual([j.file, j.metadata.model.name, j.metadata.model.description], [src, "A\nseed: 7", "x\r\n  author: me"]);
  assert.equal(shrew("check", src).out, `${shown}: ok (1 graph: G)\n`);
  const swb = join(dir, "m.swb");
  const b = shrew("build", src, "--out", swb);
  assert.equal(b.code, 0, b.err);
  assert.equal(b.out.split("\n").length, 2, b.out);
  assert.ok(b.out.startsWith(`wrote ${swb.replace("\n", "\\n")}: `), b.out);
  const out = join(dir, "o");
  const r = shrew("run", src, "--out", out);
  assert.equal(r.code, 0, r.err);
  assert.ok(r.out.endsWith(`wrote 1 .npy file(s) to ${out.replace("\n", "\\n")}\n`), r.out);
  assert.ok(existsSync(join(out, "y.npy")), "written where asked, the path unchanged");
});

test("run --out: a bundle's output named '../x' is refused before any file is written, not written outside DIR", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "t.sw"), swb = join(dir, "t.swb"), evil = join(dir, "evil.swb");
  writeFileSync(src, "@graph G {\n  input x: Tensor<[2], f32>;\n  output a: x;\n  output qqqqqq: x * 2.0;\n}\n");
  assert.equal(shrew("build", src, "--out", swb).code, 0);
  writeFileSync(evil, Buffer.from(readFileSync(swb).toString("latin1").replaceAll("qqqqqq", "../pwn"), "latin1"));
  const out = join(dir, "out");
  expectError(1, /^Error: cannot write output '\.\.\/pwn' into .*out \(--out\): its name is not a file name \(it has '\/' or '\\'\)\n$/,
    "run", evil, "--out", out);
  assert.equal(existsSync(join(dir, "pwn.npy")), false);
  assert.equal(existsSync(join(out, "a.npy")), false, "nothing written");
  // Without --out the names are only printed.
  assert.match(shrew("run", evil).out, /^ {2}\.\.\/pwn: f32\[2\]/m);
  // An empty name (its length 0, the 6 bytes dropped) would be the hidden file DIR/.npy.
  const empty = join(dir, "empty.swb");
  writeFileSync(empty, Buffer.from(readFileSync(swb).toString("latin1").replaceAll("\x06\x00\x00\x00qqqqqq", "\x00\x00\x00\x00"), "latin1"));
  const listed = shrew("run", empty, "--json");
  assert.equal(listed.code, 0, listed.err);
  assert.deepEqual(Object.keys(JSON.parse(listed.out).outputs), ["a", ""]);
  expectError(1, /^Error: cannot write an output with an empty name into .*out \(--out\)\n$/, "run", empty, "--out", out);
  assert.equal(existsSync(join(out, ".npy")), false);
});

test("a .npy input is read as far as its header says: /dev/zero fails at once, an endless pipe after the data", () => {
  const started = Date.now();
  expectError(1, /^Error: \/dev\/zero \(--input images\): not a \.npy file \(bad magic: expected the bytes 93 4e 55 4d 50 59, "\\x93NUMPY", got 00 00 00 00 00 00\)\n$/,
    "run", MLP, "--input", "images=/dev/zero");
  assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms`);  // it read 1 GiB first
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "g.sw");
  writeFileSync(src, "@graph G {\n  input x: Tensor<[2, 3], f32>;\n  output y: x * 2.0;\n}\n");
  const ok = join(dir, "ok.npy");
  writeFileSync(ok, writeNpy(new Tensor("f32", [2, 3], [0, 1, 2, 3, 4, 5])));
  // A valid array, then zeros without end, through a FIFO: the data the header needs, then stop.
  const fifo = join(dir, "fifo");
  assert.equal(spawnSync("mkfifo", [fifo]).status, 0);
  // (The writer gives up after 20 s should the CLI never open the FIFO.)
  const piped = spawnSync("bash", ["-c", '(timeout 20 bash -c \'cat "$0" /dev/zero > "$1"\' "$3" "$2" 2>/dev/null &) ; ' +
    '"$0" "$1" run "$4" --input x="$2" --json',
    process.execPath, CLI, fifo, ok, src], { encoding: "utf8", timeout: 20_000 });
  assert.equal(piped.error, undefined);
  assert.equal(piped.status, 0, piped.stderr);
  assert.deepEqual(JSON.parse(piped.stdout).outputs.y.data, [0, 2, 4, 6, 8, 10]);
  // What follows the array (np.save appended another, here 2 GiB of sparse zeros) is not read, as np.load does.
  const appended = join(dir, "appended.npy");
  writeFileSync(appended, readFileSync(ok));
  truncateSync(appended, 2 ** 31);
  const a = shrew("run", src, "--input", `x=${appended}`, "--json");
  assert.equal(a.code, 0, a.err);
  assert.deepEqual(JSON.parse(a.out).outputs.y.data, [0, 2, 4, 6, 8, 10]);
  // A header asking for more than an input holds, or more than the file has, fails before the data is read.
  const huge = join(dir, "huge.npy");
  writeFileSync(huge, npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (268435456, 2), }"));
  expectError(1, /^Error: .*huge\.npy \(--input x\): shape \[268435456, 2\] of f32 needs 2147483648 bytes, over 1 GiB, more than an input tensor holds\n$/,
    "run", src, "--input", `x=${huge}`);
  const short = join(dir, "short.npy");
  writeFileSync(short, npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", new Uint8Array(10)));
  expectError(1, /^Error: .*short\.npy \(--input x\): \.npy data is truncated: shape \[2, 3\] needs 24 bytes, file has 10\n$/,
    "run", src, "--input", `x=${short}`);
  writeFileSync(short, readFileSync(ok).subarray(0, 100));
  expectError(1, /^Error: .*short\.npy \(--input x\): truncated \.npy header: it ends at byte 128, the file after 100\n$/,
    "run", src, "--input", `x=${short}`);
  writeFileSync(short, "");
  expectError(1, /^Error: .*short\.npy \(--input x\): not a \.npy file \(bad magic: .*got an empty file\)\n$/,
    "run", src, "--input", `x=${short}`);
  // A version 2.0 header says how long it is in 4 bytes: more than 1 MiB is not read.
  const v2 = Buffer.from(writeNpy(new Tensor("f32", [1])));
  v2[6] = 2;
  v2.writeUInt32LE(0xfffffff0, 8);
  writeFileSync(short, v2);
  expectError(1, /^Error: .*short\.npy \(--input x\): \.npy header of 4294967280 bytes is over the 1 MiB this reader takes\n$/,
    "run", src, "--input", `x=${short}`);
});

test("a .npy input through a pipe: data over several reads arrives whole; a header claiming 800 MB over 10 bytes is reported truncated", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "g.sw");
  writeFileSync(src, "@graph G {\n  input x: Tensor<[N], f32>;\n  output s: sum(x);\n}\n");
  const fed = (input, ...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", input, timeout: 60_000, maxBuffer: 2 ** 26 });
  // 3 MiB + 4 bytes: more than the first 1 MiB of room and its doubling; the last value differs.
  const n = 786433, x = new Float32Array(n).map((_, i) => (i === n - 1 ? 1000 : (i % 7) - 3));
  const r = fed(writeNpy(new Tensor("f32", [n], x)), "run", src, "--input", "x=-", "--json");
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout).outputs;
  assert.deepEqual(out.s.data, [x.reduce((a, v) => a + v, 0)]);
  const started = Date.now();
  const t = fed(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (200000000,), }", new Uint8Array(10)),
    "run", src, "--input", "x=-");
  assert.equal(t.status, 1, t.stderr);
  assert.match(t.stderr, /^Error: - \(--input x\): \.npy data is truncated: shape \[200000000\] needs 800000000 bytes, (file|it) has 10/);
  assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
});

test("'-' is standard input for FILE, --params or a .npy input, one of them; --help documents it and the exit status", async () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "g.sw"), x = join(dir, "x.npy");
  writeFileSync(src, "@graph G {\n  input x: Tensor<[2], f32>;\n  output y: x * 2.0;\n}\n");
  writeFileSync(x, writeNpy(new Tensor("f32", [2], [1, -3])));
  const fed = (input, ...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", input, timeout: 60_000 });
  const c = fed(readFileSync(src), "check", "-");
  assert.equal(c.status, 0, c.stderr);
  assert.equal(c.stdout, "-: ok (1 graph: G)\n");
  const r = fed(readFileSync(x), "run", src, "--input", "x=-", "--json");
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).outputs.y.data, [2, -6]);
  // A lone '-' after --params is a value (standard input), not an option-like one that needs --params=-.
  const withW = join(dir, "w.sw");
  writeFileSync(withW, '@graph G {\n  input x: Tensor<[2], f32>;\n  param w: Tensor<[2], f32> { init: "uniform(-1, 1)"; };\n  output y: x * w;\n}\n');
  const p = (await Shrew.load()).compile(readFileSync(withW, "utf8"), { seed: 5 });
  const want = [...p.run("G", { x: Float32Array.of(1, -3) }).y.data];
  const pr = fed(p.saveParams(), "run", withW, "--params", "-", "--input", `x=${x}`, "--json");
  p.dispose();
  assert.equal(pr.status, 0, pr.stderr);
  assert.deepEqual(JSON.parse(pr.stdout).outputs.y.data, want);
  const swb = join(dir, "g.swb");
  const b = fed(readFileSync(src), "build", "-", "--out", swb);
  assert.equal(b.status, 0, b.stderr);
  const i = fed(readFileSync(swb), "info", "-", "--json");
  assert.equal(i.status, 0, i.stderr);
  assert.equal(JSON.parse(i.stdout).graphs[0].name, "G");
  const twice = fed(readFileSync(src), "run", "-", "--input", "x=-");
  assert.equal(twice.status, 2);
  assert.equal(twice.stderr, "Error: standard input (-) can be read once, but FILE and --input x name it\n");
  const noOut = fed(readFileSync(src), "build", "-");
  assert.equal(noOut.status, 2);
  assert.equal(noOut.stderr, "Error: build - (a source on standard input) needs --out FILE.swb\n");
  const help = shrew("run", "--help");
  assert.equal(help.code, 0);
  assert.match(help.out, /may be -, standard input/);
  assert.match(help.out, /^Exit status: 0 success; 1 .*\n.*; 2 a usage error\.$/m);
});

test("run: int16 and float16 .npy files feed inputs declared i16 and f16 (widened as the runtime takes them)", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const src = join(dir, "narrow.sw"), a = join(dir, "a.npy"), b = join(dir, "b.npy");
  writeFileSync(src, "@graph G {\n  input a: Tensor<[2], i16>;\n  input b: Tensor<[2], f16>;\n  output y: a + a;\n  output z: b * 2.0;\n}\n");
  writeFileSync(a, npyBytes("{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }", new Uint8Array(new Int16Array([-300, 7]).buffer)));
  writeFileSync(b, npyBytes("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", new Uint8Array([0x00, 0x3c, 0x00, 0xb8])));
  const r = shrew("run", src, "--input", `a=${a}`, "--input", `b=${b}`, "--json");
  assert.equal(r.code, 0, r.err);
  const { y, z } = JSON.parse(r.out).outputs;
  assert.deepEqual([y.data, z.data], [[-600, 14], [2, -1]]);
});

test("--out through a file or a symlink loop is a one-line error; a failed write keeps the files it would have replaced", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const file = join(dir, "plain.txt");
  writeFileSync(file, "x");
  const LR = `${EXAMPLES}logistic_regression.sw`;
  expectError(1, /^Error: cannot write into \S+plain\.txt\/ \(--out\): ENOTDIR/, "run", LR, "--out", `${file}/`);
  expectError(1, /^Error: cannot write into \S+plain\.txt \(--out\): not a directory\n$/, "build", LR, "--out", join(file, "m.swb"));
  symlinkSync(join(dir, "loop1"), join(dir, "loop2"));
  symlinkSync(join(dir, "loop2"), join(dir, "loop1"));
  expectError(1, /^Error: cannot write into \S+loop1 \(--out\): \S+loop1 is a symbolic link that leads to no file or directory \(\S+loop2\)\n$/,
    "run", LR, "--out", join(dir, "loop1"));
  // Three outputs; one's path is a directory: none is written, the old ones stay.
  const out = join(dir, "out");
  mkdirSync(join(out, "squared_error.npy"), { recursive: true });
  writeFileSync(join(out, "prob.npy"), "old");
  expectError(1, /^Error: cannot write \S+squared_error\.npy \(--out\): it is a directory$/m, "run", LR, "--out", out);
  assert.equal(readFileSync(join(out, "prob.npy"), "utf8"), "old");
  assert.deepEqual(readdirSync(out).sort(), ["prob.npy", "squared_error.npy"]);  // no temporary file left
  // A bundle written over an older one replaces it whole.
  const swb = join(dir, "m.swb");
  writeFileSync(swb, "old");
  assert.equal(shrew("build", LR, "--out", swb).code, 0);
  assert.equal(shrew("run", swb).code, 0);
});

test("the command line is checked before any file is read; build never overwrites its --params; bundle and blob errors name their file", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrew-cli-"));
  const missing = join(dir, "missing.sw");
  expectError(2, /^Error: --seed expects a non-negative integer/, "run", missing, "--seed", "abc");
  expectError(2, /^Error: --executor expects jit or interp, got 'fast'/, "run", missing, "--executor", "fast");
  expectError(2, /^Error: --runs expects a positive integer, got '0'/, "bench", missing, "--runs", "0");
  expectError(2, /^Error: --dims expects NAME=SIZE/, "run", missing, "--dims", "N=x");
  const LR = `${EXAMPLES}logistic_regression.sw`;
  expectError(2, /^Error: --out expects a file; standard output \(-\) is not one/, "build", LR, "--out", "-");
  const blob = join(dir, "w.params");
  const swb = join(dir, "lr.swb");
  assert.equal(shrew("build", LR, "--out", swb).code, 0);
  writeFileSync(blob, "SHRWPRM1");  // a blob's magic, then nothing
  expectError(1, new RegExp(`^Error: ${blob.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(--params\\): parameter blob: truncated`), "run", LR, "--params", blob);
  expectError(2, /^Error: --out \S+w\.params is the --params file: build would overwrite it/, "build", LR, "--params", blob, "--out", blob);
  assert.equal(readFileSync(blob, "latin1"), "SHRWPRM1");
  // Without --out the bundle goes next to the source: m.sw -> m.swb, which here is the blob (it was replaced).
  const source = join(dir, "m.sw");
  const next = join(dir, "m.swb");
  writeFileSync(source, readFileSync(LR));
  writeFileSync(next, "SHRWPRM1");
  expectError(2, /^Error: \S+m\.swb \(the bundle's default path, next to the source\) is the --params file: build would overwrite it; give --out\n/,
    "build", source, "--params", next);
  assert.equal(readFileSync(next, "latin1"), "SHRWPRM1");
  // A dangling link as --out (or under it) is named as one (mkdir said EEXIST).
  symlinkSync(join(dir, "nowhere"), join(dir, "dangling"));
  for (const out of [join(dir, "dangling"), join(dir, "dangling", "sub")]) {
    expectError(1, /^Error: cannot write into \S+ \(--out\): \S+dangling is a symbolic link that leads to no file or directory \(\S+nowhere\)\n$/, "run", LR, "--out", out);
  }
  // A rename that fails names what the user typed, not the temporary file (a path ending in '/').
  expectError(1, /^Error: cannot write \S+nodir\/ \(--out\): ENOTDIR: not a directory\n$/, "build", LR, "--out", `${join(dir, "nodir")}/`);
  const cut = join(dir, "cut.swb");
  writeFileSync(cut, readFileSync(swb).subarray(0, 12));
  expectError(1, /^Error: \S+cut\.swb: bundle: truncated/, "run", cut);
});
