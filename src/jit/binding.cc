#include "jit/binding.h"

#include <map>

namespace shrew::jit {

Result<ir::DimBindings> BindInputs(const ir::Graph& graph, const ir::DimBindings& config_dims,
                                   std::span<const InputDesc> inputs, InputIssue* issue) {
  ir::DimBindings dims = config_dims;
  std::map<std::string, std::string, std::less<>> bound_by;  // dim name -> input that bound it
  for (size_t i = 0; i < graph.inputs().size() && i < inputs.size(); ++i) {
    const InputDesc& in = inputs[i];
    if (!in.present) continue;
    const ir::Node& node = graph.node(graph.inputs()[i].node);
    const std::string who = "input '" + node.name + "' of graph '" + graph.name() + "': ";
    const ir::Type& t = node.type;
    if (!t.is_tensor()) continue;  // nothing declared to check against
    // A name the dims option fixed (`dims: {B: 2}`, setDims) is a size in
    // the type now (the shape to pass); the declaration still names it.
    const ir::Type* declared =
        node.declared_type && node.declared_type->is_tensor() && node.declared_type->rank() == t.rank()
            ? &*node.declared_type
            : nullptr;
    const std::string expected = ir::DimsToString(t.dims());
    const std::string actual = runtime::ShapeToString(in.shape);
    auto report = [&](std::string e, std::string a) {
      if (issue != nullptr) *issue = {node.name, std::move(e), std::move(a)};
    };
    if (ir::StorageOf(in.dtype) != ir::StorageOf(t.dtype())) {
      report(ir::DTypeName(t.dtype()), ir::DTypeName(in.dtype));
      return InvalidArgument(who + "expected dtype " + ir::DTypeName(t.dtype()) + ", got " + ir::DTypeName(in.dtype) +
                             " (declared " + t.ToString() + ")");
    }
    if (static_cast<int>(in.shape.size()) != t.rank()) {
      report(expected, actual);
      return InvalidArgument(who + "expected rank " + std::to_string(t.rank()) + ", got rank " +
                             std::to_string(in.shape.size()) + ": expected " + expected + ", got " + actual);
    }
    for (int d = 0; d < t.rank(); ++d) {
      const ir::Dim& dim = t.dim(d);
      const int64_t size = in.shape[static_cast<size_t>(d)];
      if (dim.is_fixed() && dim.size() != size) {
        report(expected, actual);
        if (declared != nullptr && declared->dim(d).is_symbolic()) {
          return InvalidArgument(who + "expected " + expected + ", got " + actual + ": dimension '" +
                                 declared->dim(d).name() + "' is " + std::to_string(size) + " here but " +
                                 std::to_string(dim.size()) + " (fixed by the dims it was compiled with)");
        }
        return InvalidArgument(who + "expected " + expected + ", got " + actual + ": dimension " + std::to_string(d) +
                               " must be " + std::to_string(dim.size()));
      }
      if (!dim.is_symbolic()) continue;
      auto it = dims.find(dim.name());
      if (it == dims.end()) {
        dims.emplace(dim.name(), size);
        bound_by.emplace(dim.name(), node.name);
        continue;
      }
      if (it->second != size) {
        report(expected, actual);
        auto by = bound_by.find(dim.name());
        const std::string source = by == bound_by.end() ? std::string("bound by the runtime configuration")
                                                        : "bound by input '" + by->second + "'";
        return InvalidArgument(who + "expected " + expected + ", got " + actual + ": dimension '" + dim.name() +
                               "' is " + std::to_string(size) + " here but " + std::to_string(it->second) + " (" +
                               source + ")");
      }
    }
  }
  return dims;
}

runtime::Shape ConcreteShape(const ir::Type& type, const ir::DimBindings& dims, int64_t fallback) {
  runtime::Shape s;
  if (!type.is_tensor()) return s;
  for (const ir::Dim& d : type.dims()) {
    if (d.is_fixed()) {
      s.push_back(d.size());
    } else if (d.is_symbolic()) {
      auto it = dims.find(d.name());
      s.push_back(it == dims.end() ? fallback : it->second);
    } else {
      s.push_back(fallback);
    }
  }
  return s;
}

}  // namespace shrew::jit
