// The program bundle: a compiled program in one file, so that an application
// can ship a model and run it without the compiler (`shrew build`, and the
// run-only wasm module). It holds the optimised IR program, the options its
// types were specialised with (configured dims, default float dtype, seed),
// every parameter value (a parameter blob, api/param_blob.h) and, when known,
// the source text, so that errors found while loading or running still name
// file, line and column.
//
// Format, version 6 (little-endian, no padding; base/byte_io.h):
//   magic "SHRWBND1", version u32,
//   settings: seed u64, default dtype, configured dims, optimiser counters,
//             optimiser passes u8 (bit 0: optimised; bits 1-5: DCE,
//             identity, constant folding, CSE, fusion enabled) — a graph
//             compiled per input signature is optimised again with them —,
//             inference dims (those the IR's types were inferred with:
//             ProgramOptions::specialized_with; dims are count u32, then
//             name + value i64 each),
//   source: present u8 [filename, text],
//   program: @model metadata, @config values, type aliases, @custom_op
//            names, @training and @inference settings, then every graph
//            (nodes with op names, operands, types, attributes, a flags
//            byte: bit 0 a repeat body follows, bit 1 a repeat's unrolled
//            iteration, bit 2 a fused producer's name and span follow,
//            ir::Node::fused_producer; spans;
//            inputs, outputs, parameters with their init specs, assertions
//            with a byte: 1 when the condition reads a graph value),
//   params: u64 length + a parameter blob.
// Versions 1 (no passes byte: optimised with every pass when the counters
// show a round), 2 (no inference dims: the configured dims were both), 3
// (the flags byte only 0 or 1: no iteration marks) and 4 (no assertion
// byte: a condition naming a node of the optimised graph reads values) and 5
// (flags bit 2 unused: messages blame a fused relu's statement) are still read. Strings are u32 length + bytes; ops and
// dtypes are stored by name, so a runtime that lacks one says which.
//
// LoadBundle trusts nothing: every length is checked against the bytes that
// remain and every index against its table (lists are read item by item, so
// a hostile count cannot reserve memory), then the program goes through the
// same checks as a compiled one — structural validation and shape inference
// with the stored inference dims — and every node's inferred type must equal its
// stored type; only then are parameters written and kernels created.
// Any failure is an InvalidArgument "bundle: …" naming the graph and node;
// it never aborts.
//
//   std::vector<uint8_t> bytes = EncodeBundle(*program, compiled.source.get());
//   Result<std::unique_ptr<Program>> p = LoadBundle(bytes);   // no compiler involved
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "api/program.h"
#include "base/status.h"
#include "diag/source.h"
#include "opt/pipeline.h"

namespace shrew {

inline constexpr char kBundleMagic[8] = {'S', 'H', 'R', 'W', 'B', 'N', 'D', '1'};
inline constexpr uint32_t kBundleVersion = 6;

// The program's IR, configured and inference dims, default dtype and seed, its current
// parameter values, `source` (may be null) and the optimiser's counters.
std::vector<uint8_t> EncodeBundle(const Program& program, const diag::SourceFile* source,
                                  const opt::OptStats& opt_stats = {});

// What a bundle holds besides the program.
struct BundleInfo {
  std::unique_ptr<diag::SourceFile> source;  // null when the bundle has none
  opt::OptStats opt_stats;
};

// A runnable program from a bundle. `options` gives what the loader chooses
// (training, max_tensor_bytes, kernels, checks); dims, specialized_with,
// default_dtype and seed come from the bundle and override options'. `info` (optional) receives
// the source and counters. `bytes_read`, if given, is called once nothing
// reads `bytes` any more (the parameters are written, no weight is packed
// yet): a caller that owns the bytes frees them there, so the packed copies
// reuse that memory instead of touching fresh pages.
Result<std::unique_ptr<Program>> LoadBundle(std::span<const uint8_t> bytes, ProgramOptions options = {},
                                            BundleInfo* info = nullptr,
                                            const std::function<void()>& bytes_read = {});

}  // namespace shrew
