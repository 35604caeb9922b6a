// The fission plan of a kernel (analysis/fission.h): which locals are block-level, which
// statements run once per block, which locals a thread keeps across regions.
#include "analysis/fission.h"
#include "ir/walk.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

namespace simt::ir {

bool is_barrier_reduction(const Expr &e) {
  return e.kind == ExprKind::Intrinsic &&
         (e.intrinsic == Intrinsic::SyncthreadsCount || e.intrinsic == Intrinsic::SyncthreadsAnd ||
          e.intrinsic == Intrinsic::SyncthreadsOr);
}

bool is_block_uniform(const Expr &e, const std::vector<bool> &block_level_slots) {
  auto args_uniform = [&](size_t first) {
    return std::all_of(e.args.begin() + std::ptrdiff_t(first), e.args.end(),
                       [&](auto &arg) { return is_block_uniform(*arg, block_level_slots); });
  };
  switch (e.kind) {
  case ExprKind::Const:
  case ExprKind::String:
  case ExprKind::SharedArray:
  case ExprKind::ConstArray:
    return true;
  case ExprKind::Local:
    return block_level_slots[size_t(e.index)];
  case ExprKind::Special:
    return e.op == Op::BlockIdx || e.op == Op::BlockDim || e.op == Op::GridDim ||
           e.op == Op::WarpSize;
  case ExprKind::Unary:
  case ExprKind::Binary:
  case ExprKind::Compare:
  case ExprKind::And:
  case ExprKind::Or:
  case ExprKind::Select:
  case ExprKind::Cast:
  case ExprKind::TupleMake:
  case ExprKind::TupleGet:
  case ExprKind::TupleIndex:
  case ExprKind::ArrayShape:
  case ExprKind::ArrayStride:
  case ExprKind::ArraySize:
  case ExprKind::ArrayAddress:
  case ExprKind::ArrayView:
  case ExprKind::FieldView:
  case ExprKind::DtypeView:
  case ExprKind::Reshape:
  case ExprKind::Slice:
  case ExprKind::Libdevice:
  case ExprKind::Bf16:
  case ExprKind::Fp8:
  case ExprKind::Fp8Value:
    return args_uniform(0);
  case ExprKind::ArrayLoad: // read-only memory only
    return e.args[0]->kind == ExprKind::ConstArray && args_uniform(1);
  case ExprKind::Intrinsic:
    if (is_barrier_reduction(e))
      return true;
    if (intrinsic_parks(e.intrinsic) || e.intrinsic == Intrinsic::Threadfence ||
        e.intrinsic == Intrinsic::ThreadfenceBlock || e.intrinsic == Intrinsic::ThreadfenceSystem ||
        e.intrinsic == Intrinsic::Nanosleep)
      return false;
    return args_uniform(0);
  default: // memory other threads write, calls, a thread's own local arrays
    return false;
  }
}

namespace {

bool contains_reduction(const Expr &e) { return any_expr(e, is_barrier_reduction); }

bool stmt_contains_reduction(const Stmt &s) {
  return std::any_of(s.exprs.begin(), s.exprs.end(),
                     [](auto &e) { return contains_reduction(*e); });
}

// Whether `s` holds a break or continue that leaves it (not one of a loop inside it).
bool has_outward_jump(const Stmt &s) {
  if (s.kind == StmtKind::Break || s.kind == StmtKind::Continue)
    return true;
  if (s.kind != StmtKind::If)
    return false;
  auto any = [](const std::vector<Stmt> &stmts) {
    return std::any_of(stmts.begin(), stmts.end(), has_outward_jump);
  };
  return any(s.body) || any(s.orelse);
}

std::string at_line(const Loc &where) { return " (line " + std::to_string(where.line) + ")"; }

class FissionAnalysis {
public:
  explicit FissionAnalysis(const Module &module) : module_(module), kernel_(module.kernel()) {}

