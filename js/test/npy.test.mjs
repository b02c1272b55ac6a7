import { test } from "node:test";
import assert from "node:assert/strict";
import { readNpy, writeNpy, NpyError, Tensor } from "../dist/index.js";

test("round trip of every dtype, including rank 0 and size 0", () => {
  const cases = [
    new Tensor("f32", [2, 3], [1, 2, 3, 4, 5, 6.5]),
    new Tensor("f64", [], [Math.PI]),
    new Tensor("i32", [3], [-1, 0, 2147483647]),
    new Tensor("i64", [2], [-(2n ** 62n), 5n]),
    new Tensor("u8", [2, 2], [0, 1, 254, 255]),
    new Tensor("bool", [3], [1, 0, 1]),
    new Tensor("f32", [0, 4]),
  ];
  for (const t of cases) {
    const bytes = writeNpy(t);
    const headerLen = bytes[8] | (bytes[9] << 8);
    assert.equal((10 + headerLen) % 64, 0, "data starts 64-byte aligned");
    const back = readNpy(bytes);
    assert.equal(back.dtype, t.dtype);
    assert.deepEqual(back.shape, t.shape);
    assert.deepEqual(Array.from(back.data), Array.from(t.data));
  }
});

test("reads a file written by numpy (hand-assembled header)", () => {
  const header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const padded = header.padEnd(128 - 10 - 1, " ") + "\n";
  const bytes = new Uint8Array(128 + 8);
  bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, padded.length, 0]);
  for (let i = 0; i < padded.length; i++) bytes[10 + i] = padded.charCodeAt(i);
  new DataView(bytes.buffer).setFloat32(128, 1.5, true);
  new DataView(bytes.buffer).setFloat32(132, -2, true);
  const t = readNpy(bytes);
  assert.deepEqual(t.shape, [2]);
  assert.deepEqual(Array.from(t.data), [1.5, -2]);
});

test("bad files give clear errors", () => {
  assert.throws(() => readNpy(new Uint8Array([1, 2, 3])), NpyError);
  const good = writeNpy(new Tensor("f32", [4], [1, 2, 3, 4]));
  assert.throws(() => readNpy(good.subarray(0, good.length - 4)), /truncated: shape \[4\] needs 16 bytes, file has 12/);
  const text = new TextDecoder().decode(good.subarray(10, 74)).replace("<f4", "<c8");
  const bad = good.slice();
  for (let i = 0; i < text.length; i++) bad[10 + i] = text.charCodeAt(i);
  assert.throws(() => readNpy(bad), /unsupported .npy dtype '<c8'/);
});

test("Tensor checks shape against data", () => {
  assert.throws(() => new Tensor("f32", [2, 2], new Float32Array(3)), /needs 4 elements, data has 3/);
  assert.throws(() => new Tensor("f32", [2], new Int32Array(2)), /f32 tensor needs a Float32Array/);
  assert.throws(() => new Tensor("f32", [-1]), /invalid dimension -1/);
  assert.equal(new Tensor("i64", [2], [1, 2]).data[1], 2n);
});

test("a header over 65535 bytes is written as version 2.0 (4-byte length), as numpy does; an unknown dtype throws", () => {
  const t = new Tensor("f32", new Array(25000).fill(1), [7]);
  const bytes = writeNpy(t);
  assert.equal(bytes[6], 2);
  const headerLen = new DataView(bytes.buffer).getUint32(8, true);
  assert.equal((12 + headerLen) % 64, 0, "data starts 64-byte aligned");
  assert.ok(headerLen > 65535);
  const back = readNpy(bytes);
  assert.equal(back.shape.length, 25000);
  assert.deepEqual([...back.data], [7]);
  assert.equal(writeNpy(new Tensor("f32", new Array(100).fill(1), [7]))[6], 1, "small headers stay 1.0");
  assert.throws(() => writeNpy({ dtype: "f16", shape: [1], data: new Float32Array(1) }),
    (e) => e instanceof NpyError && /cannot write dtype 'f16' as \.npy \(supported: f32, f64, i32, i64, u8, bool\)/.test(e.message));
});

/** .npy bytes with this header dict and data, padded as numpy pads the header. */
function npy(header, data) {
  const len = Math.ceil((10 + header.length + 1) / 64) * 64 - 10;
  const out = new Uint8Array(10 + len + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, len & 0xff, len >> 8]);
  const h = header.padEnd(len - 1, " ") + "\n";
  for (let i = 0; i < h.length; i++) out[10 + i] = h.charCodeAt(i);
  out.set(data, 10 + len);
  return out;
}

