// program.tape(): the compiled tape as data, checked against the text dump,
// the statistics, the memory plan and the source it came from.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Shrew, ShrewRuntimeError } from "../dist/index.js";
import { readExample } from "./helpers.mjs";

const shrew = await Shrew.load();
const MLP = readExample("mlp_classifier.sw");
const BYTES = { f32: 4, f64: 8, i64: 8, bool: 1, u8: 1, i32: 4 };

test("tape: a free is never a fused instruction, even of a fused op's result (§7.6: fused entries = numFused)", () => {
  const p = shrew.compile("@graph G {\n  input x: Tensor<[4], f32>;\n  input b: Tensor<[4], f32>;\n" +
    "  node h { op: relu(x - b); };\n  output y: tanh(h) * 2.0;\n}\n");
  try {
    const tape = p.tape("G");
    const frees = tape.instructions.filter((i) => i.opcode === "free");
    assert.ok(frees.some((f) => tape.instructions.some((i) => i.results[0] === f.results[0] && i.op === "fused_sub_relu")),
      "the program frees the fused op's result");
    assert.deepEqual(frees.filter((i) => i.fused), []);
    assert.equal(tape.instructions.filter((i) => i.fused).length, p.stats("G").numFused);
    assert.equal(p.stats("G").numFused, 1);
  } finally {
    p.dispose();
  }
});

test("tape: one entry per instruction, matching dump, stats and plan", () => {
  const p = shrew.compile(MLP, { dims: { Batch: 4 } });
  try {
    p.run("Classifier", { images: new Float32Array(4 * 784).fill(0.5) });
    const tape = p.tape("Classifier");
    const stats = p.stats("Classifier");
    assert.equal(tape.graph, "Classifier");
    assert.equal(tape.bound, true);
    assert.equal(tape.instructions.length, stats.numInstructions);
    assert.equal(tape.num_slots, stats.numSlots);
    assert.equal(tape.instructions.filter((i) => i.opcode === "free").length, stats.numFrees);
    assert.equal(tape.instructions.filter((i) => i.fused).length, stats.numFused);
    // The text of each entry is the dump's line for that instruction.
    const dumpLines = p.dump("Classifier").split("\n");
    tape.instructions.forEach((ins, i) => {
      assert.equal(ins.index, i);
      assert.ok(dumpLines.includes(`  ${i}: ${ins.text}`), ins.text);
    });
    // Arena placement agrees with the memory plan, sizes with the shapes.
    const plan = JSON.parse(p.plan("Classifier"));
    for (const ins of tape.instructions) {
      if (ins.opcode === "free" || ins.offset === null) continue;
      const value = plan.values.find((v) => v.slot === ins.results[0]);
      assert.equal(ins.offset, value.offset, ins.text);
      assert.equal(ins.size, value.size, ins.text);
      assert.equal(ins.size, ins.shape.reduce((a, b) => a * b, 1) * BYTES[ins.dtype], ins.text);
    }
    const input = tape.instructions.find((i) => i.opcode === "load_input");
    assert.deepEqual(input.shape, [4, 784]);
    assert.equal(input.dtype, "f32");
    assert.equal(input.node.name, "images");
    // Spans point at the source each instruction came from.
    const lines = MLP.split("\n");
    for (const ins of tape.instructions) {
      if (ins.opcode !== "load_input" && ins.opcode !== "load_param") continue;
      const [span] = ins.spans;
      assert.ok(span.line > 0, ins.text);
      assert.ok(lines[span.line - 1].includes(ins.node.name), `${ins.text}: line ${span.line}`);
    }
    for (const ins of tape.instructions.filter((i) => i.fused_nodes.length)) {
      assert.equal(ins.spans.length, 2, ins.text);
      assert.match(ins.op, /\+/);
    }
  } finally {
    p.dispose();
  }
});

test("tape before a binding has symbolic shapes and no offsets; errors are typed", () => {
  const p = shrew.compile(MLP);
  try {
    const tape = p.tape("Classifier");
    assert.equal(tape.bound, false);
    const input = tape.instructions.find((i) => i.opcode === "load_input");
    assert.deepEqual(input.shape, ["Batch", 784]);
    assert.equal(input.offset, null);
    assert.throws(() => p.tape("Nope"), (e) => e instanceof ShrewRuntimeError && e.code === "not_found");
  } finally {
    p.dispose();
  }
  assert.throws(() => p.tape("Classifier"), (e) => e instanceof ShrewRuntimeError && e.code === "disposed");
});
