// Shrew's JS call overhead (lib/call-overhead.mjs): the median of the paired
// bursts, its interval, and "—" in the report where it is not resolved.
//   node --test bench/test/
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { callOverhead, medianCi, resolvedOverheadNs } from "../lib/call-overhead.mjs";
import { renderMarkdown } from "../lib/report.mjs";

const range = (n) => Array.from({ length: n }, (_, i) => i);

test("the median's 95 % interval is the binomial order statistics", () => {
  assert.deepEqual(medianCi(range(21)), [5, 15]); // ranks 6 and 16 of 21: coverage 97.3 %
  assert.deepEqual(medianCi(range(6)), [0, 5]);
  assert.deepEqual(medianCi(range(5)), [-Infinity, Infinity]); // 5 samples cannot give 95 %
  assert.deepEqual(callOverhead([3, -1, 2, 9, 0]), { jsCallOverheadNs: 2, jsCallOverheadCiNs: [-Infinity, Infinity] });
});

test("an overhead is shown only when it and its interval's lower bound are above zero", () => {
  assert.equal(resolvedOverheadNs(830, [790, 880]), 830);
  assert.equal(resolvedOverheadNs(900), 900); // older results: no interval
  assert.ok(Number.isNaN(resolvedOverheadNs(-1000)));
  assert.ok(Number.isNaN(resolvedOverheadNs(5800, [-33_700, 18_000])));
  assert.ok(Number.isNaN(resolvedOverheadNs(2, JSON.parse(JSON.stringify([-Infinity, Infinity])))));
});

test("the report shows no negative or unresolved JS call overhead: '—' instead", () => {
  const results = JSON.parse(readFileSync(new URL("../results/latest.json", import.meta.url), "utf8"));
  const extra = (workload, batch) => results.cells.find((c) => c.workload === workload && c.batch === batch)
    .results.find((r) => r.runtime === "shrew-jit").extra;
  Object.assign(extra("tiny", 1), { jsCallOverheadNs: 830, jsCallOverheadCiNs: [790, 880] });
  Object.assign(extra("mlp", 1), { jsCallOverheadNs: 900 }); // an older file: no interval, sign only
  Object.assign(extra("mlp", 64), { jsCallOverheadNs: -1000 }); // (the last full run's figure)
  Object.assign(extra("block", 1), { jsCallOverheadNs: 11_000, jsCallOverheadCiNs: [-15_000, 60_000] });
  Object.assign(extra("block", 8), { jsCallOverheadNs: -1600, jsCallOverheadCiNs: [-90_000, 40_000] });
  const md = renderMarkdown(results);
  const overhead = (workload, batch) => {
    const head = md.split("\n").find((l) => l.includes("| JS call overhead |")).split("|").map((c) => c.trim());
    const row = md.split("\n").find((l) => l.startsWith(`| ${workload} | ${batch} | `) && l.split("|").length === head.length);
    return row.split("|").map((c) => c.trim())[head.indexOf("JS call overhead")];
  };
  assert.equal(overhead("tiny", 1), "0.8 µs");
  assert.equal(overhead("mlp", 1), "0.9 µs");
  assert.equal(overhead("mlp", 64), "—");
  assert.equal(overhead("block", 1), "—");
  assert.equal(overhead("block", 8), "—");
  assert.doesNotMatch(md, /\| -\d/);
  assert.match(md, /— where that is not resolved: below zero, or its 95 % confidence interval/);
});
