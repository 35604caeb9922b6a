#include "sim/warp.h"

#include "sim/fiber_switch.h"
#include "sim/launch_state.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

namespace simt::sim {

namespace {

using Phase = ThreadState::Phase;

std::string hex_mask(uint32_t mask) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", mask);
  return text;
}

// The lanes that exist in a warp of `lanes` lanes.
uint32_t existing(uint32_t lanes) { return lanes >= 32 ? ~0u : (1u << lanes) - 1; }

bool named(uint32_t mask, uint32_t lane) { return (mask >> lane & 1u) != 0; }

} // namespace

int32_t shuffle_source(WarpOp op, uint32_t lane, int32_t operand) {
  // PTX's shfl.sync with a width of 32: only the operand's low 5 bits count.
  const int32_t b = operand & 31, l = int32_t(lane);
  switch (op) {
  case WarpOp::ShflIdx:
    return b;
  case WarpOp::ShflUp:
    return l - b;
  case WarpOp::ShflDown:
    return l + b;
  default:
    return l ^ b;
  }
}

bool shuffle_reads_undefined(WarpOp op, uint32_t lane, int32_t operand, uint32_t group) {
  const int32_t source = shuffle_source(op, lane, operand);
  return source >= 0 && source <= 31 && !named(group, uint32_t(source));
}

uint64_t shuffle_result(WarpOp op, uint32_t lane, int32_t operand, uint32_t group,
                        const uint64_t (&values)[32]) {
  const int32_t source = shuffle_source(op, lane, operand);
  if (source < 0 || source > 31 || !named(group, uint32_t(source)))
    return values[lane];
  return values[source];
}

bool WarpScheduler::any_waiting() const {
  for (const ThreadState &state : states_)
    if (state.phase == Phase::WarpParked)
      return true;
  return false;
}

void WarpScheduler::stop_parked() {
  for (size_t i = 0; i < states_.size(); ++i) {
    if (states_[i].phase != Phase::Parked && states_[i].phase != Phase::WarpParked)
      continue;
    states_[i].phase = Phase::Runnable;
    contexts_[i].status = 1;
  }
}

bool WarpScheduler::try_complete(size_t base, uint32_t lanes, uint32_t first) {
  const WarpArrival &call = states_[base + first].warp_arrival;
  const uint32_t group = call.mask & existing(lanes);
  uint64_t values[32] = {};
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    if (!named(group, lane))
      continue;
    const ThreadState &state = states_[base + lane];
    const WarpArrival &arrival = state.warp_arrival;
    if (state.phase != Phase::WarpParked || arrival.loc != call.loc || arrival.op != call.op ||
        arrival.mask != call.mask)
      return false;
    values[lane] = arrival.value;
  }
  uint32_t nonzero = 0; // the lanes whose value is non-zero (the votes' predicates)
  for (uint32_t lane = 0; lane < lanes; ++lane)
    if (named(group, lane) && values[lane] != 0)
      nonzero |= 1u << lane;
  bool all_equal = true;
  for (uint32_t lane = 0; lane < lanes; ++lane)
    if (named(group, lane) && values[lane] != values[first])
      all_equal = false;
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    if (!named(group, lane))
      continue;
    ThreadState &state = states_[base + lane];
    uint64_t result = 0;
    switch (call.op) {
    case WarpOp::ShflIdx:
    case WarpOp::ShflUp:
    case WarpOp::ShflDown:
    case WarpOp::ShflXor:
      result = shuffle_result(call.op, lane, state.warp_arrival.operand, group, values);
      if (shuffle_reads_undefined(call.op, lane, state.warp_arrival.operand, group))
        report_undefined_shuffle(base + lane, call);
      break;
    case WarpOp::All:
      result = nonzero == group;
      break;
    case WarpOp::Any:
      result = nonzero != 0;
      break;
    case WarpOp::Eq:
      result = nonzero == 0 || nonzero == group;
      break;
    case WarpOp::Ballot:
      result = nonzero;
      break;
    case WarpOp::MatchAny: {
      uint32_t same = 0;
      for (uint32_t other = 0; other < lanes; ++other)
        if (named(group, other) && values[other] == values[lane])
          same |= 1u << other;
      result = same;
      break;
    }
    case WarpOp::MatchAll:
      result = all_equal ? group : 0;
      break;
    case WarpOp::SyncWarp:
    case WarpOp::ActiveMask:
      break;
    }
    state.warp_arrival.result = result;
    state.phase = Phase::Runnable;
  }
  return true;
}

