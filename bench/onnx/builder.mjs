// Builds ONNX models in JS: a small graph builder on top of protobufjs and
// the schema subset in onnx.proto. Used by every workload's `onnx()`.
import { readFileSync } from "node:fs";
import protobuf from "protobufjs";

const PROTO_TEXT = readFileSync(new URL("./onnx.proto", import.meta.url), "utf8");
const root = protobuf.parse(PROTO_TEXT, { keepCase: true }).root;
const ModelProto = root.lookupType("onnx.ModelProto");

const FLOAT = 1;
const INT64 = 7;
const ATTR = { FLOAT: 1, INT: 2, STRING: 3, FLOATS: 6, INTS: 7 };

/** IR version 9 = ONNX 1.15, which knows opset 20. */
export const IR_VERSION = 9;
/** Default-domain opset: 20 (LayerNormalization ≥17, Gelu with approximate="tanh" ≥20). */
export const OPSET = 20;

/** Attribute value constructors: ONNX attributes are typed, JS numbers are not. */
export const attr = {
  /** @param {number} v */ int: (v) => ({ type: ATTR.INT, i: v }),
  /** @param {number} v */ float: (v) => ({ type: ATTR.FLOAT, f: v }),
  /** @param {string} v */ str: (v) => ({ type: ATTR.STRING, s: new TextEncoder().encode(v) }),
  /** @param {number[]} v */ ints: (v) => ({ type: ATTR.INTS, ints: v }),
  /** @param {number[]} v */ floats: (v) => ({ type: ATTR.FLOATS, floats: v }),
};

/** @typedef {(number|string)[]} Dims  numbers are fixed sizes, strings symbolic (dim_param) */

/** @param {Dims} dims */
function tensorType(dims) {
  return {
    tensor_type: {
      elem_type: FLOAT,
      shape: { dim: dims.map((d) => (typeof d === "string" ? { dim_param: d } : { dim_value: d })) },
    },
  };
}

/** Graph under construction; `op()` returns the name of its (first) output for chaining. */
export class OnnxGraph {
  /** @param {string} name */
  constructor(name) {
    this.name = name;
    /** @type {object[]} */ this.nodes = [];
    /** @type {object[]} */ this.initializers = [];
    /** @type {object[]} */ this.inputs = [];
    /** @type {object[]} */ this.outputs = [];
    /** @type {Map<string, number>} */ this.domains = new Map([["", OPSET]]);
    this.counter = 0;
  }

  /** Declares a float32 graph input. @param {string} name @param {Dims} dims */
  input(name, dims) {
    this.inputs.push({ name, type: tensorType(dims) });
    return name;
  }

  /** Declares a float32 graph output (an existing value). @param {string} name @param {Dims} dims */
  output(name, dims) {
    this.outputs.push({ name, type: tensorType(dims) });
    return name;
  }

  /** A float32 initializer (weights), stored as raw little-endian bytes.
   * @param {string} name @param {number[]} dims @param {Float32Array} data */
  weight(name, dims, data) {
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    this.initializers.push({ name, dims, data_type: FLOAT, raw_data: bytes });
    return name;
  }

  /** A scalar float32 constant initializer. @param {number} value */
  scalar(value, name = this.fresh("c")) {
    return this.weight(name, [], new Float32Array([value]));
  }

  /** An int64 1-D initializer (shapes for Reshape). @param {number[]} values */
  int64s(values, name = this.fresh("i64")) {
    this.initializers.push({ name, dims: [values.length], data_type: INT64, int64_data: values });
    return name;
  }

  /** @param {string} prefix */
  fresh(prefix) {
    return `${prefix}_${this.counter++}`;
  }

  /**
   * Appends a node. Returns its output name (`outputs[0]`).
   * @param {string} opType
   * @param {string[]} inputs
   * @param {{ attrs?: Record<string, object>, outputs?: string[], domain?: string, domainVersion?: number }} [opts]
   */
  op(opType, inputs, opts = {}) {
    const outputs = opts.outputs ?? [this.fresh(opType.toLowerCase())];
    const domain = opts.domain ?? "";
    if (domain !== "") this.domains.set(domain, opts.domainVersion ?? 1);
    const attribute = Object.entries(opts.attrs ?? {}).map(([name, a]) => ({ name, ...a }));
    this.nodes.push({ op_type: opType, name: this.fresh(`n_${opType}`), input: inputs, output: outputs, attribute, domain });
    return outputs[0];
  }

  /** Serialises the model. @returns {Uint8Array} */
  toBytes() {
    const model = {
      ir_version: IR_VERSION,
      producer_name: "shrew-bench",
      producer_version: "1",
      opset_import: [...this.domains].map(([domain, version]) => ({ domain, version })),
      graph: {
        name: this.name,
        node: this.nodes,
        initializer: this.initializers,
        input: this.inputs,
        output: this.outputs,
      },
    };
    const err = ModelProto.verify(model);
    if (err) throw new Error(`invalid ONNX model ${this.name}: ${err}`);
    return ModelProto.encode(ModelProto.fromObject(model)).finish();
  }
}

/** Decodes model bytes back to a plain object (for tests). @param {Uint8Array} bytes */
export function decodeModel(bytes) {
  return ModelProto.toObject(ModelProto.decode(bytes), { longs: Number, bytes: Array });
}
