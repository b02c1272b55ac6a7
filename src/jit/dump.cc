#include "jit/dump.h"

#include <cstdio>
#include <span>
#include <vector>

#include "ir/dump.h"
#include "ir/op.h"

namespace shrew::jit {
namespace {

std::string Slot(SlotId s) { return "%" + std::to_string(s); }

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string ShapeText(const BindingPlan* plan, const CompiledGraph& cg, size_t s) {
  if (plan != nullptr) {
    return std::string(ir::DTypeName(plan->slot_dtypes[s])) + runtime::ShapeToString(plan->slot_shapes[s]);
  }
  return cg.graph.node(cg.slot_node[s]).type.ToString();
}

// The transpose folded into the product instruction `in` computes
// (transpose_fold.h), or null.
const ir::Node* FoldedTranspose(const CompiledGraph& cg, const Instr& in) {
  const ir::NodeId t = cg.TransposedB(in.fused_node != ir::kNoNode ? in.fused_node : in.node);
  return t == ir::kNoNode ? nullptr : &cg.graph.node(t);
}

// Per slot, the instruction that writes it (null: fused away). One pass
// over the tape: a search per slot made dumps quadratic (9.5 s for a
// 128,000-instruction plan).
std::vector<const Instr*> Producers(const CompiledGraph& cg) {
  std::vector<const Instr*> producers(static_cast<size_t>(cg.num_slots), nullptr);
  for (const Instr& in : cg.tape.instrs) {
    const size_t s = static_cast<size_t>(in.dst);
    if (in.opcode != Opcode::kFree && s < producers.size() && producers[s] == nullptr) producers[s] = &in;
  }
  return producers;
}

// Per buffer of the plan, the slots it holds and the instructions whose
// workspace it is, in increasing order. One pass each: a scan of every slot
// per buffer made dumps quadratic (2.9 s for a graph of 32,000 outputs).
struct BufferMembers {
  std::vector<std::vector<SlotId>> slots;
  std::vector<std::vector<size_t>> workspaces;
};

BufferMembers MembersOf(const BindingPlan& plan) {
  const size_t n = plan.buffers.records.size();
  BufferMembers m{std::vector<std::vector<SlotId>>(n), std::vector<std::vector<size_t>>(n)};
  for (size_t s = 0; s < plan.buffers.slot_buffer.size(); ++s) {
    const int32_t b = plan.buffers.slot_buffer[s];
    if (b >= 0 && static_cast<size_t>(b) < n) m.slots[static_cast<size_t>(b)].push_back(static_cast<SlotId>(s));
  }
  for (size_t i = 0; i < plan.buffers.workspace_buffer.size(); ++i) {
    const int32_t b = plan.buffers.workspace_buffer[i];
    if (b >= 0 && static_cast<size_t>(b) < n) m.workspaces[static_cast<size_t>(b)].push_back(i);
  }
  return m;
}

}  // namespace

std::string DumpInstr(const CompiledGraph& cg, const Instr& in) {
  const ir::Node& node = cg.graph.node(in.node);
  std::string op;
  switch (in.opcode) {
    case Opcode::kFree:
      return "free " + Slot(in.dst);
    case Opcode::kLoadInput:
      return "load_input " + Slot(in.dst) + " <- " + node.name;
    case Opcode::kLoadParam:
      return "load_param " + Slot(in.dst) + " <- " + cg.name + "/" + node.name;
    case Opcode::kCopy:
      op = node.op == ir::OpKind::kIdentity ? "copy" : ir::DumpOpWithAttrs(node);
      break;
    default:
      op = ir::DumpOpWithAttrs(node);
      if (in.fused_node != ir::kNoNode) op = ir::DumpOpWithAttrs(cg.graph.node(in.fused_node)) + "+" + op;
      if (const ir::Node* t = FoldedTranspose(cg, in)) op = ir::DumpOpWithAttrs(*t) + "+" + op;
      break;
  }
  std::string s = op + " " + Slot(in.dst);
  std::span<const SlotId> ops = cg.tape.OperandsOf(in);
  for (size_t k = 0; k < ops.size(); ++k) s += (k == 0 ? " <- " : ", ") + Slot(ops[k]);
  return s;
}

std::string DumpCompiledGraph(const CompiledGraph& cg, const Executor* ex) {
  const CompileStats st = ex != nullptr ? ex->stats() : cg.stats;
  const BindingPlan* plan = ex != nullptr ? ex->plan() : nullptr;
  std::string out = "jit " + cg.name + "\n";
  out += "stats: instructions=" + std::to_string(st.num_instructions) + " source_nodes=" +
         std::to_string(st.num_source_nodes) + " slots=" + std::to_string(st.num_slots) + " reused=" +
         std::to_string(st.num_reused) + " frees=" + std::to_string(st.num_frees) + " fused=" +
         std::to_string(st.num_fused) + " arena_bytes=" + std::to_string(st.arena_bytes) + " compile_us=" +
         std::to_string(st.compile_time_us) + "\n";
  for (size_t i = 0; i < cg.tape.instrs.size(); ++i) {
    out += "  " + std::to_string(i) + ": " + DumpInstr(cg, cg.tape.instrs[i]) + "\n";
  }
  out += "outputs: ";
  for (size_t i = 0; i < cg.outputs.size(); ++i) {
    out += (i == 0 ? "" : ", ") + cg.outputs[i].first + "=" + Slot(cg.outputs[i].second);
  }
  out += "\nvalues:\n";
  const std::vector<const Instr*> producers = Producers(cg);
  for (size_t s = 0; s < static_cast<size_t>(cg.num_slots); ++s) {
    const ir::Node& node = cg.graph.node(cg.slot_node[s]);
    out += "  " + Slot(static_cast<SlotId>(s)) + " " + node.name + ": " + ShapeText(plan, cg, s);
    const Instr* in = producers[s];
    if (in == nullptr) {
      out += " fused away\n";
      continue;
    }
    if (in->opcode == Opcode::kLoadParam) out += " param";
    if (in->opcode == Opcode::kConstant) out += " constant";
    if (plan != nullptr) {
      const int32_t b = plan->buffers.slot_buffer[s];
      if (b >= 0) {
        out += " arena @" + std::to_string(plan->plan.offsets[static_cast<size_t>(b)]) + " +" +
               std::to_string(plan->slot_bytes[s]);
      }
      if (plan->buffers.in_place_of[s] != kNoSlot) out += " in-place over " + Slot(plan->buffers.in_place_of[s]);
    }
    if (in->opcode == Opcode::kCopy) out += " alias of " + Slot(cg.tape.OperandsOf(*in)[0]);
    if (in->opcode == Opcode::kLoadInput) out += " input";
    if (in->kernel >= 0) {
      const CompiledKernel& ck = cg.kernels[static_cast<size_t>(in->kernel)];
      out += std::string(" kernel=") + ck.kernel->impl_name();
      if (ck.ref) out += " ref";
    }
    out += "\n";
  }
  if (plan == nullptr) {
    out += "plan: not yet bound\n";
    return out;
  }
  const MemoryPlan& mp = plan->plan;
  out += "plan: arena_bytes=" + std::to_string(mp.arena_bytes) + " lower_bound=" + std::to_string(mp.lower_bound) +
         " naive=" + std::to_string(mp.naive) + " reused=" + std::to_string(mp.num_reused) + " in_place=" +
         std::to_string(plan->buffers.num_in_place) + " aliases=" + std::to_string(plan->buffers.num_aliases) +
         " buffers=" + std::to_string(plan->buffers.records.size()) + " strategy=" +
         (mp.greedy ? "greedy" : "first_fit") + " ref_kernels=" + std::to_string(st.num_ref_kernels) + "\n";
  const BufferMembers members = MembersOf(*plan);
  for (size_t b = 0; b < plan->buffers.records.size(); ++b) {
    const BufferRecord& r = plan->buffers.records[b];
    out += "  buffer " + std::to_string(b) + ": @" + std::to_string(mp.offsets[b]) + " +" + std::to_string(r.size) +
           " live [" + std::to_string(r.first) + ", " + std::to_string(r.last) + "]";
    std::string slots;
    for (SlotId s : members.slots[b]) slots += " " + Slot(s);
    for (size_t i : members.workspaces[b]) slots += " workspace of " + std::to_string(i);
    out += (slots.empty() ? "" : " slots" + slots) + "\n";
  }
  return out;
}

std::string DumpPlanJson(const CompiledGraph& cg, const Executor* ex) {
  const BindingPlan* plan = ex != nullptr ? ex->plan() : nullptr;
  std::string out = "{\"graph\": " + JsonString(cg.name) + ", \"bound\": " + (plan ? "true" : "false");
  if (plan == nullptr) return out + ", \"buffers\": [], \"values\": []}";
  const MemoryPlan& mp = plan->plan;
  out += ", \"arena_bytes\": " + std::to_string(mp.arena_bytes) + ", \"lower_bound\": " +
         std::to_string(mp.lower_bound) + ", \"naive\": " + std::to_string(mp.naive) + ", \"reused\": " +
         std::to_string(mp.num_reused) + ", \"buffers\": [";
  const BufferMembers members = MembersOf(*plan);
  for (size_t b = 0; b < plan->buffers.records.size(); ++b) {
    const BufferRecord& r = plan->buffers.records[b];
    std::string slots;
    const SlotId first_slot = members.slots[b].empty() ? kNoSlot : members.slots[b].front();
    for (SlotId s : members.slots[b]) slots += (slots.empty() ? "" : ", ") + std::to_string(s);
    const char* kind = plan->buffers.buffer_is_input[b] ? "input" : first_slot == kNoSlot ? "workspace" : "value";
    out += std::string(b == 0 ? "" : ", ") + "{\"id\": " + std::to_string(b) + ", \"kind\": \"" + kind +
           "\", \"slot\": " + std::to_string(first_slot) + ", \"slots\": [" + slots + "], \"first\": " +
           std::to_string(r.first) + ", \"last\": " + std::to_string(r.last) + ", \"offset\": " +
           std::to_string(mp.offsets[b]) + ", \"size\": " + std::to_string(r.size) + "}";
  }
  out += "], \"values\": [";
  const std::vector<const Instr*> producers = Producers(cg);
  for (size_t s = 0; s < static_cast<size_t>(cg.num_slots); ++s) {
    const ir::Node& node = cg.graph.node(cg.slot_node[s]);
    const Instr* in = producers[s];
    const int32_t b = plan->buffers.slot_buffer[s];
    std::string shape = "[";
    for (size_t k = 0; k < plan->slot_shapes[s].size(); ++k) {
      shape += (k == 0 ? "" : ", ") + std::to_string(plan->slot_shapes[s][k]);
    }
    shape += "]";
    const SlotId alias = (in != nullptr && in->opcode == Opcode::kCopy) ? cg.tape.OperandsOf(*in)[0] : kNoSlot;
    std::string kernel = (in != nullptr && in->kernel >= 0)
                             ? JsonString(cg.kernels[static_cast<size_t>(in->kernel)].kernel->impl_name())
                             : "null";
    out += std::string(s == 0 ? "" : ", ") + "{\"slot\": " + std::to_string(s) + ", \"node\": " +
           std::to_string(node.id) + ", \"name\": " + JsonString(node.name) + ", \"op\": " +
           JsonString(in == nullptr ? "fused" : in->opcode == Opcode::kLoadInput ? "load_input"
                                  : in->opcode == Opcode::kLoadParam         ? "load_param"
                                                                             : ir::OpName(node.op)) +
           ", \"shape\": " + shape + ", \"dtype\": " + JsonString(ir::DTypeName(plan->slot_dtypes[s])) +
           ", \"buffer\": " + std::to_string(b) + ", \"offset\": " +
           (b >= 0 ? std::to_string(mp.offsets[static_cast<size_t>(b)]) : std::string("null")) +
           ", \"size\": " + std::to_string(plan->slot_bytes[s]) + ", \"produced_at\": " +
           std::to_string(cg.lifetimes[s].produced_at) + ", \"last_used_at\": " +
           std::to_string(cg.lifetimes[s].last_used_at) + ", \"in_place_of\": " +
           std::to_string(plan->buffers.in_place_of[s]) + ", \"alias_of\": " + std::to_string(alias) +
           ", \"kernel\": " + kernel + "}";
  }
  return out + "]}";
}

namespace {

std::string SpanJson(const diag::Span& s) {
  return "{\"line\": " + std::to_string(s.line) + ", \"column\": " + std::to_string(s.column) + ", \"length\": " +
         std::to_string(s.length) + ", \"offset\": " + std::to_string(s.offset) + "}";
}

std::string NodeRefJson(const ir::Node& n) {
  return "{\"id\": " + std::to_string(n.id) + ", \"name\": " + JsonString(n.name) + ", \"op\": " +
         JsonString(ir::OpName(n.op)) + ", \"span\": " + SpanJson(n.span) + "}";
}

std::string IntList(std::span<const SlotId> v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) s += (k == 0 ? "" : ", ") + std::to_string(v[k]);
  return s + "]";
}

// The op column of the tape view: what the instruction computes.
std::string InstrOp(const CompiledGraph& cg, const Instr& in) {
  const ir::Node& node = cg.graph.node(in.node);
  switch (in.opcode) {
    case Opcode::kFree: return "free";
    case Opcode::kLoadInput: return "load_input";
    case Opcode::kLoadParam: return "load_param";
    case Opcode::kCopy:
      if (node.op == ir::OpKind::kIdentity) return "copy";
      break;
    default: break;
  }
  std::string op = ir::OpName(node.op);
  if (in.fused_node != ir::kNoNode) op = std::string(ir::OpName(cg.graph.node(in.fused_node).op)) + "+" + op;
  if (const ir::Node* t = FoldedTranspose(cg, in)) op = std::string(ir::OpName(t->op)) + "+" + op;
  return op;
}

}  // namespace

