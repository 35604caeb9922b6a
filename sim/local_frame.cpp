#include "sim/local_frame.h"

#include "ir/types.h"

#include <algorithm>
#include <vector>

namespace simt::sim {

namespace {

class FrameSizer {
public:
  explicit FrameSizer(const ir::Module &module)
      : module_(module), frames_(module.functions.size(), -1) {}

  int64_t frame(size_t function) {
    if (frames_[function] >= 0)
      return frames_[function];
    if (frames_[function] == kSizing)
      return 0; // a recursive call: the frontend refuses local arrays in recursive functions
    frames_[function] = kSizing;
    const ir::Function &fn = module_.functions[function];
    int64_t own = 0;
    for (const ir::LocalArrayDecl &decl : fn.local_arrays)
      own += decl.elements.bytes(decl.shape); // bounded by the typer (max_local_array_bytes)
    int64_t deepest_call = 0;
    for (const ir::Stmt &stmt : fn.body)
      deepest_call = std::max(deepest_call, calls(stmt));
    return frames_[function] = own + deepest_call;
  }

private:
  int64_t calls(const ir::Stmt &stmt) {
    int64_t deepest = 0;
    for (const ir::ExprPtr &e : stmt.exprs)
      deepest = std::max(deepest, calls(*e));
    for (const ir::Stmt &s : stmt.body)
      deepest = std::max(deepest, calls(s));
    for (const ir::Stmt &s : stmt.orelse)
      deepest = std::max(deepest, calls(s));
    return deepest;
  }

  int64_t calls(const ir::Expr &e) {
    int64_t deepest = e.kind == ir::ExprKind::Call ? frame(size_t(e.index)) : 0;
    for (const ir::ExprPtr &arg : e.args)
      deepest = std::max(deepest, calls(*arg));
    return deepest;
  }

  static constexpr int64_t kSizing = -2;
  const ir::Module &module_;
  std::vector<int64_t> frames_; // by function index; -1 until known, kSizing while sizing
};

} // namespace

int64_t local_frame_bytes(const ir::Module &module) { return FrameSizer(module).frame(0); }

} // namespace simt::sim
