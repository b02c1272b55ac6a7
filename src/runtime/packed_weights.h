// Packed weights shared between XNNPACK operators.
//
// XNNPACK packs a constant weight into every fully-connected operator made
// from it. A `repeat` that unrolls one matmul 4,000 times would hold 4,000
// equal packs (20 KB each for a 64x64 weight) and stream all of them from
// memory on every run. A PackedWeights is the weights cache one kernel hands
// to the operators it creates: each pack they make is kept once per process,
// shared by every operator (of any kernel, graph or program) whose pack has
// the same bytes, and freed when the last PackedWeights holding it goes.
//
// Sharing is by content, never by the weight's address: XNNPACK's cache key
// (the weight and bias pointers) could name another tensor once a buffer is
// freed and reused. So every operator still packs (as without a cache); only
// the copy it keeps is shared.
//
// Contract: operators created with cache() must be deleted before this
// object (declare it before them in the owning class); it is neither
// copyable nor movable because they hold its address. Objects may be used
// on different threads; one object is not for concurrent creates.
#pragma once

#include <xnnpack.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace shrew::runtime {

class PackedWeights {
 public:
  PackedWeights();
  ~PackedWeights();  // releases the packs; frees those no one else holds
  PackedWeights(const PackedWeights&) = delete;
  PackedWeights& operator=(const PackedWeights&) = delete;

  // Pass to xnn_create_*: the operator's packed weights are then held here.
  xnn_weights_cache_t cache() { return &provider_; }

  // Packs held (one per operator created with cache()).
  size_t num_packs() const { return held_.size(); }
  // Bytes of the distinct packs no other object holds (the memory freed
  // with this one).
  size_t unshared_bytes() const;

  // Distinct packs alive in the process and their bytes (for tests).
  static size_t LivePacks();
  static size_t LiveBytes();

 private:
  struct Pack;
  struct Registry;
  static Registry& registry();
  static size_t LookUp(void* context, const xnn_weights_cache_look_up_key* key);
  static void* ReserveSpace(void* context, size_t n);
  static size_t LookUpOrInsert(void* context, const xnn_weights_cache_look_up_key* key, void* ptr, size_t size);
  static bool IsFinalized(void* context);
  static void* OffsetToAddr(void* context, size_t offset);
  static xnn_status DeleteCache(void* context);

  xnn_weights_cache_provider provider_;
  std::vector<Pack*> held_;  // an operator's cache offset is its index here
  void* reserved_ = nullptr;  // the space XNNPACK is packing into
  size_t reserved_bytes_ = 0;
  std::unique_ptr<Pack> spare_;  // the record for the next new pack
};

}  // namespace shrew::runtime
