// The simulator runtime driven by hand-written "kernels" that use ThreadContext and the simt_rt_*
// functions the way JIT-compiled code does.
#include "sim/abi.h"
#include "sim/launch.h"
#include "sim/stack_pool.h"

#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace simt::sim;

namespace {

template <typename T> T &arg(void **args, int i) { return *static_cast<T *>(args[i]); }

int32_t linear_tid(const ThreadContext *ctx) {
  return ctx->tid[0] + ctx->ntid[0] * (ctx->tid[1] + ctx->ntid[1] * ctx->tid[2]);
}

int32_t threads_per_block(const ThreadContext *ctx) {
  return ctx->ntid[0] * ctx->ntid[1] * ctx->ntid[2];
}

int64_t linear_block(const ThreadContext *ctx) {
  return ctx->ctaid[0] + int64_t(ctx->nctaid[0]) * (ctx->ctaid[1] + ctx->nctaid[1] * ctx->ctaid[2]);
}

// What the JIT's K.block does: every thread in x-fastest order, stopping once status is set.
template <void (*Thread)(void **, ThreadContext *)>
void flat_block(void **args, ThreadContext *ctx) {
  for (int32_t z = 0; z < ctx->ntid[2]; ++z)
    for (int32_t y = 0; y < ctx->ntid[1]; ++y)
      for (int32_t x = 0; x < ctx->ntid[0]; ++x) {
        ctx->tid[0] = x;
        ctx->tid[1] = y;
        ctx->tid[2] = z;
        Thread(args, ctx);
        if (ctx->status != 0)
          return;
      }
}

// Strings are move-assigned: GCC 12 at -O3 warns falsely (-Wrestrict) when a std::string is
// assigned a short literal.
SourceLocation location(int line) {
  SourceLocation where;
  where.file = std::string("kernels.py");
  where.line = line;
  where.col = 8;
  where.function = std::string("k");
  return where;
}

KernelCode fiber_kernel(KernelEntry thread, int64_t static_shared = 0) {
  KernelCode code;
  code.name = std::string("k");
  code.thread_entry = thread;
  code.static_shared_bytes = static_shared;
  for (int line : {10, 12, 14})
    code.locations.push_back(location(line));
  return code;
}

template <void (*Thread)(void **, ThreadContext *)> KernelCode flat_kernel() {
  KernelCode code = fiber_kernel(Thread);
  code.block_entry = flat_block<Thread>;
  return code;
}

LaunchConfig config(Dim3 grid, Dim3 block, uint64_t dynamic_shared = 0) {
  return LaunchConfig{grid, block, dynamic_shared};
}

// out[global linear thread id] = encoding of tid and ctaid
void write_ids(void **args, ThreadContext *ctx) {
  int64_t *out = arg<int64_t *>(args, 0);
  int64_t global = linear_block(ctx) * threads_per_block(ctx) + linear_tid(ctx);
  out[global] = ctx->tid[0] + 10 * ctx->tid[1] + 100 * ctx->tid[2] + 1000 * ctx->ctaid[0] +
                10000 * ctx->ctaid[1] + 100000 * ctx->ctaid[2];
}

void check_ids(const std::vector<int64_t> &out, Dim3 grid, Dim3 block) {
  size_t i = 0;
  for (uint32_t bz = 0; bz < grid.z; ++bz)
    for (uint32_t by = 0; by < grid.y; ++by)
      for (uint32_t bx = 0; bx < grid.x; ++bx)
        for (uint32_t z = 0; z < block.z; ++z)
          for (uint32_t y = 0; y < block.y; ++y)
            for (uint32_t x = 0; x < block.x; ++x)
              REQUIRE(out[i++] ==
                      x + 10 * y + 100 * z + 1000 * bx + 10000 * by + 100000 * int64_t(bz));
}

// Sums in[] per block with a shared-memory tree reduction and barriers.
void block_sum(void **args, ThreadContext *ctx) {
  const int64_t *in = arg<const int64_t *>(args, 0);
  int64_t *out = arg<int64_t *>(args, 1);
  int64_t *partial = reinterpret_cast<int64_t *>(ctx->shared);
  int32_t t = linear_tid(ctx), n = threads_per_block(ctx);
  partial[t] = in[linear_block(ctx) * n + t];
  simt_rt_syncthreads(ctx, 0);
  if (ctx->status != 0)
    return;
  for (int32_t stride = n / 2; stride > 0; stride /= 2) {
    if (t < stride)
      partial[t] += partial[t + stride];
    simt_rt_syncthreads(ctx, 1);
    if (ctx->status != 0)
      return;
  }
  if (t == 0)
    out[linear_block(ctx)] = partial[0];
}

void index_error_at_thread_10_block_3(void **args, ThreadContext *ctx) {
  std::atomic<int64_t> &ran = arg<std::atomic<int64_t>>(args, 0);
  ran.fetch_add(1);
  if (ctx->tid[0] == 10 && ctx->ctaid[0] == 3)
    simt_rt_index_error(ctx, 12, 0, 10, 1);
}

void divergent_barrier(void **, ThreadContext *ctx) {
  simt_rt_syncthreads(ctx, ctx->tid[0] < 3 ? 1 : 2);
}

// Threads >= 5 exit early; the rest pass two barriers and read what their neighbours wrote.
void early_exit_then_barrier(void **args, ThreadContext *ctx) {
  int32_t *out = arg<int32_t *>(args, 0);
  int32_t *shared = reinterpret_cast<int32_t *>(ctx->shared);
  int32_t t = ctx->tid[0];
  if (t >= 5)
    return;
  shared[t] = t * t;
  simt_rt_syncthreads(ctx, 0);
  if (ctx->status != 0)
    return;
  out[t] = shared[(t + 1) % 5];
  simt_rt_syncthreads(ctx, 0);
}

// Thread 7 faults while the threads before it wait at a barrier; nobody gets past the barrier and
// the threads after it never start.
void fault_while_others_wait(void **args, ThreadContext *ctx) {
  std::atomic<int> &finished = arg<std::atomic<int>>(args, 0);
  std::atomic<int> &past_barrier = arg<std::atomic<int>>(args, 1);
  arg<std::atomic<int>>(args, 2).fetch_add(1);
  if (ctx->tid[0] == 7) {
    simt_rt_raise(ctx, "ZeroDivisionError", "division by zero", 2);
  } else {
    simt_rt_syncthreads(ctx, 0);
    if (ctx->status == 0)
      past_barrier.fetch_add(1);
  }
  finished.fetch_add(1);
}

void count_threads(void **args, ThreadContext *ctx) {
  arg<std::atomic<int64_t>>(args, 0).fetch_add(1 + ctx->tid[0], std::memory_order_relaxed);
  std::mutex &mutex = arg<std::mutex>(args, 1);
  std::set<std::thread::id> &workers = arg<std::set<std::thread::id>>(args, 2);
  if (ctx->tid[0] == 0) {
    std::lock_guard lock(mutex);
    workers.insert(std::this_thread::get_id());
  }
}

void barrier_count_threads(void **args, ThreadContext *ctx) {
  simt_rt_syncthreads(ctx, 0);
  if (ctx->status != 0)
    return;
  arg<std::atomic<int64_t>>(args, 0).fetch_add(1, std::memory_order_relaxed);
}

void check_shared_is_zero(void **args, ThreadContext *ctx) {
  uint64_t bytes = arg<uint64_t>(args, 0);
  std::atomic<int> &dirty = arg<std::atomic<int>>(args, 1);
  if (reinterpret_cast<uintptr_t>(ctx->shared) % 16 != 0 || ctx->dynamic_shared_bytes != 100)
    dirty.fetch_add(1);
  if (ctx->tid[0] == 0)
    for (uint64_t i = 0; i < bytes; ++i)
      if (ctx->shared[i] != 0)
        dirty.fetch_add(1);
  simt_rt_syncthreads(ctx, 0);
  if (ctx->status != 0)
    return;
  ctx->shared[ctx->tid[0]] = 0x5a; // dirty it for the next block on this worker
}

void print_three_items(void **, ThreadContext *ctx) {
  simt_rt_print_str(ctx, "thread");
  simt_rt_print_i64(ctx, linear_block(ctx) * threads_per_block(ctx) + ctx->tid[0]);
  simt_rt_print_f64(ctx, 0.5);
  simt_rt_print_u64(ctx, 18446744073709551615ull);
  simt_rt_print_end(ctx);
}

// Runs `body` with stdout redirected into a pipe and returns what was written.
template <typename Body> std::string capture_stdout(Body body) {
  std::fflush(stdout);
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  int saved = dup(1);
  dup2(pipe_fds[1], 1);
  close(pipe_fds[1]);
  std::string captured;
  std::thread reader([&] {
    char buffer[4096];
    ssize_t n;
    while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0)
      captured.append(buffer, size_t(n));
  });
  body();
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  reader.join();
  close(pipe_fds[0]);
  return captured;
}

} // namespace

