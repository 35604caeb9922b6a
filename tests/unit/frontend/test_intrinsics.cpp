// The one table of intrinsics (ir/intrinsics.def) and what is derived from it.
#include "ir/intrinsics.h"

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

using namespace simt::ir;

namespace {

std::vector<Intrinsic> all_intrinsics() {
  std::vector<Intrinsic> all;
  for (int i = 0; i < kIntrinsicCount; ++i)
    all.push_back(Intrinsic(i));
  return all;
}

} // namespace

TEST_CASE("intrinsic names are unique and find their intrinsic") {
  std::set<std::string> names;
  for (Intrinsic id : all_intrinsics()) {
    CAPTURE(intrinsic_name(id));
    CHECK(names.insert(intrinsic_name(id)).second);
    CHECK(find_intrinsic(intrinsic_name(id)) == id);
  }
  CHECK(find_intrinsic("shfl_down_sync") == Intrinsic::ShflDownSync);
  CHECK(find_intrinsic("fp16.hadd") == Intrinsic::Hadd);
  CHECK_FALSE(find_intrinsic("syncthreads")); // a statement, not an intrinsic
  CHECK_FALSE(find_intrinsic("shfl"));
  CHECK_FALSE(find_intrinsic(""));
}

TEST_CASE("what may park may fault; warp operations park") {
  for (Intrinsic id : all_intrinsics()) {
    CAPTURE(intrinsic_name(id));
    if (intrinsic_parks(id))
      CHECK(intrinsic_may_fault(id));
    if (is_warp_op(id))
      CHECK(intrinsic_parks(id));
    CHECK_FALSE((intrinsic_info(id).has(kMath) && intrinsic_parks(id)));
  }
  CHECK(intrinsic_parks(Intrinsic::SyncthreadsCount));
  CHECK(intrinsic_parks(Intrinsic::GridSync));
  CHECK(intrinsic_parks(Intrinsic::Activemask));
  CHECK_FALSE(intrinsic_parks(Intrinsic::LanemaskLt));
  CHECK_FALSE(intrinsic_parks(Intrinsic::Threadfence));
  CHECK_FALSE(intrinsic_may_fault(Intrinsic::Sqrt));
}

TEST_CASE("warp operations and their intrinsics map one to one") {
  int warp_intrinsics = 0;
  for (Intrinsic id : all_intrinsics()) {
    if (!is_warp_op(id))
      continue;
    ++warp_intrinsics;
    CHECK(warp_op_intrinsic(intrinsic_info(id).warp_op) == id);
  }
  CHECK(warp_intrinsics == kWarpOpCount);
  for (int op = 0; op < kWarpOpCount; ++op)
    CHECK(intrinsic_info(warp_op_intrinsic(WarpOp(op))).warp_op == WarpOp(op));
  CHECK(std::string(warp_op_name(WarpOp::ShflIdx)) == "shfl_sync");
  CHECK(std::string(warp_op_name(WarpOp::Ballot)) == "ballot_sync");
  CHECK(std::string(warp_op_name(WarpOp::ActiveMask)) == "activemask");
}

TEST_CASE("arity is the operands in the IR") {
  CHECK(intrinsic_info(Intrinsic::Sin).arity == 1);
  CHECK(intrinsic_info(Intrinsic::Ldexp).arity == 2);
  CHECK(intrinsic_info(Intrinsic::Fma).arity == 3);
  CHECK(intrinsic_info(Intrinsic::Selp).arity == 3);
  CHECK(intrinsic_info(Intrinsic::ShflSync).arity == 3);
  CHECK(intrinsic_info(Intrinsic::BallotSync).arity == 2);
  CHECK(intrinsic_info(Intrinsic::Syncwarp).arity == 1); // the typer supplies a full mask
  CHECK(intrinsic_info(Intrinsic::Activemask).arity == 0);
  CHECK(intrinsic_info(Intrinsic::GridSync).arity == 0);
}

// The table is usable at compile time, as backends' static checks may need.
static_assert(find_intrinsic("syncthreads_or") == Intrinsic::SyncthreadsOr);
static_assert(is_warp_op(Intrinsic::MatchAllSync) && !is_warp_op(Intrinsic::LanemaskLt));
static_assert(int(WarpOp::ShflIdx) == 0, "warp operation codes start at 0");
