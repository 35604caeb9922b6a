#include "checker/schedule.h"

#include <algorithm>

namespace simt::checker {

Schedule::Schedule(ScheduleKind kind, uint64_t seed) : kind_(kind), seed_(seed), random_(seed) {}

size_t Schedule::next(std::span<const sim::ThreadState> threads, size_t previous) {
  if (kind_ == ScheduleKind::InOrder)
    return sim::round_robin_next(threads, previous);
  if (previous == none) {
    round_.clear();
    round_at_ = 0;
    for (size_t i = 0; i < threads.size(); ++i)
      if (sim::can_run(threads[i]))
        round_.push_back(i);
    if (kind_ == ScheduleKind::Reverse)
      std::reverse(round_.begin(), round_.end());
    else
      std::shuffle(round_.begin(), round_.end(), random_);
  }
  while (round_at_ < round_.size()) {
    const size_t thread = round_[round_at_++];
    if (sim::can_run(threads[thread]))
      return thread;
  }
  return none;
}

uint64_t Schedule::block(uint64_t position, uint64_t count) {
  if (kind_ == ScheduleKind::InOrder || count <= 1)
    return position;
  if (kind_ == ScheduleKind::Reverse)
    return count - 1 - position;
  if (count != count_) {
    count_ = count;
    bits_ = 1;
    while (bits_ < 64 && (uint64_t(1) << bits_) < count)
      ++bits_;
    std::mt19937_64 parameters(seed_ ^ count);
    multiplier_ = parameters() | 1;
    offset_ = parameters();
    multiplier2_ = parameters() | 1;
    offset2_ = parameters();
  }
  const uint64_t mask = bits_ == 64 ? ~uint64_t(0) : (uint64_t(1) << bits_) - 1;
  const unsigned shift = (bits_ + 1) / 2;
  uint64_t x = position;
  do { // each step is a bijection of [0, 2^bits): so is the walk restricted to [0, count)
    x = (x * multiplier_ + offset_) & mask;
    x ^= x >> shift;
    x = (x * multiplier2_ + offset2_) & mask;
  } while (x >= count);
  return x;
}

} // namespace simt::checker
