// The schedules of `simt check --schedule` (checker/schedule.h): the order a block's threads are
// resumed in within a round (FiberChoice) and the order of a grid's blocks (BlockOrder).
#include "checker/schedule.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <set>
#include <vector>

using namespace simt;
using checker::Schedule;
using checker::ScheduleKind;
using Phase = sim::ThreadState::Phase;

namespace {

constexpr size_t kNone = sim::FiberChoice::none;

std::vector<sim::ThreadState> threads_in(const std::vector<Phase> &phases) {
  std::vector<sim::ThreadState> threads(phases.size());
  for (size_t i = 0; i < phases.size(); ++i)
    threads[i].phase = phases[i];
  return threads;
}

std::vector<sim::ThreadState> runnable_threads(size_t count) {
  return threads_in(std::vector<Phase>(count, Phase::Runnable));
}

// One round: the threads `schedule` resumes, in order, until it ends the round.
std::vector<size_t> round(Schedule &schedule, const std::vector<sim::ThreadState> &threads) {
  std::vector<size_t> order;
  for (size_t i = schedule.next(threads, kNone); i != kNone; i = schedule.next(threads, i)) {
    order.push_back(i);
    REQUIRE(order.size() <= threads.size()); // a round resumes each thread at most once
  }
  return order;
}

std::vector<size_t> iota(size_t count) {
  std::vector<size_t> out(count);
  std::iota(out.begin(), out.end(), size_t(0));
  return out;
}

// The block order of a `count`-block launch.
std::vector<uint64_t> block_order(Schedule &schedule, uint64_t count) {
  std::vector<uint64_t> order;
  for (uint64_t position = 0; position < count; ++position)
    order.push_back(schedule.block(position, count));
  return order;
}

bool is_permutation_of_range(std::vector<uint64_t> order) {
  std::sort(order.begin(), order.end());
  for (uint64_t i = 0; i < order.size(); ++i)
    if (order[i] != i)
      return false;
  return true;
}

// Not started, Runnable, Yielded and Stopped threads can run; parked and finished ones cannot.
const std::vector<Phase> kMixed = {Phase::Runnable,  Phase::Parked,  Phase::NotStarted,
                                   Phase::Finished,  Phase::Yielded, Phase::Stopped,
                                   Phase::WarpParked};
const std::vector<size_t> kRunnableOfMixed = {0, 2, 4, 5};

} // namespace

TEST_CASE("schedule: the schedule remembers its kind and seed") {
  Schedule schedule(ScheduleKind::Random, 1234);
  CHECK(schedule.kind() == ScheduleKind::Random);
  CHECK(schedule.seed() == 1234);
}

TEST_CASE("schedule: in order resumes the threads that can run round-robin") {
  Schedule schedule(ScheduleKind::InOrder, 7);
  const std::vector<sim::ThreadState> threads = threads_in(kMixed);
  CHECK(round(schedule, threads) == kRunnableOfMixed);
  CHECK(round(schedule, threads) == kRunnableOfMixed); // every round alike
}

TEST_CASE("schedule: reverse resumes the threads that can run last first") {
  Schedule schedule(ScheduleKind::Reverse, 0);
  const std::vector<sim::ThreadState> threads = threads_in(kMixed);
  CHECK(round(schedule, threads) == std::vector<size_t>{5, 4, 2, 0});
  CHECK(round(schedule, threads) == std::vector<size_t>{5, 4, 2, 0});
  CHECK(round(schedule, runnable_threads(3)) == std::vector<size_t>{2, 1, 0});
}

TEST_CASE("schedule: a round skips a thread that can no longer run when its turn comes") {
  Schedule schedule(ScheduleKind::Reverse, 0);
  std::vector<sim::ThreadState> threads = runnable_threads(4);
  CHECK(schedule.next(threads, kNone) == 3);
  threads[2].phase = Phase::Finished; // while the round ran: passed over
  CHECK(schedule.next(threads, 3) == 1);
  CHECK(schedule.next(threads, 1) == 0);
  CHECK(schedule.next(threads, 0) == kNone);
}

TEST_CASE("schedule: a random round is a permutation of the threads that can run") {
  Schedule schedule(ScheduleKind::Random, 42);
  const std::vector<sim::ThreadState> mixed = threads_in(kMixed);
  for (int i = 0; i < 20; ++i) {
    std::vector<size_t> order = round(schedule, mixed);
    std::sort(order.begin(), order.end());
    CHECK(order == kRunnableOfMixed);
  }
  const std::vector<sim::ThreadState> many = runnable_threads(100);
  std::vector<size_t> order = round(schedule, many);
  CHECK(order != iota(100)); // shuffled (one chance in 100! of the identity)
  std::sort(order.begin(), order.end());
  CHECK(order == iota(100));
}

TEST_CASE("schedule: a random schedule's rounds are the same for the same seed") {
  const std::vector<sim::ThreadState> threads = runnable_threads(64);
  Schedule first(ScheduleKind::Random, 99), second(ScheduleKind::Random, 99);
  Schedule other(ScheduleKind::Random, 100);
  std::vector<size_t> previous;
  for (int i = 0; i < 5; ++i) {
    const std::vector<size_t> order = round(first, threads);
    CHECK(round(second, threads) == order);
    CHECK(round(other, threads) != order); // another seed, another interleaving
    CHECK(order != previous);              // each round shuffled afresh
    previous = order;
  }
}

TEST_CASE("schedule: in order runs blocks in order, reverse last first") {
  Schedule in_order(ScheduleKind::InOrder, 5), reverse(ScheduleKind::Reverse, 5);
  for (uint64_t count : {1, 2, 7, 1000}) {
    for (uint64_t position = 0; position < count; ++position) {
      CHECK(in_order.block(position, count) == position);
      CHECK(reverse.block(position, count) == count - 1 - position);
    }
  }
}

TEST_CASE("schedule: a random block order is a permutation of the blocks") {
  for (uint64_t seed : {0, 1, 42}) {
    Schedule schedule(ScheduleKind::Random, seed);
    for (uint64_t count : {1, 2, 7, 1000, 4097}) {
      CAPTURE(seed);
      CAPTURE(count);
      const std::vector<uint64_t> order = block_order(schedule, count);
      CHECK(is_permutation_of_range(order));
    }
  }
}

TEST_CASE("schedule: a random block order shuffles, the same for the same seed") {
  Schedule schedule(ScheduleKind::Random, 42), same(ScheduleKind::Random, 42);
  const std::vector<uint64_t> order = block_order(schedule, 1000);
  std::vector<uint64_t> identity(1000);
  std::iota(identity.begin(), identity.end(), uint64_t(0));
  CHECK(order != identity);
  CHECK(block_order(same, 1000) == order);
  // Another launch's count in between does not change this count's order.
  CHECK(block_order(schedule, 7).size() == 7);
  CHECK(block_order(schedule, 1000) == order);
  Schedule other(ScheduleKind::Random, 43);
  CHECK(block_order(other, 1000) != order);
}
