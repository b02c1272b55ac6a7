#include "runtime/packed_weights.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>

#include "base/check.h"

namespace shrew::runtime {

struct PackedWeights::Pack {
  void* data = nullptr;
  size_t bytes = 0;
  uint64_t hash = 0;
  size_t holders = 0;
};

// Every distinct pack alive in the process, by SampleHash.
struct PackedWeights::Registry {
  std::mutex mutex;
  std::unordered_multimap<uint64_t, Pack*> packs;
  size_t live_bytes = 0;
};

namespace {

// Packs start on a cache line. In wasm XNNPACK takes plain malloc memory
// (8-byte aligned), and whether its 16-byte loads crossed lines then
// depended on what was allocated before: a pack placed 8 bytes off made
// the mlp at batch 64 run 3.5 % slower.
constexpr size_t kPackAlignment = 64;
void* AllocatePack(size_t n) {
  const size_t rounded = (std::max<size_t>(n, 1) + kPackAlignment - 1) / kPackAlignment * kPackAlignment;
  return std::aligned_alloc(kPackAlignment, rounded);
}

// A hash of the size and of at most 256 words spread over the pack: enough
// to tell different weights apart without reading megabytes at compile time
// (equal hashes are confirmed with memcmp).
uint64_t SampleHash(const void* data, size_t n) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  auto mix = [&h](uint64_t w) {
    h = (h ^ w) * 0x100000001B3ull;
    h ^= h >> 29;
  };
  const size_t words = n / sizeof(uint64_t);
  const size_t step = words > 256 ? (words + 255) / 256 : 1;
  for (size_t i = 0; i < words; i += step) {
    uint64_t w;
    std::memcpy(&w, bytes + i * sizeof(uint64_t), sizeof(w));
    mix(w);
  }
  for (size_t i = words * sizeof(uint64_t); i < n; ++i) mix(bytes[i]);
  return h;
}

constexpr int kMaxCompares = 4;

}  // namespace

PackedWeights::Registry& PackedWeights::registry() {
  static Registry* r = new Registry();  // never destroyed: packs may outlive static destruction order
  return *r;
}

PackedWeights::PackedWeights() {
  provider_.context = this;
  provider_.look_up = &LookUp;
  provider_.reserve_space = &ReserveSpace;
  provider_.look_up_or_insert = &LookUpOrInsert;
  provider_.is_finalized = &IsFinalized;
  provider_.offset_to_addr = &OffsetToAddr;
  provider_.delete_cache = &DeleteCache;
}

PackedWeights::~PackedWeights() {
  std::free(reserved_);
  if (held_.empty()) return;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (Pack* pack : held_) {
    if (--pack->holders > 0) continue;
    auto [first, last] = r.packs.equal_range(pack->hash);
    for (auto it = first; it != last; ++it) {
      if (it->second == pack) {
        r.packs.erase(it);
        break;
      }
    }
    r.live_bytes -= pack->bytes;
    std::free(pack->data);
    delete pack;
  }
}

size_t PackedWeights::unshared_bytes() const {
  std::lock_guard<std::mutex> lock(registry().mutex);
  size_t bytes = 0;
  for (size_t i = 0; i < held_.size(); ++i) {
    const Pack* pack = held_[i];
    if (std::find(held_.begin(), held_.begin() + i, pack) != held_.begin() + i) continue;  // counted
    if (static_cast<size_t>(std::count(held_.begin(), held_.end(), pack)) == pack->holders) bytes += pack->bytes;
  }
  return bytes;
}

size_t PackedWeights::LivePacks() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.packs.size();
}

size_t PackedWeights::LiveBytes() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.live_bytes;
}

// Never found by key: the operator packs, and LookUpOrInsert shares by content.
size_t PackedWeights::LookUp(void*, const xnn_weights_cache_look_up_key*) { return SIZE_MAX; }

// The pack and its record are allocated here, where a failure is one
// XNNPACK reports (out of memory); LookUpOrInsert then only adds an entry
// to the registry and to held_ (whose room is made here, doubling).
void* PackedWeights::ReserveSpace(void* context, size_t n) {
  auto* self = static_cast<PackedWeights*>(context);
  // Space reserved by a create that failed before inserting is replaced.
  std::free(self->reserved_);
  self->reserved_ = nullptr;
  self->reserved_bytes_ = 0;
  if (self->spare_ == nullptr) self->spare_.reset(new (std::nothrow) Pack());
  if (self->spare_ == nullptr) return nullptr;
  if (self->held_.size() == self->held_.capacity()) self->held_.reserve(std::max<size_t>(4, 2 * self->held_.capacity()));
  self->reserved_ = AllocatePack(n);
  if (self->reserved_ != nullptr) self->reserved_bytes_ = n;
  return self->reserved_;
}

size_t PackedWeights::LookUpOrInsert(void* context, const xnn_weights_cache_look_up_key*, void* ptr, size_t size) {
  auto* self = static_cast<PackedWeights*>(context);
  // XNNPACK packs into the space it reserved just before.
  SHREW_CHECK(ptr != nullptr && ptr == self->reserved_ && size <= self->reserved_bytes_);
  void* data = self->reserved_;
  self->reserved_ = nullptr;
  self->reserved_bytes_ = 0;
  const uint64_t hash = SampleHash(data, size);
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  Pack* found = nullptr;
  auto [first, last] = r.packs.equal_range(hash);
  // Packs that differ only between the samples share a hash; comparing
  // with a few of them bounds the work (thousands of sparse weights that
  // differ in a few places would otherwise compare each with all the
  // others). Past that a pack is kept unshared, which is only less sharing.
  int compared = 0;
  for (auto it = first; it != last && compared < kMaxCompares; ++it) {
    if (it->second->bytes != size) continue;
    ++compared;
    if (std::memcmp(it->second->data, data, size) == 0) {
      found = it->second;
      break;
    }
  }
  if (found != nullptr) {
    std::free(data);
  } else {
    found = self->spare_.release();
    *found = Pack{data, size, hash, 0};
    r.packs.emplace(hash, found);
    r.live_bytes += size;
  }
  ++found->holders;
  self->held_.push_back(found);
  return self->held_.size() - 1;
}

// Always: packs are usable as soon as they are inserted (they never move).
bool PackedWeights::IsFinalized(void*) { return true; }

void* PackedWeights::OffsetToAddr(void* context, size_t offset) {
  auto* self = static_cast<PackedWeights*>(context);
  return offset < self->held_.size() ? self->held_[offset]->data : nullptr;
}

// Operators never delete their cache; the owner does.
xnn_status PackedWeights::DeleteCache(void*) { return xnn_status_success; }

}  // namespace shrew::runtime
