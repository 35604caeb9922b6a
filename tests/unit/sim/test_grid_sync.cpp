// Cooperative launches (sim/grid_scheduler.*) driven by hand-written kernels that call
// simt_rt_grid_sync the way JIT-compiled code does. tests/unit/CMakeLists.txt runs these cases
// again with one worker and with four.
#include "sim/abi.h"
#include "sim/launch.h"
#include "sim/stack_pool.h"

#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

using namespace simt::sim;

namespace {

template <typename T> T &arg(void **args, int i) { return *static_cast<T *>(args[i]); }

int64_t global_id(const ThreadContext *ctx) {
  int64_t block = ctx->ctaid[0] + int64_t(ctx->nctaid[0]) * ctx->ctaid[1];
  return block * ctx->ntid[0] * ctx->ntid[1] + ctx->tid[0] + ctx->ntid[0] * ctx->tid[1];
}

int64_t grid_threads(const ThreadContext *ctx) {
  return int64_t(ctx->nctaid[0]) * ctx->nctaid[1] * ctx->ntid[0] * ctx->ntid[1];
}

KernelCode cooperative_kernel(KernelEntry thread, int64_t static_shared = 0) {
  KernelCode code;
  code.name = std::string("k");
  code.thread_entry = thread;
  code.cooperative = true;
  code.static_shared_bytes = static_shared;
  for (int line : {10, 12, 14}) {
    SourceLocation where;
    where.file = std::string("grid.py");
    where.line = line;
    where.function = std::string("k");
    code.locations.push_back(where);
  }
  return code;
}

LaunchConfig config(Dim3 grid, Dim3 block) { return LaunchConfig{grid, block, 0}; }

// Rounds of a stencil over two buffers: each thread reads what a thread of another block wrote
// in the round before. Without a grid-wide barrier the reads would race the writes.
constexpr int rounds = 6;
void rotate_rounds(void **args, ThreadContext *ctx) {
  int64_t *buffers[2] = {arg<int64_t *>(args, 0), arg<int64_t *>(args, 1)};
  const int64_t i = global_id(ctx), n = grid_threads(ctx), stride = ctx->ntid[0] * ctx->ntid[1];
  buffers[0][i] = i;
  for (int r = 0; r < rounds; ++r) {
    simt_rt_grid_sync(ctx, 0);
    if (ctx->status != 0)
      return;
    buffers[(r + 1) % 2][i] = buffers[r % 2][(i + stride) % n] + 1;
  }
}

// A block sum (shared memory and syncthreads), a grid sync, then block 0 sums the partials.
void grid_sum(void **args, ThreadContext *ctx) {
  const int64_t *in = arg<const int64_t *>(args, 0);
  int64_t *partials = arg<int64_t *>(args, 1);
  int64_t *total = arg<int64_t *>(args, 2);
  int64_t *shared = reinterpret_cast<int64_t *>(ctx->shared);
  const int32_t t = ctx->tid[0], n = ctx->ntid[0];
  shared[t] = in[global_id(ctx)];
  for (int32_t stride = n / 2; stride > 0; stride /= 2) {
    simt_rt_syncthreads(ctx, 1);
    if (ctx->status != 0)
      return;
    if (t < stride)
      shared[t] += shared[t + stride];
  }
  if (t == 0)
    partials[ctx->ctaid[0]] = shared[0];
  simt_rt_grid_sync(ctx, 0);
  if (ctx->status != 0 || ctx->ctaid[0] != 0 || t != 0)
    return;
  for (int32_t b = 0; b < ctx->nctaid[0]; ++b)
    *total += partials[b];
}

// Odd threads and all of block 1 return at once; the rest still pass the grid barrier.
void early_exit(void **args, ThreadContext *ctx) {
  std::atomic<int> &passed = arg<std::atomic<int>>(args, 0);
  if (ctx->tid[0] % 2 == 1 || ctx->ctaid[0] == 1)
    return;
  simt_rt_grid_sync(ctx, 0);
  if (ctx->status == 0)
    passed.fetch_add(1);
}

// Thread 3 of block 2 faults after the first grid sync while every other thread waits at the
// second one.
void fault_while_grid_waits(void **args, ThreadContext *ctx) {
  std::atomic<int> &finished = arg<std::atomic<int>>(args, 0);
  std::atomic<int> &past_second = arg<std::atomic<int>>(args, 1);
  simt_rt_grid_sync(ctx, 0);
  if (ctx->status == 0) {
    if (ctx->tid[0] == 3 && ctx->ctaid[0] == 2) {
      simt_rt_index_error(ctx, 9, 0, 4, 2);
    } else {
      simt_rt_grid_sync(ctx, 0);
      if (ctx->status == 0)
        past_second.fetch_add(1);
    }
  }
  finished.fetch_add(1);
}

// In block 1, thread 0 waits at a syncthreads while the others wait at the grid sync.
void syncthreads_against_grid_sync(void **, ThreadContext *ctx) {
  if (ctx->ctaid[0] == 1 && ctx->tid[0] == 0)
    simt_rt_syncthreads(ctx, 1);
  else
    simt_rt_grid_sync(ctx, 0);
}

// Block 2 waits at another grid sync than the rest of the grid.
void different_grid_syncs(void **, ThreadContext *ctx) {
  simt_rt_grid_sync(ctx, ctx->ctaid[0] == 2 ? 2 : 0);
}

void one_grid_sync(void **, ThreadContext *ctx) { simt_rt_grid_sync(ctx, 0); }

} // namespace

