// The memory of the arrays a launch's kernel allocates (np.empty and kin, array.copy()).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace simt::sim {

// Thread-safe; everything it gave is freed when it is destroyed, at the launch's end: an array
// never outlives its thread (no store can hold one), so none is in use then.
class KernelHeap {
public:
  // What one launch may hold at once: a kernel allocating without bound (in a loop of every
  // thread) gets a MemoryError rather than taking the machine's memory. A GPU's device heap
  // (cudaLimitMallocHeapSize) is 8 MiB by default; the simulator keeps every allocation until
  // the launch ends, so it allows more.
  static constexpr int64_t limit_bytes = int64_t(4) << 30;

  KernelHeap() = default;
  KernelHeap(const KernelHeap &) = delete;
  KernelHeap &operator=(const KernelHeap &) = delete;
  ~KernelHeap();

  // `bytes` (at least one), 16-byte aligned, zeroed when `zeroed`; null when `bytes` is negative
  // (its size overflowed), past the limit, or the system has no memory for it.
  void *allocate(int64_t bytes, bool zeroed);
  // Bytes held now.
  int64_t held_bytes();

  // Arrays allocated and freed by every launch of the process so far (numba-cuda's NRT
  // statistics: simt.host.SimulatedRuntime).
  static std::atomic<uint64_t> allocations, frees;

private:
  std::mutex mutex_;
  std::vector<void *> blocks_;
  int64_t held_ = 0;
};

} // namespace simt::sim