TEST_CASE("flat mode runs every thread of every block with its ids") {
  Dim3 grid{5, 2, 3}, block{4, 3, 2};
  std::vector<int64_t> out(grid.count() * block.count(), -1);
  int64_t *data = out.data();
  void *args[] = {&data};
  CHECK_FALSE(launch(flat_kernel<write_ids>(), config(grid, block), args).has_value());
  check_ids(out, grid, block);
}

TEST_CASE("fiber mode runs every thread of every block with its ids") {
  Dim3 grid{3, 2, 2}, block{5, 2, 3};
  std::vector<int64_t> out(grid.count() * block.count(), -1);
  int64_t *data = out.data();
  void *args[] = {&data};
  CHECK_FALSE(launch(fiber_kernel(write_ids), config(grid, block), args).has_value());
  check_ids(out, grid, block);
}

TEST_CASE("a block sum with barriers and shared memory") {
  const uint32_t blocks = 37, threads = 256;
  std::vector<int64_t> in(blocks * threads), out(blocks, -1);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = int64_t(i % 1000) - 300;
  const int64_t *in_data = in.data();
  int64_t *out_data = out.data();
  void *args[] = {&in_data, &out_data};
  CHECK_FALSE(
      launch(fiber_kernel(block_sum, threads * 8), config({blocks, 1, 1}, {threads, 1, 1}), args)
          .has_value());
  for (uint32_t b = 0; b < blocks; ++b) {
    int64_t expected = 0;
    for (uint32_t t = 0; t < threads; ++t)
      expected += in[b * threads + t];
    REQUIRE(out[b] == expected);
  }
}