TEST_CASE("cooperative: every thread reads what other blocks wrote before each grid sync") {
  const Dim3 grid{4, 2, 1}, block{8, 4, 1};
  const int64_t n = int64_t(grid.count() * block.count()), stride = int64_t(block.count());
  std::vector<int64_t> a(n, -1), b(n, -1);
  int64_t *pa = a.data(), *pb = b.data();
  void *args[] = {&pa, &pb};
  REQUIRE_FALSE(launch(cooperative_kernel(rotate_rounds), config(grid, block), args));
  const std::vector<int64_t> &last = rounds % 2 == 0 ? a : b;
  for (int64_t i = 0; i < n; ++i)
    REQUIRE(last[i] == (i + rounds * stride) % n + rounds);
}

TEST_CASE("cooperative: syncthreads keep working, and a grid-wide sum needs no atomics") {
  const uint32_t blocks = 6, threads = 64;
  std::vector<int64_t> in(blocks * threads), partials(blocks, 0);
  int64_t expected = 0, total = 0;
  for (size_t i = 0; i < in.size(); ++i)
    expected += in[i] = int64_t(i * i % 101);
  const int64_t *pin = in.data();
  int64_t *pp = partials.data(), *pt = &total;
  void *args[] = {&pin, &pp, &pt};
  REQUIRE_FALSE(
      launch(cooperative_kernel(grid_sum, threads * 8), config({blocks, 1, 1}, {threads}), args));
  CHECK(total == expected);
}

TEST_CASE("cooperative: threads and whole blocks that exited count as arrived") {
  std::atomic<int> passed{0};
  void *args[] = {&passed};
  REQUIRE_FALSE(launch(cooperative_kernel(early_exit), config({3, 1, 1}, {16}), args));
  CHECK(passed == 2 * 8);
}

TEST_CASE("cooperative: a fault while the grid waits stops every thread, and all fibers end") {
  std::atomic<int> finished{0}, past_second{0};
  void *args[] = {&finished, &past_second};
  auto fault = launch(cooperative_kernel(fault_while_grid_waits), config({4, 1, 1}, {8}), args);
  REQUIRE(fault);
  CHECK(fault->exception == "IndexError");
  CHECK(fault->message == "index 9 is out of bounds for axis 0 with size 4");
  CHECK(fault->tid.x == 3);
  CHECK(fault->ctaid.x == 2);
  CHECK(fault->where.line == 14);
  CHECK(finished == 32);
  CHECK(past_second == 0);
}

