// Properties derived from the IR (analysis/properties.h).
#include "analysis/properties.h"
#include "analysis/spin.h"
#include "ir/walk.h"

#include <tuple>
#include <utility>

namespace simt::ir {

namespace {

// What `f`'s own statements use, its callees aside; `callees` gets the functions it calls.
Properties own_properties(const Function &f, std::vector<int> &callees) {
  Properties p;
  walk_stmts(f.body, [&](const Stmt &s) {
    p.uses_barrier = p.uses_barrier || s.kind == StmtKind::SyncThreads;
    p.uses_print = p.uses_print || s.kind == StmtKind::Print;
  });
  walk_exprs(f.body, [&](const Expr &e) {
    switch (e.kind) {
    case ExprKind::SharedArray:
      p.uses_shared = true;
      break;
    case ExprKind::Atomic:
      p.uses_atomics = true;
      break;
    case ExprKind::Call:
      callees.push_back(e.index);
      break;
    case ExprKind::Intrinsic:
      p.uses_barrier = p.uses_barrier || is_barrier(e.intrinsic);
      p.uses_grid_sync = p.uses_grid_sync || e.intrinsic == Intrinsic::GridSync;
      // activemask too: which lanes are alive is the scheduler's to say
      p.uses_warp = p.uses_warp || is_warp_op(e.intrinsic);
      p.uses_breakpoint = p.uses_breakpoint || e.intrinsic == Intrinsic::Breakpoint;
      break;
    default:
      break;
    }
  });
  p.may_spin = any_loop_may_spin(f.body);
  return p;
}

// Whether `into` changed by taking in what `from` uses.
bool merge(Properties &into, const Properties &from) {
  const Properties before = into;
  auto mine = fields(into);
  const auto theirs = fields(from);
  // Each flag ORed, over the flags fields(Properties) lists once.
  [&]<size_t... flag>(std::index_sequence<flag...>) {
    ((std::get<flag>(mine) = std::get<flag>(mine) || std::get<flag>(theirs)), ...);
  }
  (std::make_index_sequence<std::tuple_size_v<decltype(mine)>>{});
  return fields(before) != fields(into);
}

} // namespace

void derive_properties(Module &module) {
  std::vector<std::vector<int>> callees(module.functions.size());
  for (size_t f = 0; f < module.functions.size(); ++f)
    module.functions[f].props = own_properties(module.functions[f], callees[f]);
  // A function uses what its callees use: spread until nothing changes (calls may form cycles).
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t f = 0; f < module.functions.size(); ++f)
      for (int callee : callees[f])
        changed =
            merge(module.functions[f].props, module.functions[size_t(callee)].props) || changed;
  }
  module.props = module.functions.empty() ? Properties{} : module.functions[0].props;
}

} // namespace simt::ir
