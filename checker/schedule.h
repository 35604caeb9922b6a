// The orders `simt check --schedule` runs threads and blocks in, so that order-dependent bugs
// show: each block's threads between synchronisation points (a fiber choice) and the grid's blocks
// (a block order). Seeded: a rerun with the same seed gives the same interleaving.
#pragma once

#include "sim/block_scheduler.h"
#include "sim/launch.h"

#include <cstdint>
#include <random>
#include <vector>

namespace simt::checker {

enum class ScheduleKind : uint8_t { InOrder, Random, Reverse };

class Schedule final : public sim::FiberChoice, public sim::BlockOrder {
public:
  Schedule(ScheduleKind kind, uint64_t seed);
  ScheduleKind kind() const { return kind_; }
  uint64_t seed() const { return seed_; }

  size_t next(std::span<const sim::ThreadState> threads, size_t previous) override;
  uint64_t block(uint64_t position, uint64_t count) override;

private:
  ScheduleKind kind_;
  uint64_t seed_;
  std::mt19937_64 random_;
  std::vector<size_t> round_; // this round's order
  size_t round_at_ = 0;
  // The random block order of a launch of `count_` blocks: a seeded bijection of [0, 2^bits)
  // walked until it lands in [0, count).
  uint64_t count_ = 0;
  unsigned bits_ = 0;
  uint64_t multiplier_ = 1, offset_ = 0, multiplier2_ = 1, offset2_ = 0;
};

} // namespace simt::checker
