// The one table of intrinsics (ir/intrinsics.def): what every layer knows of an intrinsic,
// its name, arity and properties, comes from here. The typer looks names up once; the IR, the
// lowering, the targets and the runtime use the enums.
#pragma once

#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

namespace simt::ir {

enum class Intrinsic : uint8_t {
#define SIMT_INTRINSIC(Id, Name, Arity, Flags) Id,
#include "ir/intrinsics.def"
};

// The warp operations of the runtime (sim/abi.h's simt_rt_warp) and Target::warp_op, in the
// table's order: the codes JIT'd code passes.
enum class WarpOp : int32_t {
#define SIMT_WARP_INTRINSIC(Id, Name, Arity, Op) Op,
#include "ir/intrinsics.def"
};

enum IntrinsicFlag : uint8_t {
  kNone = 0,
  // Can park the calling thread (a barrier, a warp collective, activemask, grid sync): the launch
  // may stop it there.
  kParks = 1,
  // The thread may have to return after it (it faulted or was stopped), so code after it checks
  // the thread's status, and so does the caller of every function that reaches one.
  kMayFault = 2,
  // A warp collective or activemask: the kernel's threads run as fibers (Properties::uses_warp).
  kWarp = 4,
  // A math library function, lowered by Target::math (codegen/math.h: its libdevice functions).
  kMath = 8,
  // A barrier of the block's (or the grid's) threads: Properties::uses_barrier.
  kBarrier = 16,
};

struct IntrinsicInfo {
  const char *name;
  uint8_t arity;
  uint8_t flags;
  WarpOp warp_op; // only with kWarp

  constexpr bool has(IntrinsicFlag flag) const { return (flags & flag) != 0; }
};

namespace detail {

inline constexpr WarpOp kNoWarpOp = WarpOp(-1);

inline constexpr IntrinsicInfo kIntrinsics[] = {
#define SIMT_INTRINSIC(Id, Name, Arity, Flags) {Name, Arity, Flags, kNoWarpOp},
#define SIMT_WARP_INTRINSIC(Id, Name, Arity, Op)                                                   \
  {Name, Arity, kParks | kMayFault | kWarp, WarpOp::Op},
#include "ir/intrinsics.def"
};

inline constexpr Intrinsic kWarpOpIntrinsics[] = {
#define SIMT_WARP_INTRINSIC(Id, Name, Arity, Op) Intrinsic::Id,
#include "ir/intrinsics.def"
};

} // namespace detail

inline constexpr int kIntrinsicCount = int(std::size(detail::kIntrinsics));
inline constexpr int kWarpOpCount = int(std::size(detail::kWarpOpIntrinsics));

constexpr const IntrinsicInfo &intrinsic_info(Intrinsic id) { return detail::kIntrinsics[int(id)]; }
constexpr const char *intrinsic_name(Intrinsic id) { return intrinsic_info(id).name; }
constexpr bool intrinsic_parks(Intrinsic id) { return intrinsic_info(id).has(kParks); }
constexpr bool intrinsic_may_fault(Intrinsic id) { return intrinsic_info(id).has(kMayFault); }
constexpr bool is_warp_op(Intrinsic id) { return intrinsic_info(id).has(kWarp); }
constexpr bool is_barrier(Intrinsic id) { return intrinsic_info(id).has(kBarrier); }

// The intrinsic the IR dump names `name` ("shfl_sync", "fp16.hadd", ...), if any.
constexpr std::optional<Intrinsic> find_intrinsic(std::string_view name) {
  for (int i = 0; i < kIntrinsicCount; ++i)
    if (name == detail::kIntrinsics[i].name)
      return Intrinsic(i);
  return std::nullopt;
}

// The intrinsic of warp operation `op`, and its name as the kernel calls it ("ballot_sync").
constexpr Intrinsic warp_op_intrinsic(WarpOp op) { return detail::kWarpOpIntrinsics[int(op)]; }
constexpr const char *warp_op_name(WarpOp op) { return intrinsic_name(warp_op_intrinsic(op)); }

} // namespace simt::ir
