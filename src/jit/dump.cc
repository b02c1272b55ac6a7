#include "jit/dump.h"

#include <cstdio>

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

const Instr* Producer(const CompiledGraph& cg, SlotId s) {
  for (const Instr& in : cg.tape.instrs) {
    if (in.dst == s && in.opcode != Opcode::kFree) return &in;
  }
  return nullptr;
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
  for (size_t s = 0; s < static_cast<size_t>(cg.num_slots); ++s) {
    const ir::Node& node = cg.graph.node(cg.slot_node[s]);
    out += "  " + Slot(static_cast<SlotId>(s)) + " " + node.name + ": " + ShapeText(plan, cg, s);
    const Instr* in = Producer(cg, static_cast<SlotId>(s));
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
  for (size_t b = 0; b < plan->buffers.records.size(); ++b) {
    const BufferRecord& r = plan->buffers.records[b];
    out += "  buffer " + std::to_string(b) + ": @" + std::to_string(mp.offsets[b]) + " +" + std::to_string(r.size) +
           " live [" + std::to_string(r.first) + ", " + std::to_string(r.last) + "]";
    std::string slots;
    for (size_t s = 0; s < plan->buffers.slot_buffer.size(); ++s) {
      if (plan->buffers.slot_buffer[s] == static_cast<int32_t>(b)) slots += " " + Slot(static_cast<SlotId>(s));
    }
    for (size_t i = 0; i < plan->buffers.workspace_buffer.size(); ++i) {
      if (plan->buffers.workspace_buffer[i] == static_cast<int32_t>(b)) slots += " workspace of " + std::to_string(i);
    }
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
  for (size_t b = 0; b < plan->buffers.records.size(); ++b) {
    const BufferRecord& r = plan->buffers.records[b];
    std::string slots;
    SlotId first_slot = kNoSlot;
    for (size_t s = 0; s < plan->buffers.slot_buffer.size(); ++s) {
      if (plan->buffers.slot_buffer[s] != static_cast<int32_t>(b)) continue;
      if (first_slot == kNoSlot) first_slot = static_cast<SlotId>(s);
      slots += (slots.empty() ? "" : ", ") + std::to_string(s);
    }
    const char* kind = plan->buffers.buffer_is_input[b] ? "input" : first_slot == kNoSlot ? "workspace" : "value";
    out += std::string(b == 0 ? "" : ", ") + "{\"id\": " + std::to_string(b) + ", \"kind\": \"" + kind +
           "\", \"slot\": " + std::to_string(first_slot) + ", \"slots\": [" + slots + "], \"first\": " +
           std::to_string(r.first) + ", \"last\": " + std::to_string(r.last) + ", \"offset\": " +
           std::to_string(mp.offsets[b]) + ", \"size\": " + std::to_string(r.size) + "}";
  }
  out += "], \"values\": [";
  for (size_t s = 0; s < static_cast<size_t>(cg.num_slots); ++s) {
    const ir::Node& node = cg.graph.node(cg.slot_node[s]);
    const Instr* in = Producer(cg, static_cast<SlotId>(s));
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

}  // namespace shrew::jit