  FissionPlan run() {
    const Properties &props = module_.props;
    if (props.uses_warp)
      return refuse("a warp collective");
    if (props.uses_grid_sync)
      return refuse("a grid-wide barrier");
    if (props.may_spin)
      return refuse("a loop that may wait for other threads");
    // The block's threads keep their local arrays side by side: 1024 threads of this many
    // bytes each is as much as simt lets a block take (larger ones run as fibers, whose stacks
    // are checked against the launch's memory budget).
    constexpr int64_t kMaxLocalArrayBytes = 64 * 1024;
    int64_t local_bytes = 0;
    for (const LocalArrayDecl &decl : kernel_.local_arrays)
      local_bytes += decl.elements.bytes(decl.shape);
    if (local_bytes > kMaxLocalArrayBytes)
      return refuse("local arrays of " + std::to_string(local_bytes) +
                    " bytes per thread (fission keeps at most " +
                    std::to_string(kMaxLocalArrayBytes) + ")");
    for (const Stmt &s : kernel_.body)
      check_calls(s);
    if (!plan_.obstacle.empty())
      return std::move(plan_);
    uniform_.assign(kernel_.slots.size(), true);
    // A local is block-level when every assignment of it is a block-level statement whose value
    // is block-level; demoting one local can demote others, so repeat until nothing changes.
    for (changed_ = true; changed_ && plan_.obstacle.empty();) {
      changed_ = false;
      statements(kernel_.body, /*in_loop=*/false, /*final=*/false);
    }
    if (!plan_.obstacle.empty())
      return std::move(plan_);
    count_assignments(kernel_.body);
    plan_.recomputed.assign(kernel_.slots.size(), nullptr);
    exposed_.assign(kernel_.slots.size(), false);
    block_constant_.assign(kernel_.slots.size(), false);
    for (int i = 0; i < kernel_.num_params; ++i)
      block_constant_[size_t(i)] = uniform_[size_t(i)] && assignments_[i] == 0;
    statements(kernel_.body, false, /*final=*/true);
    plan_.block_level_slots = uniform_;
    plan_.per_thread_slots.assign(kernel_.slots.size(), false);
    for (size_t slot = 0; slot < kernel_.slots.size(); ++slot)
      plan_.per_thread_slots[slot] = !uniform_[slot] && !plan_.recomputed[slot] && exposed_[slot];
    return std::move(plan_);
  }

private:
  FissionPlan refuse(const std::string &why) {
    plan_.obstacle = why;
    return std::move(plan_);
  }

  void obstacle(const std::string &why) {
    if (plan_.obstacle.empty())
      plan_.obstacle = why;
  }

  void demote(int slot) {
    if (uniform_[size_t(slot)]) {
      uniform_[size_t(slot)] = false;
      changed_ = true;
    }
  }

  bool uniform(const Expr &e) const { return is_block_uniform(e, uniform_); }

  // Checks where the reductions of an expression evaluated once per block sit: each is evaluated
  // once, before the expression, so none may be conditional or nested in another's predicate.
  void check_reductions(const Expr &e, bool conditional, const Loc &where) {
    if (is_barrier_reduction(e)) {
      if (conditional)
        obstacle("cuda.syncthreads_count/and/or evaluated conditionally" + at_line(where));
      if (contains_reduction(*e.args[0]))
        obstacle("a barrier in a barrier's predicate" + at_line(where));
      return;
    }
    const bool short_circuit =
        e.kind == ExprKind::And || e.kind == ExprKind::Or || e.kind == ExprKind::Select;
    for (size_t k = 0; k < e.args.size(); ++k)
      check_reductions(*e.args[k], conditional || (short_circuit && k > 0), where);
  }

  // Whether `s` (recursively) holds a barrier (those in device functions are obstacles).
  static bool has_barrier(const Stmt &s) {
    bool found = false;
    walk_stmt(s, [&](const Stmt &t) {
      found = found || t.kind == StmtKind::SyncThreads || stmt_contains_reduction(t);
    });
    return found;
  }

  void check_calls(const Stmt &s) {
    walk_stmt(s, [&](const Stmt &t) {
      walk_stmt_exprs(t, [&](const Expr &e) {
        if (e.kind == ExprKind::Call && module_.functions[size_t(e.index)].props.uses_barrier)
          obstacle("a barrier in device function " +
                   module_.functions[size_t(e.index)].python_name + at_line(e.loc));
      });
    });
  }

