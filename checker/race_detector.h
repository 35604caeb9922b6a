// racecheck's core: happens-before race detection on shared and global memory.
//
// Every access leaves a record in shadow memory: per 8-byte granule of memory, up to four cells
// of 8 bytes (4x the memory it shadows), each naming the thread, the source location, the kind
// of access, the bytes of the granule it touched, and its sync epoch: an entry of a table that
// says which block the thread was in and how far that block had got in its synchronisation (its
// barriers, its warps' syncwarps, its releases) when it accessed. A new entry is made only after
// a synchronisation event, so the table stays small. Two accesses are ordered when
//   - one thread made both;
//   - they are in one block and a barrier (syncthreads*, grid sync) came between them;
//   - they are in one warp and a syncwarp whose mask names both lanes came between them, or a
//     chain of syncwarps through other lanes of the warp (per-lane clocks of the warp's syncwarps);
//   - they are in different blocks, and a grid sync came between them, or the first block
//     released (a fence, then an atomic on some address) after the first access and the second
//     block acquired from that address (an atomic on it) before the second access;
//   - they are in one block, and the first thread released after the first access and the
//     second thread acquired that release before the second access (a lock: atomicCAS to take
//     it, the critical section, a fence and an atomic exchange to give it back).
// Between blocks releases are tracked at block granularity (a barrier before the fence makes the
// whole block's writes visible, as the usual "last block" reduction relies on); within a block,
// per thread (a release is numbered by the block's count of releases, which a record's epoch
// holds, so a thread's release numbered above a record's count came after that access).
#pragma once

#include "checker/page_table.h"
#include "codegen/frame_layout.h"
#include "sim/abi.h"
#include "sim/launch.h"

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

namespace simt::checker {

// The per-granule shadow of memory, allocated a page at a time as memory is touched and kept from
// launch to launch (a record of an earlier launch is stale: RaceDetector::launch_started).
class Shadow {
public:
  static constexpr unsigned kCells = 4;
  // The kCells cells of the granule at `address` (8-byte aligned).
  uint64_t *cells(uintptr_t address) {
    Page &page = pages_.get(address);
    return page.cells + kCells * ((address & (PageTable<Page>::kPageSize - 1)) >> 3);
  }
  // Forgets the records of [address, address + bytes) (both 8-byte aligned).
  void clear(uintptr_t address, uint64_t bytes);
  // Forgets the records of [address, address + bytes) and gives back the shadow of its whole
  // pages (the memory is gone); `every_record_stale` (between launches), of every page it
  // touches.
  void drop(uintptr_t address, uint64_t bytes, bool every_record_stale);
  void clear_all() { pages_.clear(); }
  // Bytes of shadow allocated.
  uint64_t bytes() const { return pages_.size() * sizeof(Page); }

private:
  struct Page {
    uint64_t cells[kCells << (PageTable<Page>::kPageBits - 3)] = {}; // zero: no record
  };
  PageTable<Page> pages_;
};

enum class AccessType : uint8_t { Read, Write, Atomic };

// A pair of unordered, conflicting accesses: the earlier one's record and the current access.
struct Conflict {
  uint64_t earlier_block = 0;  // linear block index
  uint32_t earlier_thread = 0; // linear thread index in its block
  int32_t earlier_loc = -1;
  AccessType earlier = AccessType::Read;
  AccessType current = AccessType::Read;
  bool same_warp = false; // same block and warp: an intra-warp hazard
  uintptr_t address = 0;  // the first byte both touch
  // The earlier access is the only write to these bytes with a record: memory holds its value
  // (else another write, recorded or since, overwrote it).
  bool earlier_is_last_write = false;
};

class RaceDetector {
public:
  void launch_started(const sim::LaunchConfig &config);
  // [address, address + bytes) of device memory was freed; `between_launches`: no launch runs,
  // so every record in the shadow is stale.
  void forget(uintptr_t address, uint64_t bytes, bool between_launches) {
    shadow_.drop(address, bytes, between_launches);
  }
  void block_started(const sim::ThreadContext &block, uint64_t shared_bytes);
  void block_finished(const sim::ThreadContext &block, uint64_t shared_bytes);
  // A barrier of `block` released (grid: every block's grid sync).
  void barrier_released(const sim::ThreadContext &block, bool grid);
  void warp_arrived(const sim::ThreadContext &ctx, sim::WarpOp op, uint32_t mask);
  void fence(const sim::ThreadContext &ctx, int64_t scope);
  // Checks and records an access of `size` bytes at `address`; calls `report` for each conflict.
  template <typename Report>
  void access(const sim::ThreadContext &ctx, uintptr_t address, uint32_t size, AccessType type,
              int32_t loc, Report &&report) {
    for (const Conflict &conflict : record(ctx, address, size, type, loc))
      report(conflict);
  }
  // The same, returning the conflicts (valid until the next access).
  std::span<const Conflict> record(const sim::ThreadContext &ctx, uintptr_t address, uint32_t size,
                                   AccessType type, int32_t loc);
  uint64_t shadow_bytes() const { return shadow_.bytes(); }
  // Gives back every page of shadow (between launches: their records are stale).
  void clear_shadow() { shadow_.clear_all(); }

private:
  struct Epoch {
    uint64_t block = 0;
    uint32_t barriers = 0;  // the block's barriers released before
    uint32_t syncwarps = 0; // the block's syncwarps completed before
    uint32_t releases = 0;  // the block's releases before
    uint32_t grid = 0;      // the block's grid syncs before
  };
  // The widest fence a thread made since its last atomic.
  enum class Fenced : uint8_t { None, Block, Device };

