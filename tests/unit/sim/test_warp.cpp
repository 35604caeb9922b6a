// Warp operations of the runtime (simt_rt_warp, simt_rt_activemask), driven by hand-written
// fiber "kernels" that call them the way JIT-compiled code does.
#include "sim/abi.h"
#include "sim/launch.h"
#include "sim/warp.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace simt::sim;

namespace {

constexpr uint32_t kFull = 0xffffffffu;

template <typename T> T &arg(void **args, int i) { return *static_cast<T *>(args[i]); }

int32_t linear_tid(const ThreadContext *ctx) {
  return ctx->tid[0] + ctx->ntid[0] * (ctx->tid[1] + ctx->ntid[1] * ctx->tid[2]);
}

uint64_t warp(ThreadContext *ctx, WarpOp op, uint32_t mask, uint64_t value, int32_t operand = 0,
              int32_t loc = 0) {
  return simt_rt_warp(ctx, int32_t(op), mask, value, operand, loc);
}

KernelCode fiber_kernel(KernelEntry thread) {
  KernelCode code;
  code.name = std::string("k");
  code.thread_entry = thread;
  for (int line : {10, 12, 14}) {
    SourceLocation where;
    where.file = std::string("kernels.py");
    where.line = line;
    where.function = std::string("k");
    code.locations.push_back(where);
  }
  return code;
}

std::optional<Fault> run(KernelEntry thread, Dim3 grid, Dim3 block, void **args) {
  return launch(fiber_kernel(thread), LaunchConfig{grid, block, 0}, args);
}

// out[warp] = the sum of in[] over the warp, by a shfl_down tree (lane 0 holds the sum).
void warp_sum(void **args, ThreadContext *ctx) {
  const int64_t *in = arg<const int64_t *>(args, 0);
  int64_t *out = arg<int64_t *>(args, 1);
  int32_t t = ctx->ctaid[0] * ctx->ntid[0] + linear_tid(ctx);
  int64_t v = in[t];
  for (int32_t offset = 16; offset > 0; offset /= 2) {
    v += int64_t(warp(ctx, WarpOp::ShflDown, kFull, uint64_t(v), offset));
    if (ctx->status != 0)
      return;
  }
  if (t % 32 == 0)
    out[t / 32] = v;
}

// out[t] = the results of each vote and match on in[t], and activemask.
void votes(void **args, ThreadContext *ctx) {
  const int64_t *in = arg<const int64_t *>(args, 0);
  int64_t *out = arg<int64_t *>(args, 1);
  int32_t t = linear_tid(ctx);
  const WarpOp ops[] = {WarpOp::All,      WarpOp::Any,      WarpOp::Eq,     WarpOp::Ballot,
                        WarpOp::MatchAny, WarpOp::MatchAll, WarpOp::ShflIdx};
  for (int k = 0; k < 7; ++k) {
    out[t * 8 + k] = int64_t(warp(ctx, ops[k], kFull, uint64_t(in[t]), 35));
    if (ctx->status != 0)
      return;
  }
  out[t * 8 + 7] = simt_rt_activemask(ctx, 0);
}

// Odd lanes return; the even ones ask activemask, then ballot with it (a GPU's converged lanes).
void active_even_lanes(void **args, ThreadContext *ctx) {
  int64_t *out = arg<int64_t *>(args, 0);
  int32_t t = linear_tid(ctx);
  if (t % 2 == 1)
    return;
  uint32_t mask = simt_rt_activemask(ctx, 0);
  if (ctx->status != 0)
    return;
  out[t] = int64_t(warp(ctx, WarpOp::Ballot, mask, 1, 0, 1));
}

// Lanes 0..15 exchange with mask 0x0000ffff, lanes 16..31 first among themselves at another
// call site, then all 32 together: completes (disjoint masks progress independently).
void split_then_join(void **args, ThreadContext *ctx) {
  int64_t *out = arg<int64_t *>(args, 0);
  int32_t t = linear_tid(ctx);
  if (t >= 16) {
    warp(ctx, WarpOp::SyncWarp, 0xffff0000u, 0, 0, 1);
    if (ctx->status != 0)
      return;
  }
  out[t] = int64_t(warp(ctx, WarpOp::ShflXor, kFull, uint64_t(t), 16, 0));
}

void mask_without_caller(void **, ThreadContext *ctx) {
  warp(ctx, WarpOp::Ballot, 0x0000fff0u, 1, 0, 1);
}

void lane_exits(void **, ThreadContext *ctx) {
  if (linear_tid(ctx) == 5)
    return;
  warp(ctx, WarpOp::ShflIdx, kFull, 1, 0, 1);
}

void different_operations(void **, ThreadContext *ctx) {
  if (linear_tid(ctx) < 4)
    warp(ctx, WarpOp::Any, kFull, 1, 0, 1);
  else
    warp(ctx, WarpOp::ShflDown, kFull, 1, 1, 2);
}

void different_masks(void **, ThreadContext *ctx) {
  warp(ctx, WarpOp::SyncWarp, linear_tid(ctx) == 3 ? 0x0000000fu : kFull, 0, 0, 1);
}

void warp_op_and_barrier(void **, ThreadContext *ctx) {
  if (linear_tid(ctx) == 7) {
    simt_rt_syncthreads(ctx, 2);
    return;
  }
  warp(ctx, WarpOp::SyncWarp, kFull, 0, 0, 1);
}

} // namespace