  bool is_block_level(const Stmt &s, bool in_loop) {
    switch (s.kind) {
    case StmtKind::SyncThreads:
    case StmtKind::Break: // in a block-level list: of a block-level loop
    case StmtKind::Continue:
    case StmtKind::Return:
      return true;
    case StmtKind::If:
      return has_barrier(s) || (in_loop && has_outward_jump(s));
    case StmtKind::While:
    case StmtKind::ForRange:
      return has_barrier(s);
    case StmtKind::Assign: // a kernel without barriers stays one region
      return stmt_contains_reduction(s) || (module_.props.uses_barrier && uniform_[size_t(s.slot)]);
    default:
      return stmt_contains_reduction(s);
    }
  }

  // A list of statements that runs once per block (`in_loop`: inside a block-level loop).
  // `final`: the block-level locals are known; record the plan.
  void statements(const std::vector<Stmt> &stmts, bool in_loop, bool final) {
    for (const Stmt &s : stmts) {
      if (!is_block_level(s, in_loop)) {
        if (final)
          region_statement(s, in_loop);
        else
          demote_assigned(s);
        continue;
      }
      if (final) {
        close_region();
        plan_.block_level.insert(&s);
      }
      block_statement(s, in_loop, final);
    }
  }

  void block_statement(const Stmt &s, bool in_loop, bool final) {
    auto condition = [&](const Expr &e) {
      check_reductions(e, false, s.loc);
      if (final && !uniform(e))
        obstacle("a barrier under a thread-dependent " +
                 std::string(s.kind == StmtKind::If ? "branch" : "loop") + at_line(s.loc));
      if (final)
        reduction_regions(e);
    };
    switch (s.kind) {
    case StmtKind::If:
      condition(*s.exprs[0]);
      statements(s.body, in_loop, final);
      statements(s.orelse, in_loop, final);
      return;
    case StmtKind::While:
      condition(*s.exprs[0]);
      statements(s.body, true, final);
      statements(s.orelse, in_loop, final);
      return;
    case StmtKind::ForRange:
      for (const ExprPtr &bound : s.exprs)
        condition(*bound);
      if (!std::all_of(s.exprs.begin(), s.exprs.end(), [&](auto &e) { return uniform(*e); }))
        demote(s.slot);
      else if (final && !uniform_[size_t(s.slot)])
        obstacle("a loop variable assigned per thread" + at_line(s.loc));
      statements(s.body, true, final);
      statements(s.orelse, in_loop, final);
      return;
    case StmtKind::SyncThreads:
    case StmtKind::Break:
    case StmtKind::Continue:
      return;
    default:
      break;
    }
    // A simple statement: an assignment of a block-level local (made once per block), or a
    // statement holding barrier reductions, which are evaluated first and the statement then runs
    // as a region of its own.
    for (const ExprPtr &e : s.exprs)
      check_reductions(*e, false, s.loc);
    if (s.kind == StmtKind::Assign && !uniform(*s.exprs[0]))
      demote(s.slot);
    if (!final)
      return;
    if (s.kind == StmtKind::Assign && uniform_[size_t(s.slot)] && !in_loop &&
        assignments_[s.slot] == 1)
      block_constant_[size_t(s.slot)] = true;
    for (const ExprPtr &e : s.exprs)
      reduction_regions(*e);
    if (s.kind == StmtKind::Return && !s.exprs.empty() && !uniform(*s.exprs[0]))
      obstacle("a returned value computed per thread" + at_line(s.loc));
    if (!(s.kind == StmtKind::Assign && uniform_[size_t(s.slot)]) && s.kind != StmtKind::Return) {
      close_region();
      region_statement(s, in_loop);
      close_region();
    }
  }

  // Every local a statement that runs per thread assigns is a thread's own.
  void demote_assigned(const Stmt &s) {
    walk_stmt(s, [&](const Stmt &t) {
      if (t.kind == StmtKind::Assign || t.kind == StmtKind::ForRange)
        demote(t.slot);
    });
  }

  // ---- regions (final pass): which locals a region may read before it assigns them ----

  void region_statement(const Stmt &s, bool in_loop) {
    if (s.kind == StmtKind::Assign && !in_loop && assignments_[s.slot] == 1 &&
        !uniform_[size_t(s.slot)] && recomputable(*s.exprs[0]))
      plan_.recomputed[size_t(s.slot)] = s.exprs[0].get();
    expose(s, assigned_);
  }