  // What the lanes of one warp know of each other through syncwarps: knows[b][a] is one past
  // the latest of the block's syncwarps (counted in BlockSync::syncwarps) that lane a took part
  // in and that lane b has heard of, through it or a chain of later ones. An access of lane a
  // before that syncwarp is ordered before lane b's accesses from then on.
  using WarpClocks = std::array<std::array<uint32_t, 32>, 32>;

  struct BlockSync {
    uint64_t block = 0;
    uint32_t entry = 0; // its current epoch's entry; 0: make one at the next access
    uint32_t barriers = 0, releases = 0, grid_syncs = 0;
    uint32_t syncwarps = 0;                                          // completed
    std::unordered_map<uint32_t, std::unique_ptr<WarpClocks>> warps; // those that syncwarped
    // Per warp, the syncwarps some lanes have arrived at: mask -> the lanes arrived.
    std::unordered_map<uint32_t, std::unordered_map<uint32_t, uint32_t>> pending;
    std::unordered_map<uint64_t, uint32_t> acquired; // block -> its releases seen
    // thread << 32 | releasing thread of the block -> the number of the latest of the latter's
    // releases the former acquired
    std::unordered_map<uint64_t, uint32_t> thread_acquired;
    std::vector<Fenced> fenced; // per thread: since its last atomic
  };

  BlockSync &block_of(const sim::ThreadContext &ctx);
  // The sync epoch of a record's entry (one of this launch's).
  const Epoch &epoch(uint32_t entry) const { return entries_[entry - first_entry_]; }
  uint32_t entry_of(BlockSync &block);
  bool ordered(uint64_t cell, const BlockSync &block, uint32_t thread) const;
  void access_granule(BlockSync &block, uint32_t thread, uint32_t entry, uintptr_t granule,
                      unsigned offset, unsigned length, AccessType type, int32_t loc);

  sim::LaunchConfig config_;
  Shadow shadow_;
  // The entries of this launch, from first_entry_ on: records with an entry before it are stale
  // (earlier launches'), and none has entry 0.
  std::vector<Epoch> entries_;
  uint32_t first_entry_ = 1;
  std::unordered_map<uint64_t, BlockSync> blocks_;
  BlockSync *last_ = nullptr;
  std::unordered_map<uintptr_t, std::unordered_map<uint64_t, uint32_t>> sync_variables_;
  // Per address and block: thread -> the number (in its block's count) of that thread's latest
  // release to the address.
  std::unordered_map<uintptr_t,
                     std::unordered_map<uint64_t, std::unordered_map<uint32_t, uint32_t>>>
      thread_releases_;
  unsigned evict_ = 0;
  std::vector<Conflict> conflicts_; // the current access's
};

inline uint64_t linear_block(const sim::ThreadContext &ctx) {
  return uint64_t(ctx.ctaid[0]) +
         uint64_t(ctx.nctaid[0]) *
             (uint64_t(ctx.ctaid[1]) + uint64_t(ctx.nctaid[1]) * ctx.ctaid[2]);
}

inline uint32_t linear_thread(const sim::ThreadContext &ctx) {
  return uint32_t(ctx.tid[0] + ctx.ntid[0] * (ctx.tid[1] + ctx.ntid[1] * ctx.tid[2]));
}

} // namespace simt::checker
