// racecheck's happens-before detector (checker/race_detector.h), driven by hand: each test plays
// the events a launch would report (blocks starting and finishing, accesses, barriers, syncwarps,
// fences) and asserts the conflicts found. The detector never dereferences the addresses it is
// given, so the tests use fixed, page-aligned fake addresses, which keeps shadow sizes exact.
#include "checker/race_detector.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

using namespace simt;
using checker::AccessType;
using checker::Conflict;
using checker::RaceDetector;

namespace {

constexpr uintptr_t kShared = 0x10000000; // every block's shared memory (one worker reuses it)
constexpr uintptr_t kGlobal = 0x20000000; // a global array
constexpr uintptr_t kFlag = 0x30000000;   // a global counter blocks synchronise through
constexpr uint64_t kSharedBytes = 4096;
// The shadow of one 4 KiB page: four 8-byte cells per 8-byte granule.
constexpr uint64_t kShadowPage = 4 * 4096;

// A 1-D launch of `blocks` blocks of `threads` threads, and the detector that watches it.
class Launch {
public:
  Launch(uint32_t blocks, uint32_t threads) {
    config_.grid.x = blocks;
    config_.block.x = threads;
    races.launch_started(config_);
  }

  sim::ThreadContext thread(uint32_t block, uint32_t thread) const {
    sim::ThreadContext ctx{};
    ctx.tid[0] = int32_t(thread);
    ctx.ctaid[0] = int32_t(block);
    for (int axis = 0; axis < 3; ++axis) {
      ctx.ntid[axis] = axis == 0 ? int32_t(config_.block.x) : 1;
      ctx.nctaid[axis] = axis == 0 ? int32_t(config_.grid.x) : 1;
    }
    ctx.shared = reinterpret_cast<char *>(kShared);
    return ctx;
  }

  void start(uint32_t block) { races.block_started(thread(block, 0), kSharedBytes); }
  void finish(uint32_t block) { races.block_finished(thread(block, 0), kSharedBytes); }
  void syncthreads(uint32_t block) { races.barrier_released(thread(block, 0), false); }
  // The grid sync as the detector's header describes it: one event for every block's.
  // A grid sync releases every block in turn, as the cooperative scheduler does.
  void grid_sync() {
    for (uint32_t block = 0; block < config_.grid.x; ++block)
      races.barrier_released(thread(block, 0), true);
  }

  // Every lane of `warp` that `mask` names (and that exists) arrives at a syncwarp(mask).
  void syncwarp(uint32_t block, uint32_t warp, uint32_t mask) {
    for (uint32_t lane = 0; lane < 32; ++lane)
      if ((mask >> lane & 1) != 0 && warp * 32 + lane < config_.block.x)
        races.warp_arrived(thread(block, warp * 32 + lane), sim::WarpOp::SyncWarp, mask);
  }
  void fence(uint32_t block, uint32_t thread_index, int64_t scope = 1) {
    races.fence(thread(block, thread_index), scope);
  }

  std::vector<Conflict> access(uint32_t block, uint32_t thread_index, uintptr_t address,
                               uint32_t size, AccessType type, int32_t loc = 0) {
    std::vector<Conflict> found;
    races.access(thread(block, thread_index), address, size, type, loc,
                 [&](const Conflict &conflict) { found.push_back(conflict); });
    return found;
  }
  std::vector<Conflict> write(uint32_t block, uint32_t thread_index, uintptr_t address,
                              int32_t loc = 0) {
    return access(block, thread_index, address, 4, AccessType::Write, loc);
  }
  std::vector<Conflict> read(uint32_t block, uint32_t thread_index, uintptr_t address,
                             int32_t loc = 0) {
    return access(block, thread_index, address, 4, AccessType::Read, loc);
  }
  std::vector<Conflict> atomic(uint32_t block, uint32_t thread_index, uintptr_t address,
                               int32_t loc = 0) {
    return access(block, thread_index, address, 4, AccessType::Atomic, loc);
  }