test("Fortran-order and big-endian arrays are read in C order, little-endian (they were refused)", () => {
  // np.asfortranarray(np.arange(24).reshape(2, 3, 4)): the first index varies fastest in the file.
  const c = Array.from({ length: 24 }, (_, i) => i);
  const f = [];
  for (let k = 0; k < 4; k++) for (let j = 0; j < 3; j++) for (let i = 0; i < 2; i++) f.push(c[i * 12 + j * 4 + k]);
  const t = readNpy(npy("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3, 4), }", new Uint8Array(new Int32Array(f).buffer)));
  assert.deepEqual([t.dtype, t.shape, Array.from(t.data)], ["i32", [2, 3, 4], c]);
  // Rank 0, 1 and size 0 read as in C order.
  assert.deepEqual(Array.from(readNpy(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (3,), }",
    new Uint8Array(new Float32Array([1, 2, 3]).buffer))).data), [1, 2, 3]);
  assert.deepEqual(readNpy(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (0, 3), }", new Uint8Array(0))).shape, [0, 3]);
  assert.deepEqual(Array.from(readNpy(npy("{'descr': '<f8', 'fortran_order': True, 'shape': (), }",
    new Uint8Array(new Float64Array([2.5]).buffer))).data), [2.5]);
  // Big-endian values of each width, one Fortran-order too.
  const be = (n, width, write) => {
    const b = Buffer.alloc(n * width);
    for (let i = 0; i < n; i++) write(b, i, i * width);
    return new Uint8Array(b);
  };
  const f4 = readNpy(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }", be(3, 4, (b, i, at) => b.writeFloatBE([1.5, -2, 1e-3][i], at))));
  assert.deepEqual(Array.from(f4.data), [1.5, -2, Math.fround(1e-3)]);
  const f8 = readNpy(npy("{'descr': '>f8', 'fortran_order': True, 'shape': (2, 2), }", be(4, 8, (b, i, at) => b.writeDoubleBE([1, 3, 2, 4][i], at))));
  assert.deepEqual([f8.dtype, Array.from(f8.data)], ["f64", [1, 2, 3, 4]]);
  const i8 = readNpy(npy("{'descr': '>i8', 'fortran_order': False, 'shape': (2,), }", be(2, 8, (b, i, at) => b.writeBigInt64BE([-(2n ** 62n), 7n][i], at))));
  assert.deepEqual(Array.from(i8.data), [-(2n ** 62n), 7n]);
  const i4 = readNpy(npy("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", be(2, 4, (b, i, at) => b.writeInt32BE([-5, 65536][i], at))));
  assert.deepEqual(Array.from(i4.data), [-5, 65536]);
  // Other dtypes are still named with the supported ones; a dimension is plain digits.
  assert.throws(() => readNpy(npy("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", new Uint8Array(16))),
    /unsupported \.npy dtype '<c8' \(supported: .*>f4.*<i2/);
  assert.throws(() => readNpy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0x2,), }", new Uint8Array(8))),
    /bad dimension '0x2' in \.npy shape/);
});

test("the header is read as numpy reads it: three keys, once each, the dict closed (a duplicate 'descr' took the first)", () => {
  const d = new Uint8Array(new Float64Array([1.5, -2.25]).buffer);
  const header = (h) => () => readNpy(npy(h, d));
  const malformed = (h, why) => assert.throws(header(h), (e) => e instanceof NpyError && e.message.startsWith(`malformed .npy header (${why})`), h);
  malformed("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'descr': '<f8', }", "duplicate key 'descr'");
  malformed("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'shape': (2,), }", "duplicate key 'shape'");
  malformed("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'bogus': 1, }", "unknown key 'bogus'");
  malformed("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), ", "expected a quoted string");
  malformed("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)} x", "characters after the dict");
  malformed("{'descr': '<f8', 'shape': (2,)}", "it needs 'descr', 'fortran_order' and 'shape'");
  malformed("{'descr': '<f8', 'fortran_order': false, 'shape': (2,)}", "'fortran_order' must be True or False");
  malformed("['descr', '<f8']", "the header is not a dict");
  malformed("{'descr': '<f8', 'fortran_order': False, 'shape': [2]}", "'shape' must be a tuple");
  assert.throws(header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}"), /structured dtypes are not supported/);
  // What numpy writes and takes: any key order, double quotes, no trailing comma, 2L, rank 0.
  for (const h of ["{'shape': (2,), 'fortran_order': False, 'descr': '<f8'}", '{"descr": "<f8", "fortran_order": False, "shape": (2L,)}',
                   "{ 'descr' : '<f8' ,\t'fortran_order' : False , 'shape' : ( 2 , ) , }"]) {
    assert.deepEqual(Array.from(readNpy(npy(h, d)).data), [1.5, -2.25], h);
  }
  assert.deepEqual(readNpy(npy("{'descr': '<f8', 'fortran_order': False, 'shape': ()}", d.subarray(0, 8))).shape, []);
});

