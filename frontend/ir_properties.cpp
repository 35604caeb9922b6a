// What the backends ask of the IR beyond its types: which calls can stop a thread, which loops
// can wait for other threads.
#include "frontend/ir.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace simt::ir {

namespace {

// Whether `e` reads memory another thread may write (so its value can change while this thread
// waits): an element of a global or shared array, an atomic, or a device function's result.
bool reads_shared_memory(const Expr &e) {
  switch (e.kind) {
  case ExprKind::ArrayLoad:
    if (e.args[0]->kind != ExprKind::LocalArray && e.args[0]->kind != ExprKind::ConstArray)
      return true;
    break;
  case ExprKind::Atomic:
  case ExprKind::Call:
    return true;
  default:
    break;
  }
  return std::any_of(e.args.begin(), e.args.end(),
                     [](const ExprPtr &arg) { return reads_shared_memory(*arg); });
}

bool reads_shared_memory(const std::vector<Stmt> &stmts) {
  return std::any_of(stmts.begin(), stmts.end(), [](const Stmt &s) {
    return std::any_of(s.exprs.begin(), s.exprs.end(),
                       [](const ExprPtr &e) { return reads_shared_memory(*e); }) ||
           reads_shared_memory(s.body) || reads_shared_memory(s.orelse);
  });
}

// Whether `e` reads a local slot in `slots`.
bool reads_slot(const Expr &e, const std::vector<int> &slots) {
  if (e.kind == ExprKind::Local && std::find(slots.begin(), slots.end(), e.index) != slots.end())
    return true;
  return std::any_of(e.args.begin(), e.args.end(),
                     [&](const ExprPtr &arg) { return reads_slot(*arg, slots); });
}

// The slots of `stmts` (nested blocks included) assigned a value that reads memory another thread
// may write: `done = flag[0]`, `done |= cuda.atomic.add(...)`.
void slots_loaded_from_shared_memory(const std::vector<Stmt> &stmts, std::vector<int> &slots) {
  for (const Stmt &s : stmts) {
    if (s.kind == StmtKind::Assign && reads_shared_memory(*s.exprs[0]))
      slots.push_back(s.slot);
    slots_loaded_from_shared_memory(s.body, slots);
    slots_loaded_from_shared_memory(s.orelse, slots);
  }
}

} // namespace

bool intrinsic_parks(const std::string &name) {
  static constexpr std::array<std::string_view, 16> parking = {
      "syncthreads_count", "syncthreads_and", "syncthreads_or", "grid_sync",
      "shfl_sync",         "shfl_up_sync",    "shfl_down_sync", "shfl_xor_sync",
      "all_sync",          "any_sync",        "eq_sync",        "ballot_sync",
      "match_any_sync",    "match_all_sync",  "syncwarp",       "activemask"};
  return std::find(parking.begin(), parking.end(), name) != parking.end();
}

bool loop_may_spin(const Stmt &loop) {
  if (loop.kind != StmtKind::While)
    return false;
  const Expr &condition = *loop.exprs[0];
  if (reads_shared_memory(condition) ||
      (condition.kind == ExprKind::Const && reads_shared_memory(loop.body)))
    return true;
  // `while not done: done = flag[0]`: the condition reads what the body loads from such memory.
  std::vector<int> loaded;
  slots_loaded_from_shared_memory(loop.body, loaded);
  return !loaded.empty() && reads_slot(condition, loaded);
}

} // namespace simt::ir