  RaceDetector races;

private:
  sim::LaunchConfig config_;
};

} // namespace

TEST_CASE("racecheck: ids are linearised x fastest") {
  sim::ThreadContext ctx{};
  ctx.tid[0] = 3, ctx.tid[1] = 2, ctx.tid[2] = 1;
  ctx.ntid[0] = 8, ctx.ntid[1] = 4, ctx.ntid[2] = 2;
  ctx.ctaid[0] = 1, ctx.ctaid[1] = 2, ctx.ctaid[2] = 3;
  ctx.nctaid[0] = 5, ctx.nctaid[1] = 6, ctx.nctaid[2] = 7;
  CHECK(checker::linear_thread(ctx) == 3 + 8 * (2 + 4 * 1));
  CHECK(checker::linear_block(ctx) == 1 + 5 * (2 + 6 * 3));
}

TEST_CASE("racecheck: two warps of a block writing one shared address without a barrier") {
  Launch launch(1, 64);
  launch.start(0);
  CHECK(launch.write(0, 0, kShared + 16, 7).empty());
  const std::vector<Conflict> found = launch.write(0, 32, kShared + 16, 9);
  REQUIRE(found.size() == 1);
  CHECK(found[0].earlier_block == 0);
  CHECK(found[0].earlier_thread == 0);
  CHECK(found[0].earlier_loc == 7);
  CHECK(found[0].earlier == AccessType::Write);
  CHECK(found[0].current == AccessType::Write);
  CHECK(found[0].same_warp == false);
  CHECK(found[0].address == kShared + 16);
}

TEST_CASE("racecheck: two warps of a block writing one global address without a barrier") {
  Launch launch(1, 64);
  launch.start(0);
  CHECK(launch.write(0, 40, kGlobal, 3).empty());
  const std::vector<Conflict> found = launch.write(0, 5, kGlobal, 4);
  REQUIRE(found.size() == 1);
  CHECK(found[0].earlier_block == 0);
  CHECK(found[0].earlier_thread == 40);
  CHECK(found[0].earlier_loc == 3);
  CHECK(found[0].same_warp == false);
  CHECK(found[0].address == kGlobal);
}

TEST_CASE("racecheck: one thread's own accesses never conflict") {
  Launch launch(1, 64);
  launch.start(0);
  CHECK(launch.write(0, 3, kShared).empty());
  CHECK(launch.read(0, 3, kShared).empty());
  CHECK(launch.write(0, 3, kShared).empty());
  CHECK(launch.atomic(0, 3, kShared).empty());
}

TEST_CASE("racecheck: a syncthreads orders the accesses before it before those after it") {
  Launch launch(1, 64);
  launch.start(0);
  CHECK(launch.write(0, 0, kShared).empty());
  launch.syncthreads(0);
  CHECK(launch.write(0, 32, kShared).empty());
  CHECK(launch.read(0, 1, kShared).size() == 1); // no barrier since thread 32's write
  launch.syncthreads(0);
  CHECK(launch.write(0, 0, kShared).empty()); // after both barriers: after every earlier access
}

TEST_CASE("racecheck: lanes of one warp race without a syncwarp (an intra-warp hazard)") {
  Launch launch(1, 32);
  launch.start(0);
  CHECK(launch.write(0, 0, kShared, 1).empty());
  const std::vector<Conflict> found = launch.write(0, 1, kShared, 2);
  REQUIRE(found.size() == 1);
  CHECK(found[0].earlier_thread == 0);
  CHECK(found[0].earlier_loc == 1);
  CHECK(found[0].same_warp == true);
}

TEST_CASE("racecheck: a syncwarp of the whole warp orders its lanes") {
  Launch launch(1, 32);
  launch.start(0);
  CHECK(launch.write(0, 0, kShared).empty());
  launch.syncwarp(0, 0, 0xffffffffu);
  CHECK(launch.write(0, 1, kShared).empty());
}

