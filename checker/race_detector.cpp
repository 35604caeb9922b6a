#include "checker/race_detector.h"

#include <algorithm>
#include <cstring>

namespace simt::checker {

namespace {

// A cell: entry (32 bits) | thread (10) | loc + 1 (14; 0: none) | type (2) | offset (3) |
// length - 1 (3).
constexpr uint64_t kLocLimit = (1u << 14) - 1;

uint64_t make_cell(uint32_t entry, uint32_t thread, int32_t loc, AccessType type, unsigned offset,
                   unsigned length) {
  const uint64_t loc_bits = loc >= 0 && uint64_t(loc) < kLocLimit ? uint64_t(loc) + 1 : 0;
  return uint64_t(entry) | uint64_t(thread & 1023) << 32 | loc_bits << 42 | uint64_t(type) << 56 |
         uint64_t(offset) << 58 | uint64_t(length - 1) << 61;
}
uint32_t cell_entry(uint64_t c) { return uint32_t(c); }
uint32_t cell_thread(uint64_t c) { return uint32_t(c >> 32) & 1023; }
int32_t cell_loc(uint64_t c) { return int32_t((c >> 42) & kLocLimit) - 1; }
AccessType cell_type(uint64_t c) { return AccessType((c >> 56) & 3); }
unsigned cell_offset(uint64_t c) { return unsigned(c >> 58) & 7; }
unsigned cell_length(uint64_t c) { return unsigned(c >> 61) + 1; }

bool writes(AccessType type) { return type != AccessType::Read; }

// Whether a later access of one thread conflicts with whatever an earlier one of the same bytes
// conflicts with, so that its record can stand for both: a plain write conflicts with every
// access, an atomic with plain ones only, a read with writes and atomics.
bool supersedes(AccessType later, AccessType earlier) {
  return later == AccessType::Write || later == earlier;
}

} // namespace

void Shadow::clear(uintptr_t address, uint64_t bytes) {
  constexpr uintptr_t page_size = PageTable<Page>::kPageSize;
  for (uintptr_t at = address; at < address + bytes;) {
    const uintptr_t page_start = at & ~(page_size - 1);
    const uintptr_t end = std::min<uintptr_t>(page_start + page_size, address + bytes);
    if (Page *page = pages_.find(at)) {
      const uintptr_t first = (at - page_start) >> 3, last = (end - page_start + 7) >> 3;
      std::memset(page->cells + kCells * first, 0, (last - first) * kCells * sizeof(uint64_t));
    }
    at = end;
  }
}

void Shadow::drop(uintptr_t address, uint64_t bytes, bool every_record_stale) {
  if (!every_record_stale) {
    const uintptr_t first = address & ~uintptr_t(7), last = (address + bytes + 7) & ~uintptr_t(7);
    clear(first, last - first);
  }
  pages_.drop(address, bytes, every_record_stale);
}

void RaceDetector::launch_started(const sim::LaunchConfig &config) {
  config_ = config;
  // Records of earlier launches stay in the shadow, stale by their entries; when the entries'
  // numbers run out, the shadow starts afresh.
  first_entry_ += uint32_t(entries_.size());
  if (first_entry_ > (1u << 31)) {
    shadow_.clear_all();
    first_entry_ = 1;
  }
  entries_.clear();
  blocks_.clear();
  last_ = nullptr;
  sync_variables_.clear();
  thread_releases_.clear();
}

void RaceDetector::block_started(const sim::ThreadContext &block, uint64_t shared_bytes) {
  BlockSync &sync = block_of(block);
  sync.fenced.assign(config_.block.count(), Fenced::None);
  shadow_.clear(uintptr_t(block.shared), (shared_bytes + 7) & ~uint64_t(7));
}

void RaceDetector::block_finished(const sim::ThreadContext &block, uint64_t shared_bytes) {
  shadow_.clear(uintptr_t(block.shared), (shared_bytes + 7) & ~uint64_t(7));
  blocks_.erase(linear_block(block));
  last_ = nullptr;
}

RaceDetector::BlockSync &RaceDetector::block_of(const sim::ThreadContext &ctx) {
  const uint64_t block = linear_block(ctx);
  if (last_ != nullptr && last_->block == block)
    return *last_;
  BlockSync &sync = blocks_[block];
  sync.block = block;
  if (sync.fenced.empty())
    sync.fenced.assign(config_.block.count(), Fenced::None);
  last_ = &sync;
  return sync;
}

uint32_t RaceDetector::entry_of(BlockSync &block) {
  if (block.entry == 0) {
    entries_.push_back(
        Epoch{block.block, block.barriers, block.syncwarps, block.releases, block.grid_syncs});
    block.entry = first_entry_ + uint32_t(entries_.size() - 1);
  }
  return block.entry;
}

void RaceDetector::barrier_released(const sim::ThreadContext &block, bool grid) {
  // A grid sync releases each block in turn: every block has arrived by the first release, so a
  // block's count of grid syncs passed orders its accesses against every other block's.
  BlockSync &sync = block_of(block);
  ++sync.barriers;
  if (grid)
    ++sync.grid_syncs;
  sync.entry = 0;
}

void RaceDetector::warp_arrived(const sim::ThreadContext &ctx, sim::WarpOp op, uint32_t mask) {
  if (op != sim::WarpOp::SyncWarp)
    return;
  BlockSync &sync = block_of(ctx);
  const uint32_t thread = linear_thread(ctx);
  const uint32_t warp = thread / 32;
  uint32_t &arrived = sync.pending[warp][mask];
  arrived |= 1u << (thread % 32);
  // Lanes past the block's last thread never arrive; the warp scheduler faults on lanes that
  // exited. The syncwarp completes when the last named lane arrives.
  const uint64_t threads = config_.block.count();
  const uint32_t existing =
      threads >= uint64_t(warp + 1) * 32 ? ~0u : (1u << (threads - uint64_t(warp) * 32)) - 1;
  if ((arrived & mask & existing) == (mask & existing)) {
    sync.pending[warp].erase(mask);
    std::unique_ptr<WarpClocks> &clocks = sync.warps[warp];
    if (!clocks)
      clocks = std::make_unique<WarpClocks>(); // zeroed: no lane has heard of another
    ++sync.syncwarps;
    const uint32_t lanes = mask & existing;
    std::array<uint32_t, 32> joined{};
    for (unsigned lane = 0; lane < 32; ++lane)
      if ((lanes >> lane & 1) != 0)
        for (unsigned other = 0; other < 32; ++other)
          joined[other] = std::max(joined[other], (*clocks)[lane][other]);
    for (unsigned lane = 0; lane < 32; ++lane)
      if ((lanes >> lane & 1) != 0)
        joined[lane] = sync.syncwarps;
    for (unsigned lane = 0; lane < 32; ++lane)
      if ((lanes >> lane & 1) != 0)
        (*clocks)[lane] = joined;
    sync.entry = 0;
  }
}

void RaceDetector::fence(const sim::ThreadContext &ctx, int64_t scope) {
  BlockSync &sync = block_of(ctx);
  Fenced &fenced = sync.fenced[linear_thread(ctx)];
  // a block-scope fence (scope 0) orders accesses for the block's threads only
  fenced = std::max(fenced, scope == 0 ? Fenced::Block : Fenced::Device);
}

bool RaceDetector::ordered(uint64_t cell, const BlockSync &block, uint32_t thread) const {
  const Epoch &earlier = epoch(cell_entry(cell));
  if (earlier.block == block.block) {
    const uint32_t other = cell_thread(cell);
    if (other == thread || earlier.barriers < block.barriers)
      return true;
    auto acquired = block.thread_acquired.find(uint64_t(thread) << 32 | other);
    if (acquired != block.thread_acquired.end() && acquired->second > earlier.releases)
      return true; // the other thread released after it, and this one acquired that
    if (other / 32 != thread / 32)
      return false;
    auto clocks = block.warps.find(thread / 32);
    return clocks != block.warps.end() &&
           (*clocks->second)[thread % 32][other % 32] > earlier.syncwarps;
  }
  if (earlier.grid < block.grid_syncs)
    return true;
  auto acquired = block.acquired.find(earlier.block);
  return acquired != block.acquired.end() && acquired->second > earlier.releases;
}

std::span<const Conflict> RaceDetector::record(const sim::ThreadContext &ctx, uintptr_t address,
                                               uint32_t size, AccessType type, int32_t loc) {
  conflicts_.clear();
  if (size == 0)
    return conflicts_;
  BlockSync &block = block_of(ctx);
  const uint32_t thread = linear_thread(ctx);
  if (type == AccessType::Atomic) {
    // Acquire what was released to this address, then release to it after a fence.
    auto found = sync_variables_.find(address);
    if (found != sync_variables_.end())
      for (const auto &[other, releases] : found->second) {
        uint32_t &seen = block.acquired[other];
        if (releases > seen) {
          seen = releases;
          block.entry = 0;
        }
      }
    auto by_block = thread_releases_.find(address);
    if (by_block != thread_releases_.end()) {
      auto mine = by_block->second.find(block.block);
      if (mine != by_block->second.end())
        for (const auto &[other, number] : mine->second)
          if (other != thread) {
            uint32_t &seen = block.thread_acquired[uint64_t(thread) << 32 | other];
            seen = std::max(seen, number);
          }
    }
  }
  const uint32_t entry = entry_of(block);
  for (uintptr_t at = address; at < address + size;) {
    const uintptr_t granule = at & ~uintptr_t(7);
    const uintptr_t end = std::min<uintptr_t>(granule + 8, address + size);
    access_granule(block, thread, entry, granule, unsigned(at - granule), unsigned(end - at), type,
                   loc);
    at = end;
  }
  if (type == AccessType::Atomic && block.fenced[thread] != Fenced::None) {
    // A release, numbered in the block's count: to the block's other threads, and after a fence
    // wider than the block, to other blocks.
    ++block.releases;
    thread_releases_[address][block.block][thread] = block.releases;
    if (block.fenced[thread] == Fenced::Device) {
      auto &released = sync_variables_[address];
      for (const auto &[other, releases] : block.acquired)
        released[other] = std::max(released[other], releases);
      released[block.block] = block.releases;
    }
    block.fenced[thread] = Fenced::None;
    block.entry = 0;
  }
  return conflicts_;
}

void RaceDetector::access_granule(BlockSync &block, uint32_t thread, uint32_t entry,
                                  uintptr_t granule, unsigned offset, unsigned length,
                                  AccessType type, int32_t loc) {
  uint64_t *cells = shadow_.cells(granule);
  bool after_all = true; // every overlapping record is ordered before this access
  const size_t first_conflict = conflicts_.size();
  unsigned writers = 0; // overlapping records of writes and atomics
  for (unsigned i = 0; i < Shadow::kCells; ++i) {
    const uint64_t cell = cells[i];
    if (cell == 0)
      continue;
    if (cell_entry(cell) < first_entry_) { // an earlier launch's
      cells[i] = 0;
      continue;
    }
    const unsigned first = std::max(offset, cell_offset(cell));
    const unsigned last = std::min(offset + length, cell_offset(cell) + cell_length(cell));
    if (first >= last)
      continue;
    const AccessType earlier = cell_type(cell);
    writers += writes(earlier);
    if (ordered(cell, block, thread))
      continue;
    if (!writes(earlier) && !writes(type))
      continue; // unordered reads: no hazard, but a later write must still see them
    after_all = false;
    if (earlier == AccessType::Atomic && type == AccessType::Atomic)
      continue;
    const Epoch &earlier_epoch = epoch(cell_entry(cell));
    conflicts_.push_back(
        Conflict{earlier_epoch.block, cell_thread(cell), cell_loc(cell), earlier, type,
                 earlier_epoch.block == block.block && cell_thread(cell) / 32 == thread / 32,
                 granule + first});
  }
  // (A record evicted from a full granule is not counted: a rare miss, as the eviction itself.)
  for (size_t c = first_conflict; c < conflicts_.size(); ++c)
    conflicts_[c].earlier_is_last_write =
        conflicts_[c].earlier == AccessType::Write && writers == 1;
  const uint64_t fresh = make_cell(entry, thread, loc, type, offset, length);
  auto covered = [&](uint64_t cell) {
    return cell_offset(cell) >= offset && cell_offset(cell) + cell_length(cell) <= offset + length;
  };
  if (writes(type) && after_all) {
    // Ordered after every record it covers: a later access that races with one of them races
    // with this write too (or is ordered after it, and so after them).
    for (unsigned i = 0; i < Shadow::kCells; ++i)
      if (cells[i] != 0 && covered(cells[i]) && supersedes(type, cell_type(cells[i])) &&
          ordered(cells[i], block, thread))
        cells[i] = 0;
  }
  int free_cell = -1;
  for (unsigned i = 0; i < Shadow::kCells; ++i) {
    const uint64_t cell = cells[i];
    if (cell == 0) {
      if (free_cell < 0)
        free_cell = int(i);
      continue;
    }
    if (cell_thread(cell) != (thread & 1023) || cell_offset(cell) != offset ||
        cell_length(cell) != length || epoch(cell_entry(cell)).block != block.block)
      continue;
    // This thread's own earlier record of the same bytes: replaced when this access stands for
    // it; nothing to add when it stands for this access in this epoch.
    if (supersedes(type, cell_type(cell))) {
      cells[i] = fresh;
      return;
    }
    if (supersedes(cell_type(cell), type) && cell_entry(cell) == entry)
      return;
  }
  if (free_cell < 0)
    free_cell = int(evict_++ % Shadow::kCells);
  cells[free_cell] = fresh;
}

} // namespace simt::checker