test("int8/int16, uint16/uint32/uint64 and float16 arrays are widened exactly to i32, i64 and f32 (they were refused)", () => {
  const file = (descr, shape, bytes) => readNpy(npy(`{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`, new Uint8Array(bytes)));
  const i1 = file("|i1", "(3,)", [0x80, 0xff, 0x7f]);
  assert.deepEqual([i1.dtype, Array.from(i1.data)], ["i32", [-128, -1, 127]]);
  const i2 = file("<i2", "(2,)", [0x00, 0x80, 0xfe, 0xff]);
  assert.deepEqual([i2.dtype, Array.from(i2.data)], ["i32", [-32768, -2]]);
  assert.deepEqual(Array.from(file(">i2", "(2,)", [0x80, 0x00, 0xff, 0xfe]).data), [-32768, -2]);
  const u2 = file("<u2", "(1,)", [0xff, 0xff]);
  assert.deepEqual([u2.dtype, Array.from(u2.data)], ["i64", [65535n]]);
  assert.deepEqual(Array.from(file(">u4", "(1,)", [0xff, 0xff, 0xff, 0xfe]).data), [4294967294n]);
  assert.deepEqual(Array.from(file("<u8", "(1,)", [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]).data), [2n ** 63n - 1n]);
  assert.throws(() => file("<u8", "(2,)", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80]),
    /uint64 value 9223372036854775808 \(at 1\) does not fit i64/);
  // float16: 1, -2, 65504 (the largest), 2^-24 (the smallest subnormal), -0, Infinity, NaN.
  const f2 = file("<f2", "(7,)", [0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b, 0x01, 0x00, 0x00, 0x80, 0x00, 0x7c, 0x00, 0x7e]);
  assert.equal(f2.dtype, "f32");
  assert.deepEqual(Array.from(f2.data), [1, -2, 65504, 2 ** -24, -0, Infinity, NaN]);
  // Every half, bit for bit as numpy widens it: a NaN keeps its sign and payload
  // (all NaNs read as the one 0x7fc00000), the others are their exact values.
  const halves = new Uint16Array(65536).map((_, h) => h);
  const all = new Uint32Array(readNpy(npy("{'descr': '<f2', 'fortran_order': False, 'shape': (65536,), }", new Uint8Array(halves.buffer))).data.buffer);
  const f32Bits = (v) => new Uint32Array(new Float32Array([v]).buffer)[0];
  for (const h of halves) {
    const sign = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, m = h & 1023;
    const want = e === 31 && m !== 0 ? (((h & 0x8000) << 16) | 0x7f800000 | (m << 13)) >>> 0
      : f32Bits(e === 31 ? sign * Infinity : e === 0 ? sign * m * 2 ** -24 : sign * (1 + m / 1024) * 2 ** (e - 15));
    if (all[h] !== want) assert.fail(`half 0x${h.toString(16)}: got 0x${all[h].toString(16)}, want 0x${want.toString(16)}`);
  }
  assert.equal(all[0xfe00], 0xffc00000);  // -NaN
  assert.equal(all[0x7c01], 0x7f802000);  // a signalling NaN stays one
  // In Fortran order too (the reordering read each value into a JS number, which quieted it), and an f4's.
  const fortran = (descr, bytes) => readNpy(npy(`{'descr': '${descr}', 'fortran_order': True, 'shape': (2, 2), }`, new Uint8Array(bytes)));
  assert.deepEqual(Array.from(new Uint32Array(fortran("<f2", new Uint16Array([0x7c01, 0x3c00, 0xfe01, 0x4000]).buffer).data.buffer)),
                   [0x7f802000, 0xffc02000, 0x3f800000, 0x40000000]);
  assert.deepEqual(Array.from(new Uint32Array(fortran("<f4", new Uint32Array([0x7f800001, 1, 0xff800003, 2]).buffer).data.buffer)),
                   [0x7f800001, 0xff800003, 1, 2]);
  // Widened in Fortran order too; a short file is measured in the file's bytes.
  const f = readNpy(npy("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 2), }", new Uint8Array(new Int16Array([1, 3, 2, 4]).buffer)));
  assert.deepEqual(Array.from(f.data), [1, 2, 3, 4]);
  assert.throws(() => file("<i2", "(3,)", [1, 0, 2, 0]), /truncated: shape \[3\] needs 6 bytes, file has 4/);
});