TEST_CASE("racecheck: a syncwarp whose mask names both lanes orders them") {
  Launch launch(1, 32);
  launch.start(0);
  CHECK(launch.write(0, 0, kShared).empty());
  launch.syncwarp(0, 0, 0b11);
  CHECK(launch.write(0, 1, kShared).empty());
}

TEST_CASE("racecheck: a syncwarp orders nothing until every lane it names has arrived") {
  Launch launch(1, 32);
  launch.start(0);
  CHECK(launch.write(0, 0, kShared).empty());
  launch.races.warp_arrived(launch.thread(0, 0), sim::WarpOp::SyncWarp, 0b11); // lane 1 missing
  CHECK(launch.write(0, 1, kShared).size() == 1);
}

TEST_CASE("racecheck: a syncwarp orders only the lanes its mask names") {
  Launch launch(1, 32);
  launch.start(0);
  CHECK(launch.write(0, 0, kShared).empty());
  launch.syncwarp(0, 0, 0b110); // lanes 1 and 2: not lane 0
  const std::vector<Conflict> found = launch.write(0, 1, kShared);
  REQUIRE(found.size() == 1);
  CHECK(found[0].same_warp == true);
}

TEST_CASE("racecheck: syncwarps order lanes through a chain of other lanes") {
  // Lane 0 writes; syncwarp(lanes 0, 1); syncwarp(lanes 1, 2); lane 2 writes: ordered through
  // lane 1, though no one syncwarp names both 0 and 2.
  Launch launch(1, 32);
  launch.start(0);
  CHECK(launch.write(0, 0, kShared).empty());
  launch.syncwarp(0, 0, 0b011);
  launch.syncwarp(0, 0, 0b110);
  CHECK(launch.write(0, 2, kShared).empty());
}

TEST_CASE("racecheck: a chain of syncwarps in the wrong order orders nothing") {
  // syncwarp(lanes 1, 2) comes before lane 0 hands anything to lane 1: lane 2 never hears of
  // lane 0's write.
  Launch launch(1, 32);
  launch.start(0);
  CHECK(launch.write(0, 0, kShared).empty());
  launch.syncwarp(0, 0, 0b110);
  launch.syncwarp(0, 0, 0b011);
  CHECK(launch.write(0, 2, kShared).size() == 1);
}

TEST_CASE("racecheck: another warp's syncwarp does not order a warp's lanes") {
  Launch launch(1, 64);
  launch.start(0);
  CHECK(launch.write(0, 0, kShared).empty());
  launch.syncwarp(0, 1, 0xffffffffu);
  CHECK(launch.write(0, 1, kShared).size() == 1);
}

TEST_CASE("racecheck: a warp operation other than syncwarp orders nothing") {
  Launch launch(1, 32);
  launch.start(0);
  CHECK(launch.write(0, 0, kShared).empty());
  for (uint32_t lane = 0; lane < 32; ++lane)
    launch.races.warp_arrived(launch.thread(0, lane), sim::WarpOp::ActiveMask, 0xffffffffu);
  CHECK(launch.write(0, 1, kShared).size() == 1);
}

TEST_CASE("racecheck: a full-mask syncwarp of a partial last warp completes when its lanes have "
          "arrived") {
  // 40 threads: warp 1 has lanes 0..7 only; lanes past the block never arrive.
  Launch launch(1, 40);
  launch.start(0);
  CHECK(launch.write(0, 32, kShared).empty());
  launch.syncwarp(0, 1, 0xffffffffu);
  CHECK(launch.write(0, 39, kShared).empty());
}

