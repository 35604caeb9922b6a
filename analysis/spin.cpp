// Spin detection: which loops can wait for other threads (analysis/spin.h).
#include "analysis/spin.h"
#include "ir/walk.h"

#include <algorithm>
#include <optional>

namespace simt::ir {

namespace {

// Whether `e` itself reads memory another thread may write (so its value can change while this
// thread waits): an element of a global or shared array (a view held in a local included), a
// record's field, an atomic, or a device function's result.
bool reads_shared_memory_here(const Expr &e) {
  switch (e.kind) {
  case ExprKind::ArrayLoad:
    return e.args[0]->kind != ExprKind::LocalArray && e.args[0]->kind != ExprKind::ConstArray;
  case ExprKind::RecordField:
  case ExprKind::Atomic:
  case ExprKind::Call:
  case ExprKind::ExternCall:
    return true;
  case ExprKind::Libdevice: // a function of its arguments alone
  case ExprKind::Bf16:
  case ExprKind::Fp8:
  case ExprKind::Fp8Value:
  default:
    return false;
  }
}

// What a value computed in a loop depends on: memory other threads may write, and the locals it
// reads, as node indices: slot s is node s + 1, and node 0 stands for the thread's local arrays,
// written by stores into them and by calls (a device function may fill a local array it is
// passed).
struct Dependence {
  bool on_shared_memory = false;
  std::vector<int> locals;

  void add(const Dependence &other) {
    on_shared_memory = on_shared_memory || other.on_shared_memory;
    locals.insert(locals.end(), other.locals.begin(), other.locals.end());
  }
};

// Finds whether a loop may wait for other threads: whether one of its exits (its condition, a
// break or a return) depends, through data or control, on memory that other threads may write
// and that the loop reads. One pass records each assignment's dependence and each exit's; a walk
// of the assignment graph from the reads of shared memory then finds every tainted local.
class SpinAnalysis {
public:
  bool may_spin(const Stmt &loop) {
    Dependence control;
    exits_.push_back(depends(*loop.exprs[0]));
    statements(loop.body, control, /*nested=*/false);
    // The else clause runs once, after the loop: it decides nothing about the loop's exit.
    return std::any_of(exits_.begin(), exits_.end(),
                       [&](const Dependence &d) { return tainted(d); });
  }

private:
  Dependence depends(const Expr &e) const {
    Dependence d;
    collect(e, d);
    return d;
  }

  void collect(const Expr &e, Dependence &d) const {
    d.on_shared_memory = d.on_shared_memory || reads_shared_memory_here(e);
    if (e.kind == ExprKind::Local)
      d.locals.push_back(e.index + 1);
    if (e.kind == ExprKind::ArrayLoad && e.args[0]->kind == ExprKind::LocalArray)
      d.locals.push_back(local_memory);
    for (const ExprPtr &arg : e.args)
      collect(*arg, d);
  }

  // `target` is assigned a value depending on `d` (under `control`).
  void assigns(int target, Dependence d, const Dependence &control) {
    d.add(control);
    if (size_t(target) >= writers_.size())
      writers_.resize(size_t(target) + 1);
    writers_[size_t(target)].push_back(std::move(d));
  }

  // `nested`: inside a loop nested in the analysed one, whose breaks do not leave it.
  void statements(const std::vector<Stmt> &stmts, const Dependence &control, bool nested) {
    for (const Stmt &s : stmts)
      statement(s, control, nested);
  }

  void statement(const Stmt &s, const Dependence &control, bool nested) {
    for (const ExprPtr &e : s.exprs)
      if (contains_call(*e))
        assigns(local_memory, depends(*e), control);
    switch (s.kind) {
    case StmtKind::Assign:
      assigns(s.slot + 1, depends(*s.exprs[0]), control);
      break;
    case StmtKind::Store:
    case StmtKind::FieldStore:
      if (writes_local_memory(*s.exprs[0]))
        assigns(local_memory, depends(*s.exprs.back()), control);
      break;
    case StmtKind::Break:
      if (!nested)
        exits_.push_back(control);
      break;
    case StmtKind::Return:
      exits_.push_back(control);
      break;
    case StmtKind::If:
    case StmtKind::While: {
      Dependence inner = control;
      inner.add(depends(*s.exprs[0]));
      const bool loop = s.kind == StmtKind::While;
      statements(s.body, inner, nested || loop);
      // A nested loop's else clause runs after it, at the level of the analysed loop.
      statements(s.orelse, loop ? control : inner, nested);
      break;
    }
    case StmtKind::ForRange: {
      Dependence inner = control;
      for (const ExprPtr &bound : s.exprs)
        inner.add(depends(*bound));
      assigns(s.slot + 1, inner, Dependence{});
      statements(s.body, inner, /*nested=*/true);
      statements(s.orelse, control, nested);
      break;
    }
    default:
      break;
    }
  }

  static bool contains_call(const Expr &e) {
    return any_expr(e, [](const Expr &x) {
      return x.kind == ExprKind::Call || x.kind == ExprKind::ExternCall;
    });
  }

  static bool writes_local_memory(const Expr &target) {
    return target.kind == ExprKind::LocalArray ||
           ((target.kind == ExprKind::ArrayView || target.kind == ExprKind::FieldView ||
             target.kind == ExprKind::DtypeView || target.kind == ExprKind::Reshape) &&
            writes_local_memory(*target.args[0]));
  }

  // Whether `d` depends on shared memory: directly, or through a local assigned from it.
  bool tainted(const Dependence &d) {
    if (!taint_)
      taint_ = spread_taint();
    return d.on_shared_memory || std::any_of(d.locals.begin(), d.locals.end(), [&](int local) {
             return size_t(local) < taint_->size() && (*taint_)[size_t(local)];
           });
  }

  std::vector<bool> spread_taint() const {
    // readers[x]: the locals assigned a value that reads x (every local read is assigned in the
    // loop or not at all, so a node past writers_ is never tainted).
    std::vector<std::vector<int>> readers(writers_.size());
    std::vector<bool> taint(writers_.size(), false);
    std::vector<int> work;
    for (size_t target = 0; target < writers_.size(); ++target)
      for (const Dependence &d : writers_[target]) {
        if (d.on_shared_memory && !taint[target]) {
          taint[target] = true;
          work.push_back(int(target));
        }
        for (int local : d.locals)
          if (size_t(local) < readers.size())
            readers[size_t(local)].push_back(int(target));
      }
    while (!work.empty()) {
      const int local = work.back();
      work.pop_back();
      for (int reader : readers[size_t(local)])
        if (!taint[size_t(reader)]) {
          taint[size_t(reader)] = true;
          work.push_back(reader);
        }
    }
    return taint;
  }

  static constexpr int local_memory = 0;
  std::vector<std::vector<Dependence>> writers_; // per local: what its assignments depend on
  std::vector<Dependence> exits_;                // what each exit of the loop depends on
  std::optional<std::vector<bool>> taint_;
};

} // namespace

bool loop_may_spin(const Stmt &loop) {
  // A range() loop runs a count fixed when it starts: it ends whatever the other threads do.
  return loop.kind == StmtKind::While && SpinAnalysis().may_spin(loop);
}

bool any_loop_may_spin(const std::vector<Stmt> &stmts) {
  bool found = false;
  walk_stmts(stmts, [&](const Stmt &s) { found = found || loop_may_spin(s); });
  return found;
}

} // namespace simt::ir