bool WarpScheduler::complete_active_masks(size_t base, uint32_t lanes) {
  bool any = false;
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    ThreadState &state = states_[base + lane];
    if (state.phase != Phase::WarpParked || state.warp_arrival.op != WarpOp::ActiveMask)
      continue;
    uint32_t together = 0;
    for (uint32_t other = 0; other < lanes; ++other) {
      const ThreadState &them = states_[base + other];
      if (them.phase == Phase::WarpParked && them.warp_arrival.op == WarpOp::ActiveMask &&
          them.warp_arrival.loc == state.warp_arrival.loc)
        together |= 1u << other;
    }
    state.warp_arrival.result = together;
    any = true;
  }
  // Released after all results are known: a released lane no longer counts as waiting.
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    ThreadState &state = states_[base + lane];
    if (state.phase == Phase::WarpParked && state.warp_arrival.op == WarpOp::ActiveMask)
      state.phase = Phase::Runnable;
  }
  return any;
}

void WarpScheduler::report_undefined_shuffle(size_t state, const WarpArrival &call) {
  const uint32_t lane = uint32_t(state % 32);
  const auto source = uint32_t(shuffle_source(call.op, lane, states_[state].warp_arrival.operand));
  const ThreadContext &reader = contexts_[state];
  launch_.undefined_shuffles.fetch_add(1, std::memory_order_relaxed);
  launch_.notify(
      [&](Observer &o) { o.undefined_shuffle(reader, call.op, source, call.mask, call.loc); });
}

void WarpScheduler::report_stuck(size_t base, uint32_t lanes, uint32_t lane) {
  ThreadContext &ctx = contexts_[base + lane];
  const WarpArrival &call = states_[base + lane].warp_arrival;
  const std::string op = ir::warp_op_name(call.op);
  const SourceLocation where = launch_.location(call.loc);
  const std::string at = where.file + ":" + std::to_string(where.line);
  const std::string block = ids_text(ctx.ctaid);
  const std::string warp = std::to_string(base / 32);
  for (uint32_t other = 0; other < lanes; ++other) {
    if (!named(call.mask & existing(lanes), other))
      continue;
    const ThreadState &state = states_[base + other];
    const ThreadContext &them = contexts_[base + other];
    const std::string other_name =
        "lane " + std::to_string(other) + " (thread " + ids_text(them.tid) + ")";
    const std::string self_name =
        "lane " + std::to_string(lane) + " (thread " + ids_text(ctx.tid) + ")";
    if (state.phase == Phase::Finished) {
      launch_.record_fault(&ctx, "RuntimeError",
                           "simt: lane " + std::to_string(other) + " named in the mask of " + op +
                               " has exited",
                           call.loc, codegen::FaultKind::Warp);
      return;
    }
    if (state.phase == Phase::Parked) {
      const SourceLocation barrier = launch_.location(state.barrier_loc);
      launch_.record_fault(&ctx, "RuntimeError",
                           "simt: deadlock in block " + block + ": " + self_name + " waits at " +
                               op + " at " + at + " for " + other_name + ", which waits at " +
                               (state.at_grid_barrier ? "grid sync" : "syncthreads") + " at " +
                               barrier.file + ":" + std::to_string(barrier.line),
                           call.loc, codegen::FaultKind::Deadlock);
      return;
    }
    const WarpArrival &theirs = state.warp_arrival;
    if (theirs.loc != call.loc || theirs.op != call.op) {
      const SourceLocation there = launch_.location(theirs.loc);
      launch_.record_fault(&ctx, "RuntimeError",
                           "simt: lanes of warp " + warp + " of block " + block +
                               " wait at different warp operations: " + self_name + " at " + op +
                               " at " + at + " and " + other_name + " at " +
                               ir::warp_op_name(theirs.op) + " at " + there.file + ":" +
                               std::to_string(there.line),
                           call.loc, codegen::FaultKind::Warp);
      return;
    }
    if (theirs.mask != call.mask) {
      launch_.record_fault(&ctx, "RuntimeError",
                           "simt: lanes of warp " + warp + " of block " + block + " call " + op +
                               " at " + at + " with different masks: " + self_name + " with " +
                               hex_mask(call.mask) + " and " + other_name + " with " +
                               hex_mask(theirs.mask),
                           call.loc, codegen::FaultKind::Warp);
      return;
    }
  }
}