TEST_CASE("racecheck: a write after a read by another warp is a write-after-read hazard") {
  Launch launch(1, 96);
  launch.start(0);
  CHECK(launch.read(0, 0, kShared, 1).empty());
  CHECK(launch.read(0, 32, kShared, 1).empty()); // unordered reads are no hazard
  std::vector<Conflict> found = launch.write(0, 64, kShared, 2);
  REQUIRE(found.size() == 2); // with each read
  std::sort(found.begin(), found.end(), [](const Conflict &a, const Conflict &b) {
    return a.earlier_thread < b.earlier_thread;
  });
  CHECK(found[0].earlier_thread == 0);
  CHECK(found[1].earlier_thread == 32);
  for (const Conflict &conflict : found) {
    CHECK(conflict.earlier == AccessType::Read);
    CHECK(conflict.current == AccessType::Write);
    CHECK(conflict.earlier_loc == 1);
    CHECK(conflict.same_warp == false);
  }
}

TEST_CASE("racecheck: a write after reads by many threads finds a write-after-read hazard") {
  // More readers than a granule has cells: the write still meets the readers kept.
  Launch launch(1, 128);
  launch.start(0);
  for (uint32_t t = 0; t < 64; ++t)
    CHECK(launch.read(0, t, kShared).empty());
  const std::vector<Conflict> found = launch.write(0, 100, kShared);
  CHECK(found.size() >= 1);
  CHECK(found.size() <= checker::Shadow::kCells);
  std::set<uint32_t> readers;
  for (const Conflict &conflict : found) {
    CHECK(conflict.earlier == AccessType::Read);
    CHECK(conflict.current == AccessType::Write);
    CHECK(conflict.earlier_thread < 64);
    readers.insert(conflict.earlier_thread);
  }
  CHECK(readers.size() == found.size()); // one conflict per reader
}

TEST_CASE("racecheck: a read after another warp's write is a read-after-write hazard") {
  Launch launch(1, 64);
  launch.start(0);
  CHECK(launch.write(0, 33, kGlobal + 8, 5).empty());
  const std::vector<Conflict> found = launch.read(0, 2, kGlobal + 8, 6);
  REQUIRE(found.size() == 1);
  CHECK(found[0].earlier_thread == 33);
  CHECK(found[0].earlier_loc == 5);
  CHECK(found[0].earlier == AccessType::Write);
  CHECK(found[0].current == AccessType::Read);
}

TEST_CASE("racecheck: atomics on one address by many threads never conflict") {
  Launch launch(1, 128);
  launch.start(0);
  for (uint32_t t = 0; t < 128; ++t)
    CHECK(launch.atomic(0, t, kGlobal).empty());
}

TEST_CASE("racecheck: an atomic and a plain access to one address conflict") {
  Launch launch(1, 64);
  launch.start(0);

  SUBCASE("atomic, then a write") {
    CHECK(launch.atomic(0, 0, kGlobal, 1).empty());
    const std::vector<Conflict> found = launch.write(0, 32, kGlobal, 2);
    REQUIRE(found.size() == 1);
    CHECK(found[0].earlier == AccessType::Atomic);
    CHECK(found[0].current == AccessType::Write);
    CHECK(found[0].earlier_thread == 0);
    CHECK(found[0].earlier_loc == 1);
  }
  SUBCASE("atomic, then a read") {
    CHECK(launch.atomic(0, 0, kGlobal).empty());
    const std::vector<Conflict> found = launch.read(0, 32, kGlobal);
    REQUIRE(found.size() == 1);
    CHECK(found[0].earlier == AccessType::Atomic);
    CHECK(found[0].current == AccessType::Read);
  }
  SUBCASE("a write, then an atomic") {
    CHECK(launch.write(0, 0, kGlobal).empty());
    const std::vector<Conflict> found = launch.atomic(0, 32, kGlobal);
    REQUIRE(found.size() == 1);
    CHECK(found[0].earlier == AccessType::Write);
    CHECK(found[0].current == AccessType::Atomic);
  }
}

