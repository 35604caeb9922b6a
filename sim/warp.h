// Warps: lanes are linear thread ids of a block in groups of 32 (the last warp of a block whose
// size is not a multiple of 32 has fewer lanes). A warp operation (shuffle, vote, match,
// syncwarp) parks the calling fiber; once every lane its mask names has arrived at the same
// operation with the same mask, the block scheduler computes every participant's result from the
// values they deposited and resumes them. Lanes beyond the end of the block do not exist and take
// no part, even when a mask names them (CUDA leaves that undefined).
#pragma once

#include "sim/abi.h"
#include "sim/thread_state.h"

#include <cstdint>
#include <span>

namespace simt::sim {

class LaunchState;

// The result lane `lane` of a shuffle gets: the value of the source lane the PTX rules pick from
// `operand` (its low 5 bits: the source lane, delta or lane mask), or the lane's own value when
// that source is out of range or takes no part in `group` (CUDA leaves the value undefined then).
// The lane a shuffle of `lane` reads (PTX's shfl.sync with a width of 32); outside 0..31 when
// it reads none and keeps its own value (shfl_up below lane 0, shfl_down above lane 31).
int32_t shuffle_source(WarpOp op, uint32_t lane, int32_t operand);
// Whether that read is undefined in CUDA: a lane of the warp that `group` (the mask's existing
// lanes) does not name.
bool shuffle_reads_undefined(WarpOp op, uint32_t lane, int32_t operand, uint32_t group);
// What the shuffle gives `lane`: the source's value, or its own where it reads none or an
// undefined one.
uint64_t shuffle_result(WarpOp op, uint32_t lane, int32_t operand, uint32_t group,
                        const uint64_t (&values)[32]);

// The warp operations of one block's threads, `states[i]` running on `contexts[i]`. Called by
// the block scheduler when every live thread is parked and at least one waits at a warp
// operation.
class WarpScheduler {
public:
  WarpScheduler(LaunchState &launch, std::span<ThreadState> states,
                std::span<ThreadContext> contexts)
      : launch_(launch), states_(states), contexts_(contexts) {}

  // True when some thread is parked at a warp operation.
  bool any_waiting() const;
  // Completes every warp operation whose named lanes have all arrived, making its lanes runnable;
  // in a warp where none can, completes its activemask calls. When nothing can complete (a lane
  // named in a mask exited, waits at another operation or at a barrier) records the fault that
  // says why. When the launch is stopping, every parked thread is resumed with its status set, so
  // that it returns.
  void settle();
  // Completes every warp operation (activemask aside) whose named lanes have all arrived, while
  // other threads of the block still run; true when one did.
  bool complete_arrived();

  // Completes the activemask calls of every warp whose other lanes cannot move on now (all are
  // parked, spinning or finished); true when one did.
  bool complete_active_masks();

private:
  bool complete_arrived(size_t base, uint32_t lanes);
  // The warp operation of the lanes named by lane `first`'s mask (lanes of the warp starting at
  // state `base`) completes; false when a named lane has not arrived there.
  bool try_complete(size_t base, uint32_t lanes, uint32_t first);
  // Completes the activemask calls of the warp starting at state `base`; false when there are
  // none.
  bool complete_active_masks(size_t base, uint32_t lanes);
  // Tells the launch (and its observers) that the shuffle `call` of the thread at `state` read
  // an undefined value.
  void report_undefined_shuffle(size_t state, const WarpArrival &call);
  // Records why the warp operation lane `lane` of warp `base` waits at cannot complete.
  void report_stuck(size_t base, uint32_t lanes, uint32_t lane);
  void stop_parked();

  LaunchState &launch_;
  std::span<ThreadState> states_;
  std::span<ThreadContext> contexts_;
};

} // namespace simt::sim