TEST_CASE("dynamic shared memory follows the static part and is zeroed, aligned, per block") {
  const uint64_t dynamic = 100;
  std::atomic<int> dirty{0};
  uint64_t total = 64 + dynamic;
  void *args[] = {&total, &dirty};
  CHECK_FALSE(
      launch(fiber_kernel(check_shared_is_zero, 64), config({50, 1, 1}, {32, 1, 1}, dynamic), args)
          .has_value());
  CHECK(dirty.load() == 0);
}

TEST_CASE("an index error reports the first faulting thread, its block and its location") {
  std::atomic<int64_t> ran{0};
  void *args[] = {&ran};
  for (bool flat : {true, false}) {
    CAPTURE(flat);
    KernelCode kernel = flat ? flat_kernel<index_error_at_thread_10_block_3>()
                             : fiber_kernel(index_error_at_thread_10_block_3);
    std::optional<Fault> fault = launch(kernel, config({6, 1, 1}, {16, 1, 1}), args);
    REQUIRE(fault.has_value());
    CHECK(fault->exception == "IndexError");
    CHECK(fault->message == "index 12 is out of bounds for axis 0 with size 10");
    CHECK(fault->tid.x == 10);
    CHECK(fault->tid.y == 0);
    CHECK(fault->tid.z == 0);
    CHECK(fault->ctaid.x == 3);
    CHECK(fault->ctaid.y == 0);
    CHECK(fault->where.file == "kernels.py");
    CHECK(fault->where.line == 12);
    CHECK(fault->where.col == 8);
    CHECK(fault->where.function == "k");
  }
}

