// Program's parameters (program.h): reading, writing in place (one tensor,
// or a whole blob all-or-nothing) and re-creating the kernels that packed
// what was written.
#include <cstring>
#include <optional>
#include <unordered_map>
#include <vector>

#include "api/input_ranges.h"
#include "api/param_blob.h"
#include "api/program.h"
#include "base/spelling.h"
#include "jit/compile.h"

namespace shrew {

using runtime::Tensor;

namespace {

// For a name that is not a parameter key: the keys it likely means — a
// bare name the scoped keys of that name ("w" → "Classifier/w") or of a
// near one ("w_1" → "Classifier/w1"); a scoped one the keys whose graph and
// name are each it or a likely typo of it ("Clasifier/w1"; not
// "Classifier/w3" → "Classifier/w1": a two-letter name has no typos) —
// then the first keys, so the caller sees how parameters are named.
// "; did you mean 'G/w1'?" of the keys `key` likely means (see UnknownParam), or "".
std::string ParamHint(const runtime::ParamMap& params, std::string_view key) {
  auto near = [](std::string_view typed, std::string_view known) {
    return typed == known || ClosestName(typed, std::span<const std::string_view>(&known, 1)).has_value();
  };
  const size_t slash = key.rfind('/');
  const std::string_view graph = slash == std::string_view::npos ? "" : key.substr(0, slash);
  const std::string_view name = key.substr(slash + 1);  // npos + 1 == 0
  std::vector<std::string> meant;
  for (const auto& [k, t] : params) {
    const size_t k_slash = k.rfind('/');
    const std::string_view k_name = std::string_view(k).substr(k_slash + 1);
    const std::string_view k_graph = k_slash == std::string::npos ? "" : std::string_view(k).substr(0, k_slash);
    if (near(name, k_name) && (slash == std::string_view::npos || near(graph, k_graph))) meant.push_back("'" + k + "'");
  }
  return meant.empty() ? "" : "; did you mean " + JoinNames(meant) + "?";
}

[[gnu::noinline, gnu::cold]] Status UnknownParam(const runtime::ParamMap& params, std::string_view key) {
  constexpr size_t kShown = 8;
  std::vector<std::string> first;
  for (const auto& [k, t] : params) {
    if (first.size() < kShown) first.push_back(k);
  }
  std::string msg = "no parameter '" + std::string(key) + "'" + HintBeforeList(ParamHint(params, key)) +
                    "its parameters: " + JoinNames(first);
  if (params.size() > kShown) msg += ", … (" + std::to_string(params.size()) + " in all)";
  return NotFound(msg);
}

Status BlobMismatch(const ParamRecord& rec, const std::string& expected) {
  // "parameter blob: " as its other errors: the CLI names the --params file before it.
  return InvalidArgument("parameter blob: parameter '" + rec.key + "': expected " + expected + ", the blob has " +
                         ir::DTypeName(rec.dtype) + runtime::ShapeToString(rec.shape));
}

}  // namespace

std::vector<std::pair<std::string, const Tensor*>> Program::Params() const {
  std::vector<std::pair<std::string, const Tensor*>> v;
  for (const auto& [k, t] : params_) v.emplace_back(k, &t);
  return v;
}

Result<Tensor> Program::GetParam(std::string_view key) const {
  auto it = params_.find(key);
  if (it == params_.end()) return UnknownParam(params_, key);
  return it->second.Clone();
}

Status Program::SetParam(std::string_view key, const Tensor& value) {
  auto it = params_.find(key);
  if (it == params_.end()) return UnknownParam(params_, key);
  Tensor& p = it->second;
  if (value.storage() != p.storage() || value.shape() != p.shape()) {
    return InvalidArgument("parameter '" + std::string(key) + "': expected " + p.TypeString() + ", got " +
                           value.TypeString());
  }
  // i8..u32 are held as i64 (OPS.md §1.3): a value the declared dtype cannot hold is refused, as for inputs.
  if (const std::optional<IntRange> range = NarrowIntRange(p.dtype())) {
    SHREW_RETURN_IF_ERROR(CheckIntRange(key, p.dtype(), *range, value.values<int64_t>(), nullptr, "parameter"));
  }
  // In place: kernels and plans keep pointing at the same storage.
  if (p.byte_size() > 0) std::memcpy(p.mutable_raw_data(), value.raw_data(), p.byte_size());
  const std::string written[] = {std::string(key)};
  return RefreshKernelsFor(written);
}

Status Program::RefreshKernelsFor(std::span<const std::string> keys) {
  Status first_error = Status::Ok();
  std::vector<ParamSlot> written;
  for (const std::string& key : keys) {
    auto it = param_slot_of_key_.find(key);
    if (it != param_slot_of_key_.end()) written.push_back(param_slots_[it->second]);
  }
  const jit::CompileOptions kernel_options = MakeKernelOptions();
  std::vector<int> changed;
  // Per run of keys of one graph (LoadParams's keys come sorted, so graph by graph).
  for (size_t w = 0; w < written.size();) {
    const size_t gi = written[w].graph;
    changed.clear();
    for (; w < written.size() && written[w].graph == gi; ++w) changed.push_back(static_cast<int>(written[w].param));
    Entry& e = graphs_[gi];
    if (e.deferred) {
      e.specialized.clear();  // they packed the old values
      ++e.generation;
      continue;
    }
    Status s = jit::RecreateKernelsForParams(e.compiled.get(), changed, kernel_options);
    if (!s.ok()) {
      // The graph's kernels are in an unknown state: rebuild it whole, and
      // still refresh the other graphs; the first error is returned.
      Status rebuilt = CompileOne(gi);
      if (rebuilt.ok()) PrepareStatic(gi);
      if (first_error.ok()) first_error = rebuilt.ok() ? s : rebuilt;
      continue;
    }
    e.executor->Invalidate();
  }
  return first_error;
}

std::vector<uint8_t> Program::SaveParams() const { return EncodeParamBlob(Params()); }

uint64_t Program::ParamsChecksum() const { return ParamBlobChecksum(Params()); }

Status Program::LoadParams(std::span<const uint8_t> blob) {
  Result<std::vector<std::string>> written = WriteParamBlob(blob);
  if (!written.ok()) return written.status();
  return RefreshKernelsFor(*written);
}

Status Program::CheckRecordShapes(std::span<const ParamRecord> records) const {
  std::unordered_map<std::string, const ir::Param*> declared;
  for (const ir::Graph& g : program_.graphs) {
    for (const ir::Param& p : g.params()) declared.emplace(runtime::ParamKey(g.name(), p.name), &p);
  }
  // In blob order, as WriteParamRecords reports.
  for (const ParamRecord& rec : records) {
    auto it = declared.find(rec.key);
    if (it == declared.end()) continue;  // reported by WriteParamRecords
    const ir::Param& p = *it->second;
    Result<runtime::Shape> shape = runtime::ResolveParamShape(p, options_.dims);
    if (!shape.ok()) continue;  // reported with its context by the initialisation
    if (rec.dtype != p.type.dtype() || rec.shape != *shape) {
      return BlobMismatch(rec, std::string(ir::DTypeName(p.type.dtype())) + runtime::ShapeToString(*shape));
    }
  }
  return Status::Ok();
}

Result<std::vector<std::string>> Program::WriteParamBlob(std::span<const uint8_t> blob) {
  Result<std::vector<ParamRecord>> records = DecodeParamBlob(blob);
  if (!records.ok()) return records.status();
  return WriteParamRecords(*records);
}

Result<std::vector<std::string>> Program::WriteParamRecords(std::span<const ParamRecord> records) {
  // Validate everything before writing anything (all-or-nothing).
  std::vector<Tensor*> targets;
  std::unordered_map<std::string_view, size_t> seen;  // keys, as CheckInputs' map
  for (const ParamRecord& rec : records) {
    auto it = params_.find(rec.key);
    if (it == params_.end()) {
      std::vector<std::string> keys;
      for (const auto& [k, t] : params_) keys.push_back(k);
      // The rule getParam's and setParam's errors follow: 'G/w' is no typo of 'G/k'.
      return InvalidArgument("parameter blob has '" + rec.key + "', which this program does not have" +
                             HintBeforeList(ParamHint(params_, rec.key)) + "its parameters: " + JoinNames(keys));
    }
    Tensor& p = it->second;
    if (rec.dtype != p.dtype() || rec.shape != p.shape()) return BlobMismatch(rec, p.TypeString());
    if (!seen.emplace(it->first, 0).second) return InvalidArgument("parameter blob has '" + rec.key + "' twice");
    if (const std::optional<IntRange> range = NarrowIntRange(p.dtype())) {
      // The record's bytes need not be 8-byte aligned.
      std::vector<int64_t> values(rec.data.size() / sizeof(int64_t));
      if (!values.empty()) std::memcpy(values.data(), rec.data.data(), values.size() * sizeof(int64_t));
      SHREW_RETURN_IF_ERROR(CheckIntRange(rec.key, p.dtype(), *range, values, nullptr, "parameter blob: parameter"));
    }
    targets.push_back(&p);
  }
  if (targets.size() != params_.size()) {
    std::vector<std::string> missing;
    for (auto& [k, t] : params_) {
      if (!seen.count(k)) missing.push_back(k);
    }
    return InvalidArgument("parameter blob has " + std::to_string(targets.size()) + " of this program's " +
                           std::to_string(params_.size()) + " parameters; missing: " + JoinNames(missing));
  }
  std::vector<std::string> keys;
  for (size_t i = 0; i < targets.size(); ++i) {
    const ParamRecord& rec = records[i];
    if (!rec.data.empty()) std::memcpy(targets[i]->mutable_raw_data(), rec.data.data(), rec.data.size());
    keys.push_back(rec.key);
  }
  return keys;
}

}  // namespace shrew