TEST_CASE("cooperative: syncthreads against grid sync in one block is an error, not a hang") {
  auto fault =
      launch(cooperative_kernel(syncthreads_against_grid_sync), config({3, 1, 1}, {4}), nullptr);
  REQUIRE(fault);
  CHECK(fault->exception == "RuntimeError");
  CHECK(fault->message == "simt: threads of block (1, 0, 0) wait at different barriers: thread "
                          "(1, 0, 0) at grid sync grid.py:10 and thread (0, 0, 0) at syncthreads "
                          "grid.py:12");
}

TEST_CASE("cooperative: blocks waiting at different grid syncs are an error, not a hang") {
  auto fault = launch(cooperative_kernel(different_grid_syncs), config({3, 1, 1}, {4}), nullptr);
  REQUIRE(fault);
  CHECK(fault->exception == "RuntimeError");
  const std::string &m = fault->message;
  CHECK(m.find("simt: threads wait at different grid syncs: thread (0, 0, 0) of block ") == 0);
  CHECK(m.find("grid.py:10") != std::string::npos);
  CHECK(m.find("grid.py:14") != std::string::npos);
}

TEST_CASE("cooperative: grid sync in a kernel not launched cooperatively is a fault") {
  KernelCode code = cooperative_kernel(one_grid_sync);
  code.cooperative = false;
  auto fault = launch(code, config({2, 1, 1}, {4}), nullptr);
  REQUIRE(fault);
  CHECK(fault->message == "simt: grid sync reached in a kernel not launched cooperatively");
}

TEST_CASE("cooperative: the resident block limit follows the simulated multiprocessors") {
  const KernelCode code = cooperative_kernel(one_grid_sync);
  const uint64_t sms = worker_count();
  // 32 blocks per multiprocessor at most, 64 warps, 164 KiB of shared memory (1 KiB reserved per
  // block), and max_cooperative_threads threads in all.
  CHECK(max_cooperative_blocks(code, {32}, 0) == std::min<uint64_t>(32 * sms, 256));
  CHECK(max_cooperative_blocks(code, {256}, 0) == std::min<uint64_t>(8 * sms, 32));
  CHECK(max_cooperative_blocks(code, {16, 16, 4}, 0) == std::min<uint64_t>(2 * sms, 8));
  CHECK(max_cooperative_blocks(code, {33}, 0) == std::min<uint64_t>(32 * sms, 248));
  CHECK(max_cooperative_blocks(code, {32}, 40 * 1024) == std::min<uint64_t>(4 * sms, 256));
  CHECK(max_cooperative_blocks(cooperative_kernel(one_grid_sync, 82 * 1024), {32}, 0) == sms);
}

TEST_CASE("cooperative: a grid larger than can be resident is refused before it runs") {
  const KernelCode code = cooperative_kernel(one_grid_sync);
  const uint64_t limit = max_cooperative_blocks(code, {128}, 0);
  REQUIRE_FALSE(launch(code, config({uint32_t(limit), 1, 1}, {128}), nullptr));
  try {
    launch(code, config({uint32_t(limit + 1), 1, 1}, {128}), nullptr);
    FAIL("expected std::invalid_argument");
  } catch (const std::invalid_argument &e) {
    CHECK(std::string(e.what()) ==
          "simt: cooperative launch too large: kernel k uses grid sync, so all of its blocks must "
          "be resident at once, and " +
              std::to_string(limit + 1) + " blocks exceed the " + std::to_string(limit) +
              " blocks of 128 threads that can be (see max_cooperative_grid_blocks)");
  }
}

TEST_CASE("cooperative: the pool keeps a bounded share of a grid's fiber stacks") {
  std::atomic<int> passed{0};
  void *args[] = {&passed};
  REQUIRE_FALSE(launch(cooperative_kernel(early_exit), config({32, 1, 1}, {64}), args));
  const uint64_t kept =
      uint64_t(StackPool::instance().mapped_stacks()) * StackPool::stack_size_for(0);
  // What the pool keeps is bounded, give or take the slabs still holding other tests' stacks.
  CHECK(kept <= StackPool::kept_bytes + (uint64_t(64) << 20));
}