TEST_CASE("shuffles follow PTX: operands modulo 32, out-of-range sources give the own value") {
  uint64_t values[32];
  for (int i = 0; i < 32; ++i)
    values[i] = uint64_t(100 + i);
  CHECK(shuffle_result(WarpOp::ShflIdx, 3, 7, kFull, values) == 107);
  CHECK(shuffle_result(WarpOp::ShflIdx, 3, 39, kFull, values) == 107); // 39 % 32
  CHECK(shuffle_result(WarpOp::ShflIdx, 3, -1, kFull, values) == 131);
  CHECK(shuffle_result(WarpOp::ShflUp, 3, 2, kFull, values) == 101);
  CHECK(shuffle_result(WarpOp::ShflUp, 1, 2, kFull, values) == 101); // below lane 0: own
  CHECK(shuffle_result(WarpOp::ShflDown, 3, 2, kFull, values) == 105);
  CHECK(shuffle_result(WarpOp::ShflDown, 30, 2, kFull, values) == 130); // above 31: own
  CHECK(shuffle_result(WarpOp::ShflXor, 5, 1, kFull, values) == 104);
  // A source outside the lanes taking part (not in the mask, or beyond a partial warp): own.
  CHECK(shuffle_result(WarpOp::ShflDown, 3, 2, 0x0000000fu, values) == 103);
  // Only that read is undefined in CUDA (and reported to observers); the out-of-range ones are
  // PTX's defined own value.
  CHECK(shuffle_reads_undefined(WarpOp::ShflDown, 3, 2, 0x0000000fu));
  CHECK_FALSE(shuffle_reads_undefined(WarpOp::ShflDown, 30, 2, 0x0000000fu));
  CHECK_FALSE(shuffle_reads_undefined(WarpOp::ShflUp, 1, 2, 0x0000000fu));
  CHECK_FALSE(shuffle_reads_undefined(WarpOp::ShflXor, 1, 2, 0x0000000fu));
}

TEST_CASE("a shfl_down tree sums each warp, in full and partial warps, over several blocks") {
  for (uint32_t threads : {32u, 64u, 96u}) {
    CAPTURE(threads);
    std::vector<int64_t> in(threads * 2), out(threads * 2 / 32, -1);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = int64_t(i * i);
    int64_t *in_data = in.data(), *out_data = out.data();
    void *args[] = {&in_data, &out_data};
    REQUIRE_FALSE(run(warp_sum, {2, 1, 1}, {threads, 1, 1}, args).has_value());
    for (size_t w = 0; w < out.size(); ++w) {
      int64_t sum = 0;
      for (size_t i = w * 32; i < w * 32 + 32; ++i)
        sum += in[i];
      CHECK(out[w] == sum);
    }
  }
}