std::string DumpTapeJson(const CompiledGraph& cg, const Executor* ex) {
  const BindingPlan* plan = ex != nullptr ? ex->plan() : nullptr;
  std::string out = "{\"graph\": " + JsonString(cg.name) + ", \"bound\": " + (plan ? "true" : "false") +
                    ", \"num_slots\": " + std::to_string(cg.num_slots) + ", \"outputs\": [";
  for (size_t i = 0; i < cg.outputs.size(); ++i) {
    out += std::string(i == 0 ? "" : ", ") + "{\"name\": " + JsonString(cg.outputs[i].first) + ", \"slot\": " +
           std::to_string(cg.outputs[i].second) + "}";
  }
  out += "], \"instructions\": [";
  for (size_t i = 0; i < cg.tape.instrs.size(); ++i) {
    const Instr& in = cg.tape.instrs[i];
    const ir::Node& node = cg.graph.node(in.node);
    const size_t s = static_cast<size_t>(in.dst);
    const ir::Node* folded = in.opcode == Opcode::kCompute ? FoldedTranspose(cg, in) : nullptr;
    // A free's node is the value it frees: freeing a fused op's result is no fused instruction (§7.6).
    const bool fused = in.opcode != Opcode::kFree &&
                       (in.fused_node != ir::kNoNode || ir::HasFlag(node.op, ir::kFlagFused) || folded != nullptr);
    std::string shape = "null", dtype = JsonString(ir::DTypeName(node.type.dtype()));
    std::string offset = "null", size = "null", in_place = "null", workspace = "null";
    if (plan != nullptr) {
      shape = "[";
      for (size_t k = 0; k < plan->slot_shapes[s].size(); ++k) {
        shape += (k == 0 ? "" : ", ") + std::to_string(plan->slot_shapes[s][k]);
      }
      shape += "]";
      dtype = JsonString(ir::DTypeName(plan->slot_dtypes[s]));
      const int32_t b = plan->buffers.slot_buffer[s];
      if (b >= 0) {
        offset = std::to_string(plan->plan.offsets[static_cast<size_t>(b)]);
        size = std::to_string(plan->slot_bytes[s]);
      }
      if (plan->buffers.in_place_of[s] != kNoSlot) in_place = std::to_string(plan->buffers.in_place_of[s]);
      const int32_t wb = i < plan->buffers.workspace_buffer.size() ? plan->buffers.workspace_buffer[i] : -1;
      if (wb >= 0) {
        workspace = "{\"offset\": " + std::to_string(plan->plan.offsets[static_cast<size_t>(wb)]) + ", \"size\": " +
                    std::to_string(plan->buffers.records[static_cast<size_t>(wb)].size) + "}";
      }
    } else if (!node.type.is_unknown()) {
      shape = "[";
      for (int k = 0; k < node.type.rank(); ++k) {
        const ir::Dim& d = node.type.dim(k);
        shape += (k == 0 ? "" : ", ") + (d.is_fixed() ? std::to_string(d.size()) : JsonString(d.ToString()));
      }
      shape += "]";
    }
    std::string kernel = "null";
    bool ref = false;
    if (in.kernel >= 0) {
      const CompiledKernel& ck = cg.kernels[static_cast<size_t>(in.kernel)];
      kernel = JsonString(ck.kernel->impl_name());
      ref = ck.ref;
    }
    std::string fused_nodes = "[";
    std::string spans = "[" + SpanJson(node.span);
    // Folded nodes in the order they compute: the transpose, the product.
    if (folded != nullptr) {
      fused_nodes += NodeRefJson(*folded);
      spans += ", " + SpanJson(folded->span);
    }
    if (in.fused_node != ir::kNoNode) {
      const ir::Node& f = cg.graph.node(in.fused_node);
      fused_nodes += std::string(folded != nullptr ? ", " : "") + NodeRefJson(f);
      spans += ", " + SpanJson(f.span);
    }
    fused_nodes += "]";
    spans += "]";
    std::span<const SlotId> operands = cg.tape.OperandsOf(in);
    const SlotId alias = in.opcode == Opcode::kCopy && !operands.empty() ? operands[0] : kNoSlot;
    out += std::string(i == 0 ? "" : ", ") + "{\"index\": " + std::to_string(i) + ", \"time\": " +
           std::to_string(in.time) + ", \"opcode\": " + JsonString(OpcodeName(in.opcode)) + ", \"op\": " +
           JsonString(InstrOp(cg, in)) + ", \"text\": " + JsonString(DumpInstr(cg, in)) + ", \"node\": " +
           NodeRefJson(node) + ", \"operands\": " + IntList(operands) + ", \"results\": [" +
           std::to_string(in.dst) + "], \"shape\": " + shape + ", \"dtype\": " + dtype + ", \"offset\": " + offset +
           ", \"size\": " + size + ", \"in_place_of\": " + in_place + ", \"alias_of\": " +
           (alias == kNoSlot ? std::string("null") : std::to_string(alias)) + ", \"workspace\": " + workspace +
           ", \"fused\": " + (fused ? "true" : "false") + ", \"fused_nodes\": " + fused_nodes + ", \"kernel\": " +
           kernel + ", \"ref\": " + (ref ? "true" : "false") + ", \"spans\": " + spans + "}";
  }
  return out + "]}";
}

}  // namespace shrew::jit
