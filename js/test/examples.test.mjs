// Round trip of every conformance example: compile with a dim binding, run
// on seeded random inputs, check output dtypes/shapes, JIT vs interpreter.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Shrew } from "../dist/index.js";
import { makeInputs, parseInputSpecs } from "../dist/cli/inputs.js";
import { CASES, readExample, allClose } from "./helpers.mjs";

const shrew = await Shrew.load();

for (const c of CASES) {
  test(`example ${c.file}: ${c.graph} runs, types as documented, jit == interp`, () => {
    const program = shrew.compile(readExample(c.file), { filename: c.file, dims: c.dims, seed: 42 });
    try {
    assert.ok(program.graphs.includes(c.graph), `graphs: ${program.graphs}`);
    const sig = program.signature(c.graph);
    assert.deepEqual(sig.outputs.map((o) => o.name), Object.keys(c.outputs));
    const feeds = makeInputs(sig, parseInputSpecs(c.inputs ?? []), c.dims, 1234);
    const jit = program.run(c.graph, feeds);
    assert.deepEqual(Object.keys(jit), Object.keys(c.outputs), "output order");
    for (const [name, [dtype, shape]] of Object.entries(c.outputs)) {
      assert.equal(jit[name].dtype, dtype, `${name} dtype`);
      assert.deepEqual([...jit[name].shape], shape, `${name} shape`);
    }
    const ref = program.interpret(c.graph, feeds);
    for (const name of Object.keys(c.outputs)) allClose(assert, jit[name], ref[name], 1e-5, c.atol ?? 1e-6, `${c.file} ${name}`);
    } finally {
      program.dispose();
    }
  });
}