TEST_CASE("votes, ballot, match and activemask; a partial warp's missing lanes take no part") {
  // 40 threads: warp 0 full, warp 1 of 8 lanes (its full masks name 24 missing lanes).
  std::vector<int64_t> in(40), out(40 * 8, -1);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = int64_t(i % 3 == 0 ? 0 : 1 + i % 2);
  int64_t *in_data = in.data(), *out_data = out.data();
  void *args[] = {&in_data, &out_data};
  REQUIRE_FALSE(run(votes, {1, 1, 1}, {8, 5, 1}, args).has_value());
  for (size_t t = 0; t < 40; ++t) {
    CAPTURE(t);
    const size_t base = t / 32 * 32, lanes = t < 32 ? 32 : 8;
    const uint32_t group = lanes == 32 ? kFull : 0xffu;
    uint32_t nonzero = 0, same = 0;
    for (size_t l = 0; l < lanes; ++l) {
      nonzero |= uint32_t(in[base + l] != 0) << l;
      same |= uint32_t(in[base + l] == in[t]) << l;
    }
    const int64_t *r = &out[t * 8];
    CHECK(r[0] == int64_t(nonzero == group));
    CHECK(r[1] == int64_t(nonzero != 0));
    CHECK(r[2] == int64_t(nonzero == 0 || nonzero == group));
    CHECK(r[3] == int64_t(nonzero));
    CHECK(r[4] == int64_t(same));
    CHECK(r[5] == 0);            // the values differ
    CHECK(r[6] == in[base + 3]); // shfl_sync from lane 35 % 32
    CHECK(r[7] == int64_t(group));
  }
}

TEST_CASE("activemask names the lanes that arrive at it together, not the exited ones") {
  std::vector<int64_t> out(48, -1);
  int64_t *out_data = out.data();
  void *args[] = {&out_data};
  REQUIRE_FALSE(run(active_even_lanes, {1, 1, 1}, {48, 1, 1}, args).has_value());
  for (size_t t = 0; t < 48; ++t)
    CHECK(out[t] == (t % 2 ? -1 : t < 32 ? 0x55555555 : 0x5555));
}

TEST_CASE("lanes with disjoint masks progress independently before joining") {
  std::vector<int64_t> out(32, -1);
  int64_t *out_data = out.data();
  void *args[] = {&out_data};
  REQUIRE_FALSE(run(split_then_join, {1, 1, 1}, {32, 1, 1}, args).has_value());
  for (int64_t t = 0; t < 32; ++t)
    CHECK(out[size_t(t)] == (t ^ 16));
}

TEST_CASE("bad masks and stuck warp operations are faults with both call sites, never hangs") {
  auto fault_of = [](KernelEntry thread, uint32_t threads) {
    std::optional<Fault> fault = run(thread, {2, 1, 1}, {threads, 1, 1}, nullptr);
    REQUIRE(fault.has_value());
    CHECK(fault->exception == "RuntimeError");
    return *fault;
  };
  Fault f = fault_of(mask_without_caller, 32);
  CHECK(f.message == "simt: lane 0 calls ballot_sync with mask 0x0000fff0, which does not name it");
  CHECK(f.where.line == 12);

  f = fault_of(lane_exits, 32);
  CHECK(f.message == "simt: lane 5 named in the mask of shfl_sync has exited");
  CHECK(f.where.line == 12);
  CHECK(f.tid.x == 0);

  f = fault_of(different_operations, 32);
  CHECK(f.message.find("simt: lanes of warp 0 of block (") == 0);
  CHECK(f.message.find("wait at different warp operations: lane 0 (thread (0, 0, 0)) at any_sync "
                       "at kernels.py:12 and lane 4 (thread (4, 0, 0)) at shfl_down_sync at "
                       "kernels.py:14") != std::string::npos);

  f = fault_of(different_masks, 32);
  CHECK(f.message.find("call syncwarp at kernels.py:12 with different masks: lane 0 (thread (0, "
                       "0, 0)) with 0xffffffff and lane 3 (thread (3, 0, 0)) with 0x0000000f") !=
        std::string::npos);

  f = fault_of(warp_op_and_barrier, 40);
  CHECK(f.message.find("simt: deadlock in block (") == 0);
  CHECK(f.message.find("lane 0 (thread (0, 0, 0)) waits at syncwarp at kernels.py:12 for lane 7 "
                       "(thread (7, 0, 0)), which waits at syncthreads at kernels.py:14") !=
        std::string::npos);
}
