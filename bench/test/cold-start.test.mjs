// bench/cold-start.mjs --gen1000-first: the 1,000-node graph's first compile in
// a fresh process, nothing compiled before it (run.mjs reports it next to the warm figure).
//   node --test bench/test/
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const dist = fileURLToPath(new URL("../../js/dist/shrew.node.js", import.meta.url));
const script = fileURLToPath(new URL("../cold-start.mjs", import.meta.url));

test("--gen1000-first compiles the generated graph first thing after Shrew.load() and reports it as one JSON line",
  { skip: !existsSync(dist) && `${dist} not built` }, () => {
    const out = execFileSync(process.execPath, [script, "--gen1000-first"], { encoding: "utf8", timeout: 60_000 });
    const lines = out.trim().split("\n");
    assert.equal(lines.length, 1, out);
    const r = JSON.parse(lines[0]);
    assert.equal(r.mode, "gen1000-first");
    assert.ok(r.loadMs > 0);
    assert.equal(r.gen1000.nodes, 1000);
    assert.ok(r.gen1000.instructions > 1000, JSON.stringify(r));
    assert.ok(r.gen1000.firstMs > 0 && r.gen1000.firstCpuMs >= 0 && r.gen1000.firstFaults >= 0, JSON.stringify(r));
    // Only the one compile: no mlp start-up figures, no warm compiles.
    assert.equal(r.steadyUs, undefined);
    assert.equal(r.gen1000.warmMedianMs, undefined);
  });