  void close_region() { assigned_.clear(); }

  void reduction_regions(const Expr &e) {
    if (is_barrier_reduction(e)) {
      close_region();
      expose(*e.args[0], assigned_);
      return;
    }
    for (const ExprPtr &arg : e.args)
      reduction_regions(*arg);
  }

  // Whether `e` computes the same value wherever a region evaluates it for a thread: from the
  // thread's and block's indices, constants and block constants, in straight-line code that
  // cannot fault.
  bool recomputable(const Expr &e) const {
    switch (e.kind) {
    case ExprKind::Const:
    case ExprKind::Special:
      return true;
    case ExprKind::Local:
      return block_constant_[size_t(e.index)] || plan_.recomputed[size_t(e.index)];
    case ExprKind::Binary:
      if (e.op == Op::FloorDiv || e.op == Op::Mod || e.op == Op::Pow || e.op == Op::TrueDiv)
        return false;
      break;
    case ExprKind::Unary:
    case ExprKind::Compare:
    case ExprKind::Cast:
    case ExprKind::TupleMake:
    case ExprKind::TupleGet:
    case ExprKind::ArrayShape:
    case ExprKind::ArrayStride:
    case ExprKind::ArraySize:
      break;
    default: // and, or and conditional expressions branch
      return false;
    }
    return std::all_of(e.args.begin(), e.args.end(), [&](auto &arg) { return recomputable(*arg); });
  }

  void expose(const Expr &e, const std::set<int> &assigned) {
    walk_expr(e, [&](const Expr &x) {
      if (x.kind == ExprKind::Local && !assigned.count(x.index))
        exposed_[size_t(x.index)] = true;
    });
  }

  void expose(const std::vector<Stmt> &stmts, std::set<int> &assigned) {
    for (const Stmt &s : stmts)
      expose(s, assigned);
  }

  // Records the reads of `s` that no earlier statement of the region assigned on every path;
  // `assigned` grows by what `s` assigns on every path.
  void expose(const Stmt &s, std::set<int> &assigned) {
    for (const ExprPtr &e : s.exprs)
      expose(*e, assigned);
    switch (s.kind) {
    case StmtKind::Assign:
      assigned.insert(s.slot);
      return;
    case StmtKind::Return: // a kernel without barriers has no later region
      plan_.threads_return = plan_.threads_return || module_.props.uses_barrier;
      return;
    case StmtKind::If: {
      std::set<int> then_assigned = assigned, else_assigned = assigned;
      expose(s.body, then_assigned);
      expose(s.orelse, else_assigned);
      std::set<int> both;
      std::set_intersection(then_assigned.begin(), then_assigned.end(), else_assigned.begin(),
                            else_assigned.end(), std::inserter(both, both.end()));
      assigned = std::move(both);
      return;
    }
    case StmtKind::While:
    case StmtKind::ForRange: { // the body may run no times
      std::set<int> body_assigned = assigned, else_assigned = assigned;
      if (s.kind == StmtKind::ForRange)
        body_assigned.insert(s.slot);
      expose(s.body, body_assigned);
      expose(s.orelse, else_assigned);
      return;
    }
    default:
      return;
    }
  }

  void count_assignments(const std::vector<Stmt> &stmts) {
    walk_stmts(stmts, [&](const Stmt &s) {
      if (s.kind == StmtKind::Assign || s.kind == StmtKind::ForRange)
        ++assignments_[s.slot];
    });
  }

  const Module &module_;
  const Function &kernel_;
  FissionPlan plan_;
  std::vector<bool> uniform_;
  bool changed_ = false;
  std::map<int, int> assignments_;   // slot -> how many statements assign it
  std::vector<bool> block_constant_; // block-level slots assigned once, outside loops
  std::vector<bool> exposed_;        // slots some region may read before assigning them
  std::set<int> assigned_;           // in the current region: slots assigned on every path so far
};

} // namespace

FissionPlan plan_fission(const Module &module) { return FissionAnalysis(module).run(); }

} // namespace simt::ir
