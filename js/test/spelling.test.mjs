// closestName and didYouMean: the rule of src/base/spelling.cc (ClosestName),
// on cases computed by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import { closestName, didYouMean } from "../dist/spelling.js";

test("a name that is a candidate gets no suggestion, even when another differs only in case", () => {
  assert.equal(closestName("relu", ["gelu", "relu", "Relu"]), undefined);
  assert.equal(closestName("seed", ["seed"]), undefined);
});

test("a candidate equal but for ASCII case wins over a nearer one", () => {
  // 'Relu' is one substitution from both; the case-only match is taken, in either order.
  assert.equal(closestName("Relu", ["gelu", "relu"]), "relu");
  assert.equal(closestName("Relu", ["relu", "gelu"]), "relu");
  // 'SEEDS' is 5 case changes from 'seeds' but 1 deletion from 'SEED'.
  assert.equal(closestName("SEEDS", ["SEED", "seeds"]), "seeds");
});

test("insert, delete, substitute and a swap of neighbours count one edit each", () => {
  assert.equal(closestName("rleu", ["relu", "tanh"]), "relu");   // swap
  assert.equal(closestName("sed", ["seed"]), "seed");             // insert
  assert.equal(closestName("dimss", ["dims"]), "dims");           // delete
  assert.equal(closestName("imagez", ["images"]), "images");      // substitute
  // Two edits in a 6-letter name (limit 2), three are too many.
  assert.equal(closestName("imgaes", ["images"]), "images");      // one swap
  assert.equal(closestName("imxyes", ["images"]), "images");      // two substitutions
  assert.equal(closestName("ixyzes", ["images"]), undefined);     // three
});

test("the limit is a third of the longer name: no suggestion for one- or two-letter names", () => {
  assert.equal(closestName("y", ["x"]), undefined);
  assert.equal(closestName("ab", ["ax"]), undefined);
  assert.equal(closestName("x", ["xy"]), undefined);
  // Three letters: one edit.
  assert.equal(closestName("abc", ["abd"]), "abd");
  assert.equal(closestName("abc", ["xyc"]), undefined);
  // The longer name counts: 'sed' (3) against 'seed' (4) allows 1.
  assert.equal(closestName("sed", ["seed"]), "seed");
  assert.equal(closestName("s", ["seed"]), undefined);
  // A case-only difference needs no edit: it is taken at any length.
  assert.equal(closestName("W1", ["x", "y", "w1"]), "w1");
  assert.equal(closestName("Y", ["x", "y"]), "y");
});

test("lengths and edits are of the UTF-8 bytes, as the C++ side counts them", () => {
  // 'é' is two bytes: 'aéb' (4 bytes) is two edits from 'aeb', past the limit of 1.
  assert.equal(closestName("aéb", ["aeb"]), undefined);
  assert.equal(closestName("naïve", ["naive"]), "naive");  // 2 edits, 6 bytes: limit 2
});

test("the cases of tests/base/spelling_test.cc", () => {
  const ops = ["gelu", "matmul", "relu", "softmax", "tanh"];
  for (const candidates of [ops, [...ops].reverse()]) {
    assert.equal(closestName("rleu", candidates), "relu");
    assert.equal(closestName("Relu", candidates), "relu");
    assert.equal(closestName("softmx", candidates), "softmax");
    assert.equal(closestName("matmlu", candidates), "matmul");
    assert.equal(closestName("frobnicate", candidates), undefined);
    assert.equal(closestName("relu", candidates), undefined);
    assert.equal(closestName("xelu", candidates), "gelu");
  }
  assert.equal(closestName("z", ["x", "y", "w1"]), undefined);
  assert.equal(closestName("w2", ["x", "y", "w1"]), undefined);
});

test("ties go to the alphabetically first, whatever the order of the candidates", () => {
  // 'gelu' and 'relu' are both one substitution from 'xelu'.
  assert.equal(closestName("xelu", ["relu", "gelu"]), "gelu");
  assert.equal(closestName("xelu", ["gelu", "relu"]), "gelu");
  assert.equal(closestName("xelu", new Set(["relu", "gelu"])), "gelu");
  // A nearer one wins over an alphabetically earlier one: 'aacdxf' is two edits away, 'abcdeg' one.
  assert.equal(closestName("abcdef", ["aacdxf", "abcdeg"]), "abcdeg");
  assert.equal(closestName("dims", ["dim", "dimz"]), "dim");
});

test("at one edit each, a swap goes before a substitution, whatever the order", () => {
  assert.equal(closestName("i46", ["i16", "i64", "u16", "u64"]), "i64");
  assert.equal(closestName("u46", ["u64", "u16", "i64", "i16"]), "u64");
  assert.equal(closestName("i26", ["i16", "i64", "u16", "u64"]), "i16");  // no anagram: alphabetical
});

test("nothing close: no suggestion", () => {
  assert.equal(closestName("frobnicate", ["run", "bench", "check"]), undefined);
  assert.equal(closestName("x", []), undefined);
  assert.equal(closestName("", ["a"]), undefined);
});

test("didYouMean words the suggestion, or is empty", () => {
  assert.equal(didYouMean("sed", ["dims", "seed"]), "; did you mean 'seed'?");
  assert.equal(didYouMean("y", ["x"]), "");
  assert.equal(didYouMean("seed", ["seed"]), "");
});