TEST_CASE("threads waiting at different syncthreads are an error, not a hang") {
  std::optional<Fault> fault =
      launch(fiber_kernel(divergent_barrier), config({2, 1, 1}, {8, 1, 1}), nullptr);
  REQUIRE(fault.has_value());
  CHECK(fault->exception == "RuntimeError");
  CHECK(fault->message.find("simt: threads of block (") == 0);
  CHECK(fault->message.find("wait at different syncthreads: thread (0, 0, 0) at kernels.py:12 "
                            "and thread (3, 0, 0) at kernels.py:14") != std::string::npos);
}

TEST_CASE("threads that exited count as arrived at a barrier") {
  std::vector<int32_t> out(5, -1);
  int32_t *data = out.data();
  void *args[] = {&data};
  CHECK_FALSE(launch(fiber_kernel(early_exit_then_barrier, 64), config({1, 1, 1}, {32, 1, 1}), args)
                  .has_value());
  CHECK(out == std::vector<int32_t>{1, 4, 9, 16, 0});
}

TEST_CASE("a fault stops threads parked at a barrier, and every fiber still runs to its end") {
  std::atomic<int> finished{0}, past_barrier{0}, started{0};
  void *args[] = {&finished, &past_barrier, &started};
  std::optional<Fault> fault =
      launch(fiber_kernel(fault_while_others_wait), config({1, 1, 1}, {64, 1, 1}), args);
  REQUIRE(fault.has_value());
  CHECK(fault->exception == "ZeroDivisionError");
  CHECK(fault->message == "division by zero");
  CHECK(fault->tid.x == 7);
  CHECK(fault->where.line == 14);
  CHECK(past_barrier.load() == 0);
  CHECK(started.load() == 8);
  CHECK(finished.load() == 8);
}

TEST_CASE("a faulting launch takes no new blocks") {
  std::atomic<int64_t> ran{0};
  void *args[] = {&ran};
  std::optional<Fault> fault = launch(flat_kernel<index_error_at_thread_10_block_3>(),
                                      config({100000, 1, 1}, {16, 1, 1}), args);
  REQUIRE(fault.has_value());
  CHECK(ran.load() < 100000 * 16);
}

