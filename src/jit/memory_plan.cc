#include "jit/memory_plan.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>

#include "base/check.h"

namespace shrew::jit {
namespace {

// Record indices in the order `less` gives, index breaking ties (so plans
// are reproducible). One std::sort instantiation per comparator type, shared
// by the functions below: the module's download size counts every one.
template <typename Less>
struct ThenByIndex {
  Less less;
  bool operator()(size_t a, size_t b) const { return less(a, b) || (!less(b, a) && a < b); }
};

template <typename Less>
std::vector<size_t> SortedIndices(size_t n, Less less) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), ThenByIndex<Less>{less});
  return order;
}

struct ByFirst {  // tape order
  std::span<const BufferRecord> records;
  bool operator()(size_t a, size_t b) const { return records[a].first < records[b].first; }
};

struct ByOffset {
  std::span<const uint64_t> offsets;
  bool operator()(size_t a, size_t b) const { return offsets[a] < offsets[b]; }
};

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

// Placed records by lifetime: which of them overlap a given [first, last]?
// Those alive at `first` come from a segment tree whose leaves are the
// records' distinct starts (a record is stored at the O(log n) nodes that
// cover the starts inside its lifetime), those starting inside
// (first, last] from a set ordered by start. O(log n + k) for k answers,
// where scanning every placed record made greedy placement quadratic on
// long tapes; memory O(n log n) whatever the instruction numbers.
class PlacedLifetimes {
 public:
  explicit PlacedLifetimes(std::span<const BufferRecord> records) : records_(records) {
    starts_.reserve(records.size());
    for (const BufferRecord& r : records) starts_.push_back(r.first);
    std::sort(starts_.begin(), starts_.end());
    starts_.erase(std::unique(starts_.begin(), starts_.end()), starts_.end());
    while (leaves_ < starts_.size()) leaves_ *= 2;
    covering_.resize(2 * leaves_);
  }

  void Add(size_t id) {
    const BufferRecord& r = records_[id];
    size_t lo = leaves_ + StartsBefore(r.first), hi = leaves_ + StartsBefore(int64_t{r.last} + 1);
    for (; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) covering_[lo++].push_back(id);
      if (hi & 1) covering_[--hi].push_back(id);
    }
    by_first_.emplace(r.first, id);
  }

  // Appends the placed records overlapping `r` (one of the records given to
  // the constructor); false once more than `limit` were found.
  bool Overlapping(const BufferRecord& r, size_t limit, std::vector<size_t>* out) const {
    for (size_t node = leaves_ + StartsBefore(r.first); node >= 1; node /= 2) {
      out->insert(out->end(), covering_[node].begin(), covering_[node].end());
      if (out->size() > limit) return false;
    }
    for (auto it = by_first_.upper_bound({r.first, SIZE_MAX}); it != by_first_.end() && it->first <= r.last; ++it) {
      out->push_back(it->second);
      if (out->size() > limit) return false;
    }
    return true;
  }

 private:
  // Index of the first distinct start >= t.
  size_t StartsBefore(int64_t t) const {
    return static_cast<size_t>(std::lower_bound(starts_.begin(), starts_.end(), t) - starts_.begin());
  }

  std::span<const BufferRecord> records_;
  std::vector<int32_t> starts_;  // distinct record starts, ascending: the leaves
  size_t leaves_ = 1;
  std::vector<std::vector<size_t>> covering_;  // segment tree nodes, root at 1
  std::set<std::pair<int32_t, size_t>> by_first_;
};

int CountReused(std::span<const BufferRecord> records, std::span<const uint64_t> offsets, uint64_t alignment) {
  // A placement is "reused" when it overlaps the range of a value whose
  // lifetime ended before it began. Sweep by offset to stay near-linear.
  std::vector<size_t> order = SortedIndices(records.size(), ByOffset{offsets});
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
  // Largest first; ties by earlier start, then index.
  std::vector<size_t> order = SortedIndices(n, [&](size_t a, size_t b) {
    uint64_t sa = AlignUp(records[a].size, alignment), sb = AlignUp(records[b].size, alignment);
    if (sa != sb) return sa > sb;
    return records[a].first < records[b].first;
  });
  std::vector<uint64_t> offsets(n, 0);
  PlacedLifetimes index(records);
  // Every placed record, for when most of them overlap the next one (outputs
  // live to the end): sorted by offset up to `sorted`, then in placement
  // order; merged only when needed.
  std::vector<size_t> placed, merged;
  placed.reserve(n);
  size_t sorted = 0;
  std::vector<size_t> hits;
  std::vector<std::pair<uint64_t, uint64_t>> busy;  // [begin, end) of overlapping placed buffers, by begin
  for (size_t i : order) {
    const uint64_t size = AlignUp(records[i].size, alignment);
    if (size == 0) continue;
    busy.clear();
    hits.clear();
    if (index.Overlapping(records[i], std::max<size_t>(64, placed.size() / 8), &hits)) {
      for (size_t p : hits) busy.emplace_back(offsets[p], offsets[p] + AlignUp(records[p].size, alignment));
      std::sort(busy.begin(), busy.end());
    } else {
      // A pass over all placed records in offset order beats sorting most of them.
      if (sorted < placed.size()) {
        const auto mid = placed.begin() + static_cast<ptrdiff_t>(sorted);
        const ThenByIndex<ByOffset> by_offset{{offsets}};
        std::sort(mid, placed.end(), by_offset);
        merged.resize(placed.size());
        std::merge(placed.begin(), mid, mid, placed.end(), merged.begin(), by_offset);
        placed.swap(merged);
        sorted = placed.size();
      }
      for (size_t p : placed) {
        if (LifetimesOverlap(records[i], records[p])) {
          busy.emplace_back(offsets[p], offsets[p] + AlignUp(records[p].size, alignment));
        }
      }
    }
    // Best fit: the smallest gap between busy ranges that holds `size`. (The
    // order of ranges with equal begins does not matter: the first one moves
    // the cursor past that begin.)
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
    index.Add(i);
    placed.push_back(i);
  }
  return offsets;
}