test("readNpy takes a Uint8Array: an ArrayBuffer, a DataView or null is a TypeError saying so (it failed inside with 'bytes.subarray is not a function')", () => {
  const bytes = writeNpy(new Tensor("f32", [2], [1.5, -2]));
  for (const [bad, name] of [[bytes.buffer, "ArrayBuffer"], [new DataView(bytes.buffer), "DataView"], [null, "null"], [[...bytes], "Array"]]) {
    assert.throws(() => readNpy(bad), (e) => e instanceof TypeError && e.message === `readNpy expects the file's bytes as a Uint8Array, got ${name}`);
  }
  // A Buffer and a view at an odd offset are Uint8Arrays.
  assert.deepEqual(Array.from(readNpy(Buffer.from(bytes)).data), [1.5, -2]);
  const shifted = new Uint8Array(bytes.length + 1);
  shifted.set(bytes, 1);
  assert.deepEqual(Array.from(readNpy(shifted.subarray(1)).data), [1.5, -2]);
});

test("writeNpy checks what it writes: data of another type or length, or a bad shape, is an error, not a file numpy misreads", () => {
  const cases = [
    [{ dtype: "f32", shape: [2], data: new Float64Array(2) }, TypeError, /writeNpy: f32 tensor data must be a Float32Array, got a Float64Array/],
    [{ dtype: "f32", shape: [3], data: new Float32Array(2) }, RangeError, /writeNpy: shape \[3\] needs 3 elements, data has 2/],
    [{ dtype: "i64", shape: [1], data: new Int32Array(2) }, TypeError, /BigInt64Array/],
    [{ dtype: "f32", shape: [1.5], data: new Float32Array(1) }, RangeError, /invalid dimension 1\.5/],
    [{ dtype: "f32", shape: ["1), 'x': (1"], data: new Float32Array(1) }, RangeError, /invalid dimension/],
    [{ dtype: "f32", shape: [2] }, TypeError, /got undefined/],
    [null, TypeError, /writeNpy expects a Tensor, got null/],
  ];
  // A Tensor's fields are readonly in TypeScript only.
  const swapped = new Tensor("f32", [2], [1, 2]);
  swapped.data = new Float32Array(5);
  cases.push([swapped, RangeError, /shape \[2\] needs 2 elements, data has 5/]);
  const moved = new Tensor("f32", [2], [1, 2]);
  structuredClone(moved.data.buffer, { transfer: [moved.data.buffer] });
  cases.push([moved, RangeError, /data has 0/]);
  for (const [t, type, message] of cases) assert.throws(() => writeNpy(t), (e) => e instanceof type && message.test(e.message));
  // A look-alike whose fields are right is written like the Tensor.
  const plain = { dtype: "i32", shape: [2, 1], data: new Int32Array([-3, 4]) };
  assert.deepEqual(writeNpy(plain), writeNpy(new Tensor("i32", [2, 1], [-3, 4])));
});

test("a header whose shape has more than 2^53 - 1 elements is an NpyError like any bad file (it was a RangeError)", () => {
  const bytes = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000, 100000000000), }", new Uint8Array(8));
  assert.throws(() => readNpy(bytes), (e) => e instanceof NpyError && e.message === "shape [100000000000, 100000000000] has too many elements");
});

test("writeNpy writes bool values as the bytes 0 and 1, as numpy does, whatever bytes the Uint8Array holds (a 2 or 255 was written as is)", () => {
  const data = new Uint8Array([0, 2, 255, 1]);
  const bytes = writeNpy(new Tensor("bool", [4], data));
  assert.deepEqual([...bytes.subarray(bytes.length - 4)], [0, 1, 1, 1]);
  assert.deepEqual([...data], [0, 2, 255, 1], "the caller's array is not changed");
  assert.deepEqual([...writeNpy(new Tensor("u8", [2], new Uint8Array([2, 255]))).subarray(-2)], [2, 255], "u8 is written as is");
});

test("readNpy reads a file held in a SharedArrayBuffer, whose views browsers' TextDecoder refuses", () => {
  const file = writeNpy(new Tensor("f32", [2, 2], [1, -2, 3.5, -0]));
  const shared = new Uint8Array(new SharedArrayBuffer(file.length + 3), 3, file.length);
  shared.set(file);
  // Node's TextDecoder takes shared views; a browser's throws a TypeError, as this one does.
  const Native = globalThis.TextDecoder;
  globalThis.TextDecoder = class extends Native {
    decode(input, options) {
      if (input?.buffer instanceof SharedArrayBuffer) throw new TypeError("The provided ArrayBufferView value must not be shared.");
      return super.decode(input, options);
    }
  };
  try {
    const t = readNpy(shared);
    assert.deepEqual([t.dtype, t.shape, [...t.data]], ["f32", [2, 2], [1, -2, 3.5, -0]]);
    assert.ok(Object.is(t.data[3], -0));
    assert.ok(!(t.data.buffer instanceof SharedArrayBuffer), "the tensor owns a copy");
  } finally {
    globalThis.TextDecoder = Native;
  }
});