TEST_CASE("racecheck: accesses of different blocks to one global address conflict") {
  // One worker: block 0 runs to its end before block 1 starts, yet nothing orders them.
  Launch launch(2, 32);
  launch.start(0);
  CHECK(launch.write(0, 0, kGlobal, 1).empty());
  launch.finish(0);
  launch.start(1);
  const std::vector<Conflict> found = launch.write(1, 0, kGlobal, 2);
  REQUIRE(found.size() == 1);
  CHECK(found[0].earlier_block == 0);
  CHECK(found[0].earlier_thread == 0);
  CHECK(found[0].earlier_loc == 1);
  CHECK(found[0].same_warp == false); // same thread and warp index, but another block
  CHECK(found[0].address == kGlobal);
}

TEST_CASE("racecheck: a barrier of one block does not order another block's accesses") {
  Launch launch(2, 32);
  launch.start(0);
  launch.start(1);
  CHECK(launch.write(0, 0, kGlobal).empty());
  launch.syncthreads(0);
  launch.syncthreads(1);
  CHECK(launch.read(1, 0, kGlobal).size() == 1);
}

TEST_CASE("racecheck: blocks reusing one shared memory buffer do not race") {
  // Shared memory is per block: the next block on the worker starts with no records of it.
  Launch launch(2, 32);
  launch.start(0);
  CHECK(launch.write(0, 0, kShared).empty());
  launch.finish(0);
  launch.start(1);
  CHECK(launch.write(1, 0, kShared).empty());
}

TEST_CASE("racecheck: a grid sync orders the accesses of different blocks") {
  Launch launch(2, 32); // a cooperative launch: both blocks resident
  launch.start(0);
  launch.start(1);
  CHECK(launch.write(0, 0, kGlobal).empty());
  launch.grid_sync();
  CHECK(launch.write(1, 0, kGlobal).empty());
  CHECK(launch.read(0, 5, kGlobal).size() == 1); // block 1's write came after the grid sync
}

// A grid sync releases each block's threads in turn (sim/grid_scheduler.cpp tells observers of
// each block's release): two blocks writing one address after the same grid sync still race.
TEST_CASE("racecheck: writes of two blocks after one grid sync, released block by block, "
          "conflict") {
  Launch launch(2, 32);
  launch.start(0);
  launch.start(1);
  launch.races.barrier_released(launch.thread(0, 0), true); // block 0's threads leave the sync
  CHECK(launch.write(0, 0, kGlobal).empty());
  launch.races.barrier_released(launch.thread(1, 0), true); // then block 1's
  CHECK(launch.write(1, 0, kGlobal).size() == 1);
}

TEST_CASE("racecheck: a fence then an atomic releases a block's accesses to the block that "
          "acquires with an atomic on that address") {
  Launch launch(2, 64);
  launch.start(0);
  CHECK(launch.write(0, 0, kGlobal).empty());
  CHECK(launch.write(0, 40, kGlobal + 64).empty()); // block granularity: another thread's too
  launch.fence(0, 0);
  CHECK(launch.atomic(0, 0, kFlag).empty()); // release
  launch.finish(0);
  launch.start(1);
  CHECK(launch.atomic(1, 0, kFlag).empty()); // acquire
  CHECK(launch.read(1, 0, kGlobal).empty());
  CHECK(launch.write(1, 0, kGlobal + 64).empty());
}

