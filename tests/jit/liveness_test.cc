// Lifetimes, frees, in-place and alias decisions on hand-built tapes.
#include "jit/liveness.h"

#include <gtest/gtest.h>

namespace shrew::jit {
namespace {

// A tape builder: one instruction per call, times in call order.
class TapeBuilder {
 public:
  SlotId Add(Opcode op, std::vector<SlotId> operands) {
    Instr in;
    in.opcode = op;
    in.dst = static_cast<SlotId>(tape_.instrs.size());
    in.first_operand = static_cast<int32_t>(tape_.operands.size());
    in.num_operands = static_cast<int32_t>(operands.size());
    in.kernel = (op == Opcode::kCompute) ? in.dst : -1;
    in.time = in.dst;
    in.node = in.dst;
    for (SlotId s : operands) tape_.operands.push_back(s);
    tape_.instrs.push_back(in);
    return in.dst;
  }
  Tape& tape() { return tape_; }
  std::vector<ir::NodeId> slot_node() const {
    std::vector<ir::NodeId> v;
    for (size_t i = 0; i < tape_.instrs.size(); ++i) v.push_back(static_cast<ir::NodeId>(i));
    return v;
  }

 private:
  Tape tape_;
};

const auto kAlwaysInPlace = [](int, int) { return true; };

TEST(Liveness, LifetimesAndFreesInDecreasingSlotOrder) {
  TapeBuilder b;
  SlotId x = b.Add(Opcode::kLoadInput, {});
  SlotId w = b.Add(Opcode::kLoadParam, {});
  SlotId h = b.Add(Opcode::kCompute, {x, w});   // t2
  SlotId r = b.Add(Opcode::kCompute, {h});      // t3
  SlotId s = b.Add(Opcode::kCompute, {h, r});   // t4: h and r die here
  SlotId y = b.Add(Opcode::kCompute, {s});      // t5: last instruction
  std::vector<SlotId> outputs = {y};
  std::vector<ValueLifetime> life = ComputeLifetimes(b.tape(), b.slot_node(), outputs);
  EXPECT_EQ(life[static_cast<size_t>(h)].produced_at, 2);
  EXPECT_EQ(life[static_cast<size_t>(h)].last_used_at, 4);
  EXPECT_EQ(life[static_cast<size_t>(y)].last_used_at, 5);
  EXPECT_TRUE(life[static_cast<size_t>(x)].is_external);
  EXPECT_TRUE(life[static_cast<size_t>(w)].is_external);
  EXPECT_TRUE(life[static_cast<size_t>(y)].is_output);
  Tape tape = b.tape();
  EXPECT_EQ(InsertFrees(&tape, life), 2);  // s dies at the last instruction: not freed
  ASSERT_EQ(tape.instrs.size(), 8u);
  EXPECT_EQ(tape.instrs[5].opcode, Opcode::kFree);
  EXPECT_EQ(tape.instrs[5].dst, r);  // decreasing slot order: %3 then %2
  EXPECT_EQ(tape.instrs[6].dst, h);
  EXPECT_EQ(tape.instrs[7].dst, y);
  EXPECT_EQ(tape.NumSteps(), 6);
}

TEST(Liveness, ConstantsAreFreedAfterTheirLastRead) {
  // §7.4: only inputs and parameters are external; a constant read before
  // the last instruction gets a free like any other value.
  TapeBuilder b;
  SlotId c = b.Add(Opcode::kConstant, {});
  SlotId x = b.Add(Opcode::kLoadInput, {});
  SlotId a = b.Add(Opcode::kCompute, {x, c});  // t2: c dies here
  SlotId e = b.Add(Opcode::kCompute, {a});     // t3: a dies here
  SlotId y = b.Add(Opcode::kCompute, {e, x});  // t4: last instruction
  std::vector<SlotId> outputs = {y};
  std::vector<ValueLifetime> life = ComputeLifetimes(b.tape(), b.slot_node(), outputs);
  EXPECT_FALSE(life[static_cast<size_t>(c)].is_external);
  EXPECT_TRUE(life[static_cast<size_t>(x)].is_external);
  Tape tape = b.tape();
  EXPECT_EQ(InsertFrees(&tape, life), 2);
  ASSERT_EQ(tape.instrs.size(), 7u);
  EXPECT_EQ(tape.instrs[3].opcode, Opcode::kFree);
  EXPECT_EQ(tape.instrs[3].dst, c);
  EXPECT_EQ(tape.instrs[5].opcode, Opcode::kFree);
  EXPECT_EQ(tape.instrs[5].dst, a);
}

TEST(Liveness, InPlaceOnlyWhenTheOperandDiesHere) {
  TapeBuilder b;
  SlotId x = b.Add(Opcode::kLoadInput, {});
  SlotId a = b.Add(Opcode::kCompute, {x});     // t1: x is an input: never overwritten
  SlotId c = b.Add(Opcode::kCompute, {a});     // t2: a still read at t3: no in-place
  SlotId d = b.Add(Opcode::kCompute, {a, c});  // t3: a and c die: in place over a
  SlotId y = b.Add(Opcode::kCompute, {d});     // t4: d dies: in place over d's buffer (a's)
  std::vector<SlotId> outputs = {y};
  std::vector<ValueLifetime> life = ComputeLifetimes(b.tape(), b.slot_node(), outputs);
  std::vector<uint64_t> bytes(5, 256), ws(5, 0);
  BufferAssignment asg = AssignBuffers(b.tape(), life, bytes, ws, kAlwaysInPlace);
  EXPECT_EQ(asg.in_place_of[static_cast<size_t>(a)], kNoSlot);
  EXPECT_EQ(asg.in_place_of[static_cast<size_t>(c)], kNoSlot);
  EXPECT_EQ(asg.in_place_of[static_cast<size_t>(d)], a);
  EXPECT_EQ(asg.in_place_of[static_cast<size_t>(y)], d);
  EXPECT_EQ(asg.slot_buffer[static_cast<size_t>(y)], asg.slot_buffer[static_cast<size_t>(a)]);
  EXPECT_EQ(asg.num_in_place, 2);
  ASSERT_EQ(asg.records.size(), 3u);  // x, a(+d+y), c
  EXPECT_EQ(asg.records[0].first, 0);  // the input lives over the whole run
  EXPECT_EQ(asg.records[0].last, 4);
  EXPECT_EQ(asg.records[1].first, 1);  // a's buffer lives until the output's end
  EXPECT_EQ(asg.records[1].last, 4);
  MemoryPlan plan = PlanMemory(asg.records);
  EXPECT_TRUE(CheckBufferAssignment(b.tape(), life, asg, plan.offsets, kDefaultAlignment).ok());
  EXPECT_EQ(plan.arena_bytes, 3u * 256);
}

TEST(Liveness, InPlaceRefusedByKernelSizeOrOutput) {
  TapeBuilder b;
  SlotId x = b.Add(Opcode::kLoadInput, {});
  SlotId a = b.Add(Opcode::kCompute, {x});  // t1
  SlotId o = b.Add(Opcode::kCompute, {a});  // t2: output, a dies; kernel refuses
  SlotId p = b.Add(Opcode::kCompute, {o});  // t3: o is an output: never overwritten
  SlotId q = b.Add(Opcode::kCompute, {p});  // t4: p dies but sizes differ
  std::vector<SlotId> outputs = {o, q};
  std::vector<ValueLifetime> life = ComputeLifetimes(b.tape(), b.slot_node(), outputs);
  std::vector<uint64_t> bytes = {64, 64, 64, 64, 128};
  std::vector<uint64_t> ws(5, 0);
  ws[3] = 32;  // a workspace at t3 is a one-instruction record
  BufferAssignment asg = AssignBuffers(b.tape(), life, bytes, ws, [](int instr, int) { return instr != 2; });
  EXPECT_EQ(asg.in_place_of[static_cast<size_t>(o)], kNoSlot);
  EXPECT_EQ(asg.in_place_of[static_cast<size_t>(p)], kNoSlot);
  EXPECT_EQ(asg.in_place_of[static_cast<size_t>(q)], kNoSlot);
  EXPECT_EQ(asg.num_in_place, 0);
  const int32_t wb = asg.workspace_buffer[3];
  ASSERT_GE(wb, 0);
  EXPECT_EQ(asg.records[static_cast<size_t>(wb)].first, 3);
  EXPECT_EQ(asg.records[static_cast<size_t>(wb)].last, 3);
  EXPECT_EQ(asg.records[static_cast<size_t>(asg.slot_buffer[static_cast<size_t>(o)])].last, 4);
  MemoryPlan plan = PlanMemory(asg.records);
  EXPECT_TRUE(CheckBufferAssignment(b.tape(), life, asg, plan.offsets, kDefaultAlignment).ok());
}

TEST(Liveness, AliasesShareAndExtendTheSourceBuffer) {
  TapeBuilder b;
  SlotId x = b.Add(Opcode::kLoadInput, {});
  SlotId w = b.Add(Opcode::kLoadParam, {});
  SlotId a = b.Add(Opcode::kCompute, {x, w});  // t2
  SlotId v = b.Add(Opcode::kCopy, {a});        // t3: reshape: alias of a
  SlotId c = b.Add(Opcode::kCompute, {a});     // t4: a's last direct use, but v is read at t5
  SlotId d = b.Add(Opcode::kCompute, {v, c});  // t5
  SlotId pw = b.Add(Opcode::kCopy, {w});       // t6: alias of a parameter: external
  SlotId y = b.Add(Opcode::kCompute, {d, pw}); // t7
  std::vector<SlotId> outputs = {y};
  std::vector<ValueLifetime> life = ComputeLifetimes(b.tape(), b.slot_node(), outputs);
  std::vector<uint64_t> bytes(8, 128), ws(8, 0);
  BufferAssignment asg = AssignBuffers(b.tape(), life, bytes, ws, kAlwaysInPlace);
  EXPECT_EQ(asg.slot_buffer[static_cast<size_t>(v)], asg.slot_buffer[static_cast<size_t>(a)]);
  EXPECT_EQ(asg.slot_root[static_cast<size_t>(v)], a);
  // c must not be written over a at t4: the alias v still needs it (t5).
  EXPECT_EQ(asg.in_place_of[static_cast<size_t>(c)], kNoSlot);
  // At t5 a and its alias v both die: d takes the buffer over, which then
  // lives until d's last use (t7).
  EXPECT_EQ(asg.in_place_of[static_cast<size_t>(d)], v);
  EXPECT_EQ(asg.slot_buffer[static_cast<size_t>(d)], asg.slot_buffer[static_cast<size_t>(a)]);
  EXPECT_EQ(asg.records[static_cast<size_t>(asg.slot_buffer[static_cast<size_t>(a)])].last, 7);
  EXPECT_EQ(asg.slot_buffer[static_cast<size_t>(pw)], -1);
  EXPECT_EQ(asg.slot_root[static_cast<size_t>(pw)], w);
  EXPECT_EQ(asg.num_aliases, 1);
  MemoryPlan plan = PlanMemory(asg.records);
  EXPECT_TRUE(CheckBufferAssignment(b.tape(), life, asg, plan.offsets, kDefaultAlignment).ok());
}

TEST(Liveness, CheckCatchesOverlappingLiveBuffers) {
  TapeBuilder b;
  SlotId x = b.Add(Opcode::kLoadInput, {});
  SlotId a = b.Add(Opcode::kCompute, {x});
  SlotId c = b.Add(Opcode::kCompute, {x});
  SlotId y = b.Add(Opcode::kCompute, {a, c});
  std::vector<SlotId> outputs = {y};
  std::vector<ValueLifetime> life = ComputeLifetimes(b.tape(), b.slot_node(), outputs);
  std::vector<uint64_t> bytes(4, 64), ws(4, 0);
  BufferAssignment asg = AssignBuffers(b.tape(), life, bytes, ws, [](int, int) { return false; });
  ASSERT_EQ(asg.records.size(), 4u);
  std::vector<uint64_t> bad = {0, 64, 64, 128};  // a and c both live at t3, same bytes
  Status s = CheckBufferAssignment(b.tape(), life, asg, bad, kDefaultAlignment);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("share bytes"), std::string::npos) << s.message();
  MemoryPlan plan = PlanMemory(asg.records);
  EXPECT_TRUE(CheckBufferAssignment(b.tape(), life, asg, plan.offsets, kDefaultAlignment).ok());
}

}  // namespace
}  // namespace shrew::jit