std::vector<uint64_t> PlaceFirstFit(std::span<const BufferRecord> records, uint64_t alignment) {
  const size_t n = records.size();
  const std::vector<size_t> order = SortedIndices(n, ByFirst{records});
  std::vector<uint64_t> offsets(n, 0);
  std::map<uint64_t, size_t> live;  // offset -> record, ordered by offset
  auto end_of = [&](std::map<uint64_t, size_t>::const_iterator it) {
    return it->first + AlignUp(records[it->second].size, alignment);
  };
  // The free ranges below and between live buffers (start -> width), and
  // their widths: a buffer goes into the lowest gap it fits, else on top.
  // Walking gaps rather than live buffers keeps thousands of buffers live at
  // once linear when one dies and the next takes its place (walking the
  // live ones took 0.5 s for a graph of 16,000 calls).
  std::map<uint64_t, uint64_t> gaps;
  std::multiset<uint64_t> widths;
  auto add_gap = [&](uint64_t start, uint64_t width) {
    if (width == 0) return;
    gaps.emplace(start, width);
    widths.insert(width);
  };
  auto remove_gap = [&](std::map<uint64_t, uint64_t>::iterator g) {
    widths.erase(widths.find(g->second));
    gaps.erase(g);
  };
  // Records whose lifetime ended are released before the next one is placed.
  std::multimap<int32_t, size_t> release;  // last -> record
  for (size_t i : order) {
    const BufferRecord& r = records[i];
    while (!release.empty() && release.begin()->first < r.first) {
      auto it = live.find(offsets[release.begin()->second]);
      // The freed range joins the gaps on either side of it; above the
      // highest live buffer it is the free space on top, not a gap.
      uint64_t start = it->first;
      const uint64_t top = end_of(it);
      uint64_t end = top;
      auto above = gaps.find(top);
      if (above != gaps.end()) {
        end += above->second;
        remove_gap(above);
      }
      auto below = gaps.lower_bound(start);
      if (below != gaps.begin() && std::prev(below)->first + std::prev(below)->second == start) {
        start = std::prev(below)->first;
        remove_gap(std::prev(below));
      }
      const bool highest = std::next(it) == live.end();
      live.erase(it);
      if (!highest) add_gap(start, end - start);
      release.erase(release.begin());
    }
    const uint64_t size = AlignUp(r.size, alignment);
    if (size == 0) continue;
    bool placed = false;
    if (!widths.empty() && size <= *widths.rbegin()) {
      for (auto g = gaps.begin(); g != gaps.end(); ++g) {
        if (g->second < size) continue;
        const uint64_t at = g->first, rest = g->second - size;
        remove_gap(g);
        add_gap(at + size, rest);
        offsets[i] = at;
        placed = true;
        break;
      }
    }
    if (!placed) offsets[i] = live.empty() ? 0 : end_of(std::prev(live.end()));
    live.emplace(offsets[i], i);
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
  plan.lower_bound = LowerBound(records, alignment);
  // Greedy can only tie a first fit that reached the lower bound.
  if (first_fit_end > plan.lower_bound && records.size() <= kGreedyMaxRecords) {
    std::vector<uint64_t> greedy = PlaceGreedyBySize(records, alignment);
    uint64_t greedy_end = EndOf(records, greedy, alignment);
    if (greedy_end <= first_fit_end) {
      plan.offsets = std::move(greedy);
      plan.arena_bytes = greedy_end;
      plan.greedy = true;
    }
  }
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
  // Sweep in tape order, releasing what died: a new range only has to be
  // compared with its neighbours among the live ones, which never share a
  // byte (else the sweep stopped earlier). Comparing all pairs sharing an
  // offset was quadratic on long chains that reuse two buffers.
  const std::vector<size_t> order = SortedIndices(records.size(), ByFirst{records});
  std::map<uint64_t, size_t> live;         // offset -> record
  std::multimap<int32_t, size_t> release;  // last -> record
  auto clash = [&](size_t a, size_t b) {
    if (error) {
      *error = "records " + std::to_string(std::min(a, b)) + " and " + std::to_string(std::max(a, b)) +
               " are live together and share bytes at offset " + std::to_string(std::max(offsets[a], offsets[b]));
    }
    return false;
  };
  for (size_t i : order) {
    if (offsets[i] % alignment != 0) {
      if (error) *error = "record " + std::to_string(i) + " is not aligned";
      return false;
    }
    while (!release.empty() && release.begin()->first < records[i].first) {
      live.erase(offsets[release.begin()->second]);
      release.erase(release.begin());
    }
    if (records[i].size == 0) continue;
    const uint64_t begin = offsets[i], end = begin + records[i].size;
    auto above = live.lower_bound(begin);
    if (above != live.end() && above->first < end) return clash(i, above->second);
    if (above != live.begin()) {
      size_t below = std::prev(above)->second;
      if (offsets[below] + records[below].size > begin) return clash(i, below);
    }
    live.emplace(begin, i);
    release.emplace(records[i].last, i);
  }
  return true;
}

}  // namespace shrew::jit