bool WarpScheduler::complete_arrived(size_t base, uint32_t lanes) {
  bool progress = false;
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    const ThreadState &state = states_[base + lane];
    if (state.phase == Phase::WarpParked && state.warp_arrival.op != WarpOp::ActiveMask &&
        try_complete(base, lanes, lane))
      progress = true;
  }
  return progress;
}

bool WarpScheduler::complete_arrived() {
  bool progress = false;
  for (size_t base = 0; base < states_.size(); base += 32)
    progress =
        complete_arrived(base, uint32_t(std::min<size_t>(32, states_.size() - base))) || progress;
  return progress;
}

bool WarpScheduler::complete_active_masks() {
  bool progress = false;
  for (size_t base = 0; base < states_.size(); base += 32) {
    const uint32_t lanes = uint32_t(std::min<size_t>(32, states_.size() - base));
    const bool moving =
        std::any_of(states_.begin() + base, states_.begin() + base + lanes,
                    [](const ThreadState &s) { return s.phase == Phase::Runnable; });
    progress = (!moving && complete_active_masks(base, lanes)) || progress;
  }
  return progress;
}

void WarpScheduler::settle() {
  if (launch_.stopped()) {
    stop_parked();
    return;
  }
  bool progress = false;
  for (size_t base = 0; base < states_.size(); base += 32) {
    const uint32_t lanes = uint32_t(std::min<size_t>(32, states_.size() - base));
    bool warp_progress = complete_arrived(base, lanes);
    // activemask waits while other lanes of its warp can still move on (and maybe join it).
    if (!warp_progress)
      warp_progress = complete_active_masks(base, lanes);
    progress = progress || warp_progress;
  }
  if (progress)
    return;
  // Every live thread is parked and no warp operation can complete: the first waiting lane says
  // why (a fault always results, so this never hangs).
  for (size_t i = 0; i < states_.size(); ++i) {
    if (states_[i].phase != Phase::WarpParked)
      continue;
    const size_t base = i / 32 * 32;
    report_stuck(base, uint32_t(std::min<size_t>(32, states_.size() - base)), uint32_t(i - base));
    break;
  }
  stop_parked();
}

} // namespace simt::sim

using simt::sim::ThreadContext;
using simt::sim::ThreadState;

extern "C" {

uint64_t simt_rt_warp(ThreadContext *ctx, int32_t op, uint32_t mask, uint64_t value,
                      int32_t operand, int32_t loc) {
  ThreadState &state = simt::sim::thread_state(ctx);
  const auto warp_op = simt::sim::WarpOp(op);
  const std::string name = simt::ir::warp_op_name(warp_op);
  if (!state.fiber_mode) {
    // The JIT picks fibers for every kernel with a warp operation; anything else is a JIT bug.
    state.launch->record_fault(ctx, "RuntimeError",
                               "simt: " + name + " reached in a kernel launched without fibers",
                               loc, simt::codegen::FaultKind::Warp);
    return 0;
  }
  if ((mask >> state.lane & 1u) == 0) {
    state.launch->record_fault(ctx, "RuntimeError",
                               "simt: lane " + std::to_string(state.lane) + " calls " + name +
                                   " with mask " + simt::sim::hex_mask(mask) +
                                   ", which does not name it",
                               loc, simt::codegen::FaultKind::Warp);
    return 0;
  }
  state.launch->notify(
      [&](simt::sim::Observer &o) { o.warp_op_arrived(*ctx, warp_op, mask, loc); });
  state.warp_arrival = simt::sim::WarpArrival{warp_op, mask, loc, operand, value, 0};
  state.phase = ThreadState::Phase::WarpParked;
  simt::sim::switch_to_scheduler(state);
  // Resumed: the operation completed, or the launch is stopping (ctx->status is set).
  return state.warp_arrival.result;
}

uint32_t simt_rt_activemask(ThreadContext *ctx, int32_t loc) {
  // The calling lane is in every mask: naming itself passes the check of simt_rt_warp.
  ThreadState &state = simt::sim::thread_state(ctx);
  return uint32_t(
      simt_rt_warp(ctx, int32_t(simt::sim::WarpOp::ActiveMask), 1u << state.lane, 0, 0, loc));
}

} // extern "C"
