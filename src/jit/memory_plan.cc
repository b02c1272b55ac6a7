#include "jit/memory_plan.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "base/check.h"

namespace shrew::jit {
namespace {

bool LifetimesOverlap(const BufferRecord& a, const BufferRecord& b) {
  return a.first <= b.last && b.first <= a.last;
}

uint64_t EndOf(std::span<const BufferRecord> records, std::span<const uint64_t> offsets, uint64_t alignment) {
  uint64_t end = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    end = std::max(end, offsets[i] + AlignUp(records[i].size, alignment));
  }
  return end;
}

int CountReused(std::span<const BufferRecord> records, std::span<const uint64_t> offsets, uint64_t alignment) {
  // A placement is "reused" when it overlaps the range of a value whose
  // lifetime ended before it began. Sweep by offset to stay near-linear.
  std::vector<size_t> order(records.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return offsets[a] < offsets[b]; });
  uint64_t max_size = 0;
  for (const BufferRecord& r : records) max_size = std::max(max_size, AlignUp(r.size, alignment));
  int reused = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    size_t i = order[k];
    uint64_t size = AlignUp(records[i].size, alignment);
    if (size == 0) continue;
    uint64_t lo = offsets[i], hi = lo + size;
    bool found = false;
    // Records with a smaller or equal offset that reach into [lo, hi) …
    for (size_t j = k; j-- > 0 && !found;) {
      size_t q = order[j];
      uint64_t qs = AlignUp(records[q].size, alignment);
      if (offsets[q] + max_size <= lo) break;  // nothing further left can reach lo
      if (offsets[q] + qs > lo && qs > 0 && records[q].last < records[i].first) found = true;
    }
    // … and records starting inside it.
    for (size_t j = k + 1; j < order.size() && offsets[order[j]] < hi && !found; ++j) {
      size_t q = order[j];
      if (AlignUp(records[q].size, alignment) > 0 && records[q].last < records[i].first) found = true;
    }
    if (found) ++reused;
  }
  return reused;
}

}  // namespace

uint64_t AlignUp(uint64_t value, uint64_t alignment) { return (value + alignment - 1) & ~(alignment - 1); }

uint64_t LowerBound(std::span<const BufferRecord> records, uint64_t alignment) {
  // Sweep over instruction boundaries: +size at first, -size after last.
  std::map<int64_t, int64_t> delta;
  for (const BufferRecord& r : records) {
    int64_t size = static_cast<int64_t>(AlignUp(r.size, alignment));
    delta[r.first] += size;
    delta[int64_t{r.last} + 1] -= size;
  }
  int64_t live = 0, best = 0;
  for (const auto& [t, d] : delta) {
    live += d;
    best = std::max(best, live);
  }
  return static_cast<uint64_t>(best);
}

std::vector<uint64_t> PlaceGreedyBySize(std::span<const BufferRecord> records, uint64_t alignment) {
  const size_t n = records.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Largest first; ties by earlier start, then index, so plans are reproducible.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    uint64_t sa = AlignUp(records[a].size, alignment), sb = AlignUp(records[b].size, alignment);
    if (sa != sb) return sa > sb;
    return records[a].first < records[b].first;
  });
  std::vector<uint64_t> offsets(n, 0);
  // Placed buffers kept in offset order, so the overlapping ones come out
  // sorted without a sort per placement (thousands of outputs, all live to
  // the end, made that the compile's hot spot).
  std::vector<size_t> placed;
  placed.reserve(n);
  std::vector<std::pair<uint64_t, uint64_t>> busy;  // [begin, end) of overlapping placed buffers
  for (size_t i : order) {
    const uint64_t size = AlignUp(records[i].size, alignment);
    if (size == 0) continue;
    busy.clear();
    for (size_t p : placed) {
      if (LifetimesOverlap(records[i], records[p])) {
        busy.emplace_back(offsets[p], offsets[p] + AlignUp(records[p].size, alignment));
      }
    }
    // Best fit: the smallest gap between busy ranges that holds `size`.
    uint64_t best_offset = 0, best_gap = UINT64_MAX, cursor = 0;
    bool fitted = false;
    for (const auto& [begin, end] : busy) {
      if (begin >= cursor + size && begin - cursor < best_gap) {
        best_gap = begin - cursor;
        best_offset = cursor;
        fitted = true;
      }
      cursor = std::max(cursor, end);
    }
    offsets[i] = fitted ? best_offset : cursor;
    // After the placed buffers at the same offset: ties keep placement order.
    placed.insert(std::upper_bound(placed.begin(), placed.end(), offsets[i],
                                   [&](uint64_t off, size_t p) { return off < offsets[p]; }),
                  i);
  }
  return offsets;
}