TEST_CASE("racecheck: a release orders nothing without its fence, its acquire, or before it") {
  Launch launch(2, 32);
  launch.start(0);
  CHECK(launch.write(0, 0, kGlobal).empty());

  SUBCASE("an atomic without a fence releases nothing") {
    CHECK(launch.atomic(0, 0, kFlag).empty());
    launch.finish(0);
    launch.start(1);
    CHECK(launch.atomic(1, 0, kFlag).empty());
    CHECK(launch.read(1, 0, kGlobal).size() == 1);
  }
  SUBCASE("a block-scope fence releases nothing to other blocks") {
    launch.fence(0, 0, 0);
    CHECK(launch.atomic(0, 0, kFlag).empty());
    launch.finish(0);
    launch.start(1);
    CHECK(launch.atomic(1, 0, kFlag).empty());
    CHECK(launch.read(1, 0, kGlobal).size() == 1);
  }
  SUBCASE("an access before the acquire is not ordered") {
    launch.fence(0, 0);
    CHECK(launch.atomic(0, 0, kFlag).empty());
    launch.finish(0);
    launch.start(1);
    CHECK(launch.read(1, 0, kGlobal).size() == 1);
  }
  SUBCASE("an atomic on another address acquires nothing") {
    launch.fence(0, 0);
    CHECK(launch.atomic(0, 0, kFlag).empty());
    launch.finish(0);
    launch.start(1);
    CHECK(launch.atomic(1, 0, kFlag + 8).empty());
    CHECK(launch.read(1, 0, kGlobal).size() == 1);
  }
  SUBCASE("an access after the release is not released by it") {
    launch.fence(0, 0);
    CHECK(launch.atomic(0, 0, kFlag).empty());
    CHECK(launch.write(0, 0, kGlobal + 64).empty());
    launch.finish(0);
    launch.start(1);
    CHECK(launch.atomic(1, 0, kFlag).empty());
    CHECK(launch.read(1, 0, kGlobal).empty());
    CHECK(launch.read(1, 0, kGlobal + 64).size() == 1);
  }
}

TEST_CASE("racecheck: releases pass on: what block 1 acquired from block 0 it releases to "
          "block 2") {
  Launch launch(3, 32);
  launch.start(0);
  CHECK(launch.write(0, 0, kGlobal).empty());
  launch.fence(0, 0);
  CHECK(launch.atomic(0, 0, kFlag).empty());
  launch.finish(0);
  launch.start(1);
  CHECK(launch.atomic(1, 0, kFlag).empty()); // acquires block 0's release
  launch.fence(1, 0);
  CHECK(launch.atomic(1, 0, kFlag + 8).empty()); // releases it on, to another address
  launch.finish(1);
  launch.start(2);
  CHECK(launch.atomic(2, 0, kFlag + 8).empty());
  CHECK(launch.read(2, 0, kGlobal).empty());
}

TEST_CASE("racecheck: within a block, a thread's release orders its accesses before it for the "
          "thread that acquires it (a lock)") {
  Launch launch(1, 64);
  launch.start(0);
  CHECK(launch.atomic(0, 0, kFlag).empty()); // takes the lock
  CHECK(launch.write(0, 0, kGlobal).empty());

  auto released_to_another_warp = [&]() {
    CHECK(launch.atomic(0, 0, kFlag).empty());  // gives it back
    CHECK(launch.atomic(0, 40, kFlag).empty()); // another warp's thread takes it
    CHECK(launch.read(0, 40, kGlobal).empty());
    CHECK(launch.write(0, 40, kGlobal).empty());
  };
  SUBCASE("a block-scope fence, then an atomic, releases to the block's threads") {
    launch.fence(0, 0, 0);
    released_to_another_warp();
  }
  SUBCASE("so does a device-scope fence") {
    launch.fence(0, 0, 1);
    released_to_another_warp();
  }
  SUBCASE("without the fence nothing is released") {
    CHECK(launch.atomic(0, 0, kFlag).empty());
    CHECK(launch.atomic(0, 40, kFlag).empty());
    CHECK(launch.read(0, 40, kGlobal).size() == 1);
  }
  SUBCASE("another thread's release does not release this thread's accesses") {
    launch.fence(0, 1);
    CHECK(launch.atomic(0, 1, kFlag).empty());
    CHECK(launch.atomic(0, 40, kFlag).empty());
    CHECK(launch.read(0, 40, kGlobal).size() == 1);
  }
  SUBCASE("an access after the release is not released by it") {
    launch.fence(0, 0);
    CHECK(launch.atomic(0, 0, kFlag).empty());
    CHECK(launch.write(0, 0, kGlobal + 64).empty());
    CHECK(launch.atomic(0, 40, kFlag).empty());
    CHECK(launch.read(0, 40, kGlobal).empty());
    CHECK(launch.read(0, 40, kGlobal + 64).size() == 1);
  }
}

