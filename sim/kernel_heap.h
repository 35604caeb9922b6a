// The memory of the arrays a launch's kernel allocates (np.empty and kin, array.copy()).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace simt::sim {

// Thread-safe. An array never outlives its thread (no store can hold one), so what a block
// allocated is freed when the block finishes (release_block), and anything left when the heap is
// destroyed, at the launch's end.
class KernelHeap {
public:
  // What one launch may hold at once: a kernel allocating without bound (in a loop of every
  // thread) gets a MemoryError rather than taking the machine's memory. A GPU's device heap
  // (cudaLimitMallocHeapSize) is 8 MiB by default; the simulator frees a block's arrays only when
  // the block finishes, so it allows more.
  static constexpr int64_t limit_bytes = int64_t(4) << 30;

  KernelHeap() = default;
  KernelHeap(const KernelHeap &) = delete;
  KernelHeap &operator=(const KernelHeap &) = delete;
  ~KernelHeap();

  // `bytes` (at least one) for block `block` (its linear index), 16-byte aligned, zeroed when
  // `zeroed`; null when `bytes` is negative (its size overflowed), past the limit, or the system
  // has no memory for it.
  void *allocate(int64_t bytes, bool zeroed, uint64_t block);
  // Frees what block `block` allocated: it has finished.
  void release_block(uint64_t block);
  // Bytes held now.
  int64_t held_bytes();

  // Arrays allocated and freed by every launch of the process so far (numba-cuda's NRT
  // statistics: simt.host.SimulatedRuntime).
  static std::atomic<uint64_t> allocations, frees;

private:
  std::mutex mutex_;
  std::unordered_map<uint64_t, std::vector<std::pair<void *, int64_t>>> by_block_;
  std::atomic<bool> used_{false}; // something was allocated: release_block has work
  int64_t held_ = 0;
};

// The linear index of block `ctaid` of a grid of `nctaid` blocks (x fastest).
inline uint64_t linear_block(const int32_t (&ctaid)[3], const int32_t (&nctaid)[3]) {
  return uint64_t(uint32_t(ctaid[0])) +
         uint64_t(uint32_t(nctaid[0])) *
             (uint64_t(uint32_t(ctaid[1])) + uint64_t(uint32_t(nctaid[1])) * uint32_t(ctaid[2]));
}

} // namespace simt::sim