std::vector<uint64_t> PlaceFirstFit(std::span<const BufferRecord> records, uint64_t alignment) {
  const size_t n = records.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return records[a].first < records[b].first; });
  std::vector<uint64_t> offsets(n, 0);
  std::map<uint64_t, size_t> live;  // offset -> record, ordered by offset
  // Records whose lifetime ended are released before the next one is placed.
  std::multimap<int32_t, size_t> release;  // last -> record
  for (size_t i : order) {
    const BufferRecord& r = records[i];
    while (!release.empty() && release.begin()->first < r.first) {
      size_t q = release.begin()->second;
      live.erase(offsets[q]);
      release.erase(release.begin());
    }
    const uint64_t size = AlignUp(r.size, alignment);
    if (size == 0) continue;
    uint64_t cursor = 0;
    for (const auto& [begin, q] : live) {
      if (begin >= cursor + size) break;
      cursor = std::max(cursor, begin + AlignUp(records[q].size, alignment));
    }
    offsets[i] = cursor;
    live.emplace(cursor, i);
    release.emplace(r.last, i);
  }
  return offsets;
}

MemoryPlan PlanMemory(std::span<const BufferRecord> records, uint64_t alignment) {
  SHREW_CHECK(alignment > 0 && (alignment & (alignment - 1)) == 0);
  MemoryPlan plan;
  std::vector<uint64_t> first_fit = PlaceFirstFit(records, alignment);
  uint64_t first_fit_end = EndOf(records, first_fit, alignment);
  plan.offsets = std::move(first_fit);
  plan.arena_bytes = first_fit_end;
  if (records.size() <= kGreedyMaxRecords) {
    std::vector<uint64_t> greedy = PlaceGreedyBySize(records, alignment);
    uint64_t greedy_end = EndOf(records, greedy, alignment);
    if (greedy_end <= first_fit_end) {
      plan.offsets = std::move(greedy);
      plan.arena_bytes = greedy_end;
      plan.greedy = true;
    }
  }
  plan.lower_bound = LowerBound(records, alignment);
  for (const BufferRecord& r : records) plan.naive += AlignUp(r.size, alignment);
  plan.num_reused = CountReused(records, plan.offsets, alignment);
  return plan;
}

bool CheckNoOverlap(std::span<const BufferRecord> records, std::span<const uint64_t> offsets,
                    uint64_t alignment, std::string* error) {
  if (offsets.size() != records.size()) {
    if (error) *error = "offset count differs from record count";
    return false;
  }
  // Sort by offset; compare each with the following ones that start before it ends.
  std::vector<size_t> order(records.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return offsets[a] < offsets[b]; });
  for (size_t k = 0; k < order.size(); ++k) {
    size_t i = order[k];
    if (offsets[i] % alignment != 0) {
      if (error) *error = "record " + std::to_string(i) + " is not aligned";
      return false;
    }
    uint64_t end = offsets[i] + records[i].size;
    for (size_t j = k + 1; j < order.size() && offsets[order[j]] < end; ++j) {
      size_t q = order[j];
      if (records[q].size == 0 || records[i].size == 0) continue;
      if (LifetimesOverlap(records[i], records[q])) {
        if (error) {
          *error = "records " + std::to_string(i) + " and " + std::to_string(q) +
                   " are live together and share bytes at offset " + std::to_string(offsets[q]);
        }
        return false;
      }
    }
  }
  return true;
}

}  // namespace shrew::jit