TEST_CASE("racecheck: a write-after-write knows the earlier value only when memory still holds "
          "it") {
  Launch launch(1, 64);
  launch.start(0);
  CHECK(launch.write(0, 0, kGlobal).empty());
  std::vector<Conflict> second = launch.write(0, 40, kGlobal);
  REQUIRE(second.size() == 1);
  CHECK(second[0].earlier_is_last_write); // thread 0's write is the only one before
  std::vector<Conflict> third = launch.write(0, 41, kGlobal);
  REQUIRE(third.size() == 2);
  CHECK_FALSE(third[0].earlier_is_last_write); // thread 40's write came after thread 0's
  CHECK_FALSE(third[1].earlier_is_last_write);
}

TEST_CASE("racecheck: accesses to different bytes of one 8-byte granule do not conflict") {
  Launch launch(1, 128);
  launch.start(0);
  CHECK(launch.access(0, 0, kShared, 1, AccessType::Write).empty());
  CHECK(launch.access(0, 32, kShared + 1, 1, AccessType::Write).empty());
  CHECK(launch.access(0, 64, kShared + 4, 4, AccessType::Write).empty());
  // A 2-byte write over the first two meets each of them, at the byte they share.
  std::vector<Conflict> found = launch.access(0, 96, kShared, 2, AccessType::Write);
  REQUIRE(found.size() == 2);
  std::sort(found.begin(), found.end(),
            [](const Conflict &a, const Conflict &b) { return a.address < b.address; });
  CHECK(found[0].address == kShared);
  CHECK(found[0].earlier_thread == 0);
  CHECK(found[1].address == kShared + 1);
  CHECK(found[1].earlier_thread == 32);
}

TEST_CASE("racecheck: an access crossing a granule boundary conflicts on either side") {
  Launch launch(1, 128);
  launch.start(0);
  // Bytes 4..11: the last half of granule 0 and the first half of granule 1.
  CHECK(launch.access(0, 0, kGlobal + 4, 8, AccessType::Write, 1).empty());
  CHECK(launch.access(0, 32, kGlobal + 3, 1, AccessType::Write).empty());  // just before
  CHECK(launch.access(0, 32, kGlobal + 12, 1, AccessType::Write).empty()); // just after

  std::vector<Conflict> found = launch.access(0, 64, kGlobal + 11, 1, AccessType::Read);
  REQUIRE(found.size() == 1);
  CHECK(found[0].address == kGlobal + 11);
  CHECK(found[0].earlier_thread == 0);
  CHECK(found[0].earlier_loc == 1);

  found = launch.access(0, 96, kGlobal + 4, 1, AccessType::Read);
  REQUIRE(found.size() == 1);
  CHECK(found[0].address == kGlobal + 4);
  CHECK(found[0].earlier_thread == 0);
}

TEST_CASE("racecheck: a new launch forgets the last launch's records") {
  Launch launch(1, 64);
  launch.start(0);
  CHECK(launch.write(0, 0, kGlobal).empty());
  CHECK(launch.races.shadow_bytes() == kShadowPage);
  sim::LaunchConfig next;
  next.block.x = 64;
  launch.races.launch_started(next);
  // The shadow stays (no page made anew each launch); the records in it are stale.
  CHECK(launch.races.shadow_bytes() == kShadowPage);
  launch.start(0);
  CHECK(launch.write(0, 32, kGlobal).empty());
  CHECK(launch.read(0, 33, kGlobal).size() == 1); // this launch's records still count
}