TEST_CASE("invalid configurations are rejected before anything runs") {
  KernelCode kernel = flat_kernel<write_ids>();
  auto message = [&](LaunchConfig cfg) {
    try {
      launch(kernel, cfg, nullptr);
    } catch (const std::invalid_argument &error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  CHECK(message(config({1, 0, 1}, {32, 1, 1})) ==
        "simt: launch configuration has a zero dimension: grid=(1, 0, 1) block=(32, 1, 1)");
  CHECK(message(config({1, 1, 1}, {0, 1, 1})) ==
        "simt: launch configuration has a zero dimension: grid=(1, 1, 1) block=(0, 1, 1)");
  CHECK(message(config({1, 1, 1}, {1025, 1, 1})) ==
        "simt: 1025 threads per block exceeds the limit of 1024");
  CHECK(message(config({1, 1, 1}, {1, 1, 65})) ==
        "simt: block dimension z=65 exceeds the limit of 64");
  CHECK(message(config({1, 65536, 1}, {1, 1, 1})) ==
        "simt: grid dimension y=65536 exceeds the limit of 65535");
  CHECK(message(config({2147483648u, 1, 1}, {1, 1, 1})) ==
        "simt: grid dimension x=2147483648 exceeds the limit of 2147483647");
  CHECK(message(config({2147483647u, 1, 1}, {2, 1, 1})) ==
        "simt: 4294967294 threads along x (grid 2147483647 x block 2) are not supported yet: at "
        "most 2**31 - 1");
  CHECK(message(config({1, 1, 1}, {1, 1, 1}, 300000)) ==
        "simt: 300000 bytes of shared memory per block exceeds the limit of 232448");
}

TEST_CASE("many blocks over the worker pool") {
  CHECK(worker_count() >= 1);
  std::atomic<int64_t> sum{0};
  std::mutex mutex;
  std::set<std::thread::id> workers;
  void *args[] = {&sum, &mutex, &workers};
  const uint32_t blocks = 2000, threads = 64;
  CHECK_FALSE(launch(flat_kernel<count_threads>(), config({blocks, 1, 1}, {threads, 1, 1}), args)
                  .has_value());
  CHECK(sum.load() == int64_t(blocks) * threads * (threads + 1) / 2);
  CHECK(workers.size() >= 1);
  CHECK(workers.size() <= worker_count());

  std::atomic<int64_t> count{0};
  void *fiber_args[] = {&count};
  CHECK_FALSE(
      launch(fiber_kernel(barrier_count_threads), config({200, 1, 1}, {128, 1, 1}), fiber_args)
          .has_value());
  CHECK(count.load() == 200 * 128);
}

TEST_CASE("launches from several host threads at once keep their own state") {
  std::vector<std::thread> hosts;
  std::atomic<int> failures{0};
  for (int h = 0; h < 4; ++h)
    hosts.emplace_back([&, h] {
      for (int round = 0; round < 5; ++round) {
        if ((h + round) % 2 == 0) {
          std::atomic<int64_t> ran{0};
          void *args[] = {&ran};
          std::optional<Fault> fault = launch(fiber_kernel(index_error_at_thread_10_block_3),
                                              config({8, 1, 1}, {16, 1, 1}), args);
          if (!fault || fault->ctaid.x != 3 || fault->tid.x != 10)
            failures.fetch_add(1);
        } else {
          std::atomic<int64_t> count{0};
          void *args[] = {&count};
          std::optional<Fault> fault =
              launch(fiber_kernel(barrier_count_threads), config({20, 1, 1}, {64, 1, 1}), args);
          if (fault || count.load() != 20 * 64)
            failures.fetch_add(1);
        }
      }
    });
  for (std::thread &host : hosts)
    host.join();
  CHECK(failures.load() == 0);
}

TEST_CASE("fiber stacks are reused between blocks") {
  std::atomic<int64_t> count{0};
  void *args[] = {&count};
  launch(fiber_kernel(barrier_count_threads), config({1, 1, 1}, {96, 1, 1}), args);
  const size_t mapped = StackPool::instance().mapped_stacks();
  CHECK(mapped >= 96);
  launch(fiber_kernel(barrier_count_threads), config({1, 1, 1}, {96, 1, 1}), args);
  CHECK(StackPool::instance().mapped_stacks() == mapped);
  CHECK(count.load() == 2 * 96);
}

TEST_CASE("print writes each thread's items as one line") {
  const uint32_t blocks = 8, threads = 32;
  std::string output = capture_stdout([&] {
    CHECK_FALSE(
        launch(fiber_kernel(print_three_items), config({blocks, 1, 1}, {threads, 1, 1}), nullptr)
            .has_value());
    CHECK_FALSE(
        launch(flat_kernel<print_three_items>(), config({blocks, 1, 1}, {threads, 1, 1}), nullptr)
            .has_value());
  });
  std::multiset<std::string> lines;
  size_t start = 0;
  for (size_t end; (end = output.find('\n', start)) != std::string::npos; start = end + 1)
    lines.insert(output.substr(start, end - start));
  CHECK(start == output.size());
  CHECK(lines.size() == 2 * blocks * threads);
  for (uint32_t i = 0; i < blocks * threads; ++i)
    CHECK(lines.count("thread " + std::to_string(i) + " 0.500000 18446744073709551615") == 2);
}
