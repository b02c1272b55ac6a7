#include "jit/liveness.h"

#include <algorithm>

#include "base/check.h"

namespace shrew::jit {

const char* OpcodeName(Opcode op) {
  switch (op) {
    case Opcode::kLoadInput: return "load_input";
    case Opcode::kLoadParam: return "load_param";
    case Opcode::kConstant: return "constant";
    case Opcode::kCopy: return "copy";
    case Opcode::kCompute: return "compute";
    case Opcode::kCall: return "call";
    case Opcode::kFree: return "free";
  }
  return "?";
}

int Tape::NumSteps() const {
  int n = 0;
  for (const Instr& in : instrs) n += in.opcode != Opcode::kFree;
  return n;
}

std::vector<ValueLifetime> ComputeLifetimes(const Tape& tape, std::span<const ir::NodeId> slot_node,
                                            std::span<const SlotId> output_slots) {
  std::vector<ValueLifetime> life(slot_node.size());
  for (size_t s = 0; s < slot_node.size(); ++s) life[s].node = slot_node[s];
  for (const Instr& in : tape.instrs) {
    SHREW_CHECK(in.opcode != Opcode::kFree);
    ValueLifetime& d = life[static_cast<size_t>(in.dst)];
    d.produced_at = in.time;
    d.last_used_at = std::max(d.last_used_at, in.time);
    // Constants are not external (§7.4): their slot is freed after its last
    // read like any value's (the free only empties the slot; the stored
    // constant stays and the next run's `constant` refills it).
    d.is_external = in.opcode == Opcode::kLoadInput || in.opcode == Opcode::kLoadParam;
    for (SlotId s : tape.OperandsOf(in)) {
      ValueLifetime& v = life[static_cast<size_t>(s)];
      v.last_used_at = std::max(v.last_used_at, in.time);
    }
  }
  for (SlotId s : output_slots) life[static_cast<size_t>(s)].is_output = true;
  return life;
}

int InsertFrees(Tape* tape, std::span<const ValueLifetime> lifetimes) {
  const int steps = static_cast<int>(tape->instrs.size());
  const int last = steps - 1;
  // frees_after[t]: slots to free after time t, collected in slot order and
  // emitted in decreasing order (§7.4).
  std::vector<std::vector<SlotId>> frees_after(static_cast<size_t>(std::max(steps, 0)));
  int count = 0;
  for (size_t s = 0; s < lifetimes.size(); ++s) {
    const ValueLifetime& v = lifetimes[s];
    if (v.produced_at < 0 || v.is_external || v.is_output || v.last_used_at >= last) continue;
    frees_after[static_cast<size_t>(v.last_used_at)].push_back(static_cast<SlotId>(s));
    ++count;
  }
  std::vector<Instr> out;
  out.reserve(tape->instrs.size() + static_cast<size_t>(count));
  for (const Instr& in : tape->instrs) {
    out.push_back(in);
    std::vector<SlotId>& f = frees_after[static_cast<size_t>(in.time)];
    for (auto it = f.rbegin(); it != f.rend(); ++it) {
      Instr free;
      free.opcode = Opcode::kFree;
      free.dst = *it;
      free.time = in.time;
      free.node = lifetimes[static_cast<size_t>(*it)].node;
      out.push_back(free);
    }
  }
  tape->instrs = std::move(out);
  return count;
}

BufferAssignment AssignBuffers(const Tape& tape, std::span<const ValueLifetime> lifetimes,
                               std::span<const uint64_t> slot_bytes, std::span<const uint64_t> workspace_bytes,
                               const InPlaceFn& can_run_in_place) {
  const size_t num_slots = lifetimes.size();
  BufferAssignment a;
  a.slot_buffer.assign(num_slots, -1);
  a.slot_root.assign(num_slots, kNoSlot);
  a.in_place_of.assign(num_slots, kNoSlot);
  a.workspace_buffer.assign(tape.instrs.size(), -1);
  std::vector<uint8_t> has_output;  // per buffer
  int end = 0;
  for (const Instr& in : tape.instrs) end = std::max(end, in.time);

  auto new_buffer = [&](uint64_t size, int32_t first, int32_t last, bool input) {
    a.records.push_back({size, first, last});
    a.buffer_is_input.push_back(input ? 1 : 0);
    has_output.push_back(0);
    return static_cast<int32_t>(a.records.size() - 1);
  };
  // The last time a slot's storage must hold its value.
  auto needed_until = [&](SlotId s) {
    const ValueLifetime& v = lifetimes[static_cast<size_t>(s)];
    return v.is_output ? end : v.last_used_at;
  };
  auto attach = [&](SlotId s, int32_t b) {
    a.slot_buffer[static_cast<size_t>(s)] = b;
    BufferRecord& r = a.records[static_cast<size_t>(b)];
    r.last = std::max(r.last, needed_until(s));
    if (lifetimes[static_cast<size_t>(s)].is_output) has_output[static_cast<size_t>(b)] = 1;
  };

  for (size_t i = 0; i < tape.instrs.size(); ++i) {
    const Instr& in = tape.instrs[i];
    const SlotId dst = in.dst;
    const size_t d = static_cast<size_t>(dst);
    std::span<const SlotId> ops = tape.OperandsOf(in);
    switch (in.opcode) {
      case Opcode::kFree:
        break;
      case Opcode::kLoadInput:
        a.slot_root[d] = dst;
        attach(dst, new_buffer(slot_bytes[d], 0, end, /*input=*/true));
        break;
      case Opcode::kLoadParam:
      case Opcode::kConstant:
        a.slot_root[d] = dst;
        break;
      case Opcode::kCopy: {
        const SlotId src = ops[0];
        a.slot_root[d] = a.slot_root[static_cast<size_t>(src)];
        const int32_t b = a.slot_buffer[static_cast<size_t>(src)];
        if (b >= 0) {
          attach(dst, b);
          ++a.num_aliases;
        }
        break;
      }
      case Opcode::kCompute:
      case Opcode::kCall: {
        a.slot_root[d] = dst;
        if (i < workspace_bytes.size() && workspace_bytes[i] > 0) {
          a.workspace_buffer[i] = new_buffer(workspace_bytes[i], in.time, in.time, false);
        }
        int32_t chosen = -1;
        for (size_t k = 0; k < ops.size() && chosen < 0; ++k) {
          const SlotId s = ops[k];
          const int32_t b = a.slot_buffer[static_cast<size_t>(s)];
          if (b < 0 || a.buffer_is_input[static_cast<size_t>(b)] || has_output[static_cast<size_t>(b)]) continue;
          const BufferRecord& r = a.records[static_cast<size_t>(b)];
          if (r.last != in.time || slot_bytes[static_cast<size_t>(s)] != slot_bytes[d] || slot_bytes[d] == 0 ||
              r.size < slot_bytes[d]) {
            continue;
          }
          if (!can_run_in_place(static_cast<int>(i), static_cast<int>(k))) continue;
          chosen = b;
          a.in_place_of[d] = s;
        }
        if (chosen >= 0) {
          attach(dst, chosen);
          ++a.num_in_place;
        } else {
          attach(dst, new_buffer(slot_bytes[d], in.time, in.time, false));
        }
        break;
      }
    }
  }
  return a;
}

Status CheckBufferAssignment(const Tape& tape, std::span<const ValueLifetime> lifetimes,
                             const BufferAssignment& a, std::span<const uint64_t> offsets, uint64_t alignment) {
  std::string error;
  if (!CheckNoOverlap(a.records, offsets, alignment, &error)) return Internal("memory plan: " + error);
  int end = 0;
  for (const Instr& in : tape.instrs) end = std::max(end, in.time);
  // Values per buffer: (produced_at, needed_until, root slot, slot).
  struct Use {
    int32_t first, last;
    SlotId root, slot;
  };
  std::vector<std::vector<Use>> uses(a.records.size());
  for (size_t s = 0; s < lifetimes.size(); ++s) {
    const int32_t b = a.slot_buffer[s];
    if (b < 0) continue;
    const ValueLifetime& v = lifetimes[s];
    const int32_t last = v.is_output ? end : v.last_used_at;
    const BufferRecord& r = a.records[static_cast<size_t>(b)];
    if (v.produced_at < r.first || last > r.last) {
      return Internal("memory plan: slot %" + std::to_string(s) + " lives [" + std::to_string(v.produced_at) +
                      ", " + std::to_string(last) + "] outside its buffer [" + std::to_string(r.first) + ", " +
                      std::to_string(r.last) + "]");
    }
    uses[static_cast<size_t>(b)].push_back({v.produced_at, last, a.slot_root[s], static_cast<SlotId>(s)});
  }
  for (std::vector<Use>& u : uses) {
    // Merge the values of one root (a source and its aliases) into one span.
    std::sort(u.begin(), u.end(), [](const Use& x, const Use& y) {
      return x.root != y.root ? x.root < y.root : x.first < y.first;
    });
    std::vector<Use> groups;
    for (const Use& x : u) {
      if (!groups.empty() && groups.back().root == x.root) {
        groups.back().last = std::max(groups.back().last, x.last);
      } else {
        groups.push_back(x);
      }
    }
    std::sort(groups.begin(), groups.end(), [](const Use& x, const Use& y) { return x.first < y.first; });
    for (size_t k = 1; k < groups.size(); ++k) {
      const Use& p = groups[k - 1];
      const Use& n = groups[k];
      const bool handover = p.last == n.first && a.in_place_of[static_cast<size_t>(n.root)] != kNoSlot;
      if (p.last >= n.first && !handover) {
        return Internal("memory plan: slots %" + std::to_string(p.slot) + " and %" + std::to_string(n.slot) +
                        " share a buffer while both are live");
      }
    }
  }
  return Status::Ok();
}

}  // namespace shrew::jit