TEST_CASE("racecheck: freed device memory gives its whole shadow pages back") {
  Launch launch(1, 64);
  launch.start(0);
  CHECK(launch.write(0, 0, kGlobal).empty());
  // During a launch, part of a page: the page stays, the records go.
  launch.races.forget(kGlobal, 8, false);
  CHECK(launch.races.shadow_bytes() == kShadowPage);
  CHECK(launch.write(0, 1, kGlobal).empty());
  launch.races.forget(kGlobal & ~uintptr_t(4095), 4096, false);
  CHECK(launch.races.shadow_bytes() == 0);
  // Between launches every record is stale: each page the memory touches goes.
  CHECK(launch.write(0, 1, kGlobal).empty());
  CHECK(launch.write(0, 1, kGlobal + 4096).empty());
  CHECK(launch.races.shadow_bytes() == 2 * kShadowPage);
  launch.races.forget(kGlobal + 4000, 200, true);
  CHECK(launch.races.shadow_bytes() == 0);
}

TEST_CASE("racecheck: shadow memory is allocated a page at a time, 4x the memory it shadows") {
  Launch launch(1, 32);
  launch.start(0);
  CHECK(launch.races.shadow_bytes() == 0);
  CHECK(launch.read(0, 0, kGlobal).empty());
  CHECK(launch.races.shadow_bytes() == kShadowPage);
  CHECK(launch.read(0, 0, kGlobal + 4092).empty()); // the same page
  CHECK(launch.races.shadow_bytes() == kShadowPage);
  CHECK(launch.read(0, 0, kGlobal + 5 * 4096 + 100).empty());
  CHECK(launch.races.shadow_bytes() == 2 * kShadowPage);
  CHECK(launch.read(0, 0, kGlobal + 4094).empty()); // crosses into page 1
  CHECK(launch.races.shadow_bytes() == 3 * kShadowPage);
}

TEST_CASE("racecheck: the shadow of a 1 MiB array written by one thread is 4 MiB") {
  constexpr uint64_t kBytes = uint64_t(1) << 20;
  Launch launch(1, 32);
  launch.start(0);
  SUBCASE("page-aligned: exactly 4x") {
    size_t conflicts = 0;
    for (uint64_t at = 0; at < kBytes; at += sizeof(float))
      conflicts += launch.write(0, 0, kGlobal + at).size();
    CHECK(conflicts == 0);
    CHECK(launch.races.shadow_bytes() == 4 * kBytes);
  }
  SUBCASE("anywhere (a real buffer): at most 4x and a page either side") {
    std::vector<float> buffer(kBytes / sizeof(float));
    const auto start = reinterpret_cast<uintptr_t>(buffer.data());
    size_t conflicts = 0;
    for (uint64_t at = 0; at < kBytes; at += sizeof(float))
      conflicts += launch.write(0, 0, start + at).size();
    CHECK(conflicts == 0);
    CHECK(launch.races.shadow_bytes() >= 4 * kBytes);
    CHECK(launch.races.shadow_bytes() <= 4 * kBytes + 2 * kShadowPage);
  }
}

// A thread's plain access followed by its own atomic on the same bytes: the atomic's record does
// not stand for the plain one (a later atomic by another warp races with the plain access, not
// with the atomic), so both are kept.
TEST_CASE("racecheck: a plain write, then the same thread's atomic, still races with another "
          "warp's atomic") {
  Launch launch(1, 64);
  launch.start(0);
  CHECK(launch.write(0, 0, kGlobal, 1).empty());
  CHECK(launch.atomic(0, 0, kGlobal, 2).empty());
  const std::vector<Conflict> found = launch.atomic(0, 32, kGlobal, 3);
  REQUIRE(found.size() == 1);
  CHECK(found[0].earlier == AccessType::Write);
  CHECK(found[0].earlier_loc == 1);
  CHECK(found[0].current == AccessType::Atomic);
}
