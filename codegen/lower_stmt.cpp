// Statements and control flow of the typed IR (codegen/function_lowering.h).
#include "analysis/spin.h"
#include "codegen/function_lowering.h"

namespace simt::codegen {

void FunctionLowering::statements(std::span<const ir::Stmt> stmts) {
  for (const ir::Stmt &s : stmts) {
    if (terminated())
      start_dead_block();
    statement(s);
  }
}

void FunctionLowering::statement(const ir::Stmt &s) {
  if (scope_)
    b_.SetCurrentDebugLocation(m_.debug_info->location(scope_, s.loc));
  statement_hook(s.loc);
  switch (s.kind) {
  case ir::StmtKind::Assign:
    b_.CreateStore(expr(*s.exprs[0]), slot_address(s.slot));
    return;
  case ir::StmtKind::Store: {
    if (s.exprs[0]->type.is_record_array()) {
      record_copy(s);
      return;
    }
    // Python evaluates the value before the target.
    Scalar dtype = s.exprs[0]->type.scalar;
    llvm::Value *value = register_to_memory(b_, expr(*s.exprs.back()), dtype);
    llvm::Value *addr = element_address(s.exprs, 1, s.loc, AccessKind::Store);
    store(addr, s.exprs[0]->type, dtype, value, llvm::Align(byte_size(dtype)), s.loc);
    return;
  }
  case ir::StmtKind::Eval:
    expr(*s.exprs[0]);
    return;
  case ir::StmtKind::If:
    if_statement(s);
    return;
  case ir::StmtKind::While:
    while_statement(s);
    return;
  case ir::StmtKind::ForRange:
    for_range(s);
    return;
  case ir::StmtKind::Break:
  case ir::StmtKind::Continue:
    if (loops_.empty())
      throw std::logic_error("simt: break/continue outside a loop");
    b_.CreateBr(s.kind == ir::StmtKind::Break ? loops_.back().exit : loops_.back().next);
    return;
  case ir::StmtKind::Return:
    if (region_ && f_.is_kernel) {
      // The thread leaves the block's later regions.
      if (!s.exprs.empty())
        expr(*s.exprs[0]);
      if (alive_) // else no region follows this one
        b_.CreateStore(b_.getInt8(0),
                       b_.CreateInBoundsGEP(b_.getInt8Ty(), alive_, region_->thread));
      b_.CreateBr(region_->next);
      return;
    }
    if (!s.exprs.empty() && !f_.is_kernel && !fn_->getReturnType()->isVoidTy()) {
      llvm::Value *result = expr(*s.exprs[0]);
      if (instrumented())
        instrumentation_hooks().leave_function(emitter_);
      b_.CreateRet(result);
      return;
    }
    if (!s.exprs.empty())
      expr(*s.exprs[0]);
    return_from_function(false);
    return;
  case ir::StmtKind::Raise:
    enter_fault(raise_fault(s.exc, s.message), {b_.getInt32(loc(s.loc))});
    return;
  case ir::StmtKind::Assert:
    raise_if(b_.CreateNot(expr(*s.exprs[0])), "AssertionError", s.message, s.loc);
    return;
  case ir::StmtKind::SyncThreads:
    target_.barrier(emitter_, loc(s.loc));
    check_status();
    return;
  case ir::StmtKind::Print:
    print(s);
    return;
  case ir::StmtKind::FieldStore:
    field_store(s);
    return;
  }
}

void FunctionLowering::if_statement(const ir::Stmt &s, llvm::BasicBlock *merge) {
  llvm::Value *cond = expr(*s.exprs[0]);
  llvm::BasicBlock *then_block = block("then");
  llvm::BasicBlock *else_block = s.orelse.empty() ? nullptr : block("else");
  const bool own_merge = merge == nullptr;
  if (own_merge)
    merge = block("endif");
  b_.CreateCondBr(cond, then_block, else_block ? else_block : merge);
  b_.SetInsertPoint(then_block);
  branch(s.body, merge);
  if (else_block) {
    b_.SetInsertPoint(else_block);
    branch(s.orelse, merge);
  }
  if (own_merge)
    b_.SetInsertPoint(merge);
}

// An if that ends a branch (an elif, or an if last in a body) continues at the enclosing if's
// merge block: a chain of n of them gets one merge block, not n nested empty ones, which LLVM's
// CFG simplification would fold one by one in time quadratic in n.
void FunctionLowering::branch(const std::vector<ir::Stmt> &stmts, llvm::BasicBlock *merge) {
  const bool ends_with_if = !stmts.empty() && stmts.back().kind == ir::StmtKind::If;
  statements(std::span(stmts).first(stmts.size() - ends_with_if));
  if (ends_with_if) {
    if (terminated())
      start_dead_block();
    if_statement(stmts.back(), merge);
  } else if (!terminated()) {
    b_.CreateBr(merge);
  }
}

void FunctionLowering::while_statement(const ir::Stmt &s, bool block_level) {
  llvm::BasicBlock *head = block("while");
  llvm::BasicBlock *body = block("while.body");
  llvm::BasicBlock *latch = block("while.next");
  llvm::BasicBlock *exit = block("while.end");
  llvm::BasicBlock *normal_exit = s.orelse.empty() ? exit : block("while.else");
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  b_.CreateCondBr(control_values(s.exprs, block_level)[0], body, normal_exit);
  b_.SetInsertPoint(body);
  loops_.push_back({latch, exit});
  loop_statements(s.body, block_level);
  loops_.pop_back();
  if (!terminated())
    b_.CreateBr(latch);
  b_.SetInsertPoint(latch);
  statement_hook(s.loc);
  back_edge(head, ir::loop_may_spin(s), s.loc);
  loop_else(s, normal_exit, exit, block_level);
}

void FunctionLowering::loop_statements(const std::vector<ir::Stmt> &stmts, bool block_level) {
  if (block_level)
    block_statements(stmts);
  else
    statements(stmts);
}

std::vector<llvm::Value *> FunctionLowering::control_values(const std::vector<ir::ExprPtr> &exprs,
                                                            bool block_level) {
  if (block_level) {
    for (const ir::ExprPtr &e : exprs)
      reductions(*e);
    first_live_thread();
  }
  std::vector<llvm::Value *> values;
  for (const ir::ExprPtr &e : exprs)
    values.push_back(expr(*e));
  block_reductions_.clear();
  return values;
}

void FunctionLowering::back_edge(llvm::BasicBlock *head, bool spins, ir::Loc where) {
  if (!bail_)
    bail_ = block("bail");
  b_.CreateCondBr(target_.loop_back_edge(emitter_, spins, loc(where)), bail_, head,
                  unlikely(ctx()));
}

void FunctionLowering::loop_else(const ir::Stmt &s, llvm::BasicBlock *normal_exit,
                                 llvm::BasicBlock *exit, bool block_level) {
  if (normal_exit != exit) {
    b_.SetInsertPoint(normal_exit);
    loop_statements(s.orelse, block_level);
    if (!terminated())
      b_.CreateBr(exit);
  }
  b_.SetInsertPoint(exit);
}

// for slot in range(start, stop, step): the loop variable runs in a register; the slot gets
// each value, so it keeps the last one after the loop as in Python.
void FunctionLowering::for_range(const ir::Stmt &s, bool block_level) {
  const std::vector<llvm::Value *> bounds = control_values(s.exprs, block_level);
  llvm::Value *start = bounds[0], *stop = bounds[1], *step = bounds[2];
  llvm::Value *zero = b_.getInt64(0);
  raise_if(b_.CreateICmpEQ(step, zero), "ValueError", "range() arg 3 must not be zero", s.loc);
  llvm::Value *ascending = b_.CreateICmpSGT(step, zero);
  llvm::BasicBlock *before = b_.GetInsertBlock();
  llvm::BasicBlock *head = block("for");
  llvm::BasicBlock *body = block("for.body");
  llvm::BasicBlock *next = block("for.next");
  llvm::BasicBlock *exit = block("for.end");
  llvm::BasicBlock *normal_exit = s.orelse.empty() ? exit : block("for.else");
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  llvm::PHINode *i = b_.CreatePHI(b_.getInt64Ty(), 2, "i");
  i->addIncoming(start, before);
  llvm::Value *more =
      b_.CreateSelect(ascending, b_.CreateICmpSLT(i, stop), b_.CreateICmpSGT(i, stop));
  b_.CreateCondBr(more, body, normal_exit);
  b_.SetInsertPoint(body);
  b_.CreateStore(i, slot_address(s.slot));
  loops_.push_back({next, exit});
  loop_statements(s.body, block_level);
  loops_.pop_back();
  if (!terminated())
    b_.CreateBr(next);
  b_.SetInsertPoint(next);
  statement_hook(s.loc);
  llvm::Value *i_next = b_.CreateNSWAdd(i, step, "i.next");
  // A loop of a few iterations fixed at compile time ends soon: it need not look for a stop
  // request (its body's own loops do), which would keep LLVM from unrolling and vectorising it.
  // A block-level loop's iterations run whole regions: it looks.
  if (short_constant_range(s) && !instrumented() && !block_level)
    b_.CreateBr(head);
  else
    back_edge(head, /*spins=*/false, s.loc);
  i->addIncoming(i_next, b_.GetInsertBlock());
  loop_else(s, normal_exit, exit, block_level);
}

bool FunctionLowering::short_constant_range(const ir::Stmt &s) {
  constexpr int64_t kMaxUnpolledIterations = 4096;
  for (const ir::ExprPtr &bound : s.exprs)
    if (bound->kind != ir::ExprKind::Const)
      return false;
  const int64_t start = s.exprs[0]->int_value, stop = s.exprs[1]->int_value,
                step = s.exprs[2]->int_value;
  if (step == 0)
    return false;
  const int64_t span = step > 0 ? stop - start : start - stop;
  const int64_t magnitude = step > 0 ? step : -step;
  return span <= kMaxUnpolledIterations * magnitude;
}

void FunctionLowering::print(const ir::Stmt &s) {
  std::vector<PrintItem> items;
  for (const ir::ExprPtr &e : s.exprs) {
    if (e->kind == ir::ExprKind::String) {
      items.push_back(PrintItem{nullptr, e->type, e->name});
      continue;
    }
    if (!e->type.is_scalar())
      unsupported("printing a value of type " + e->type.str());
    if (e->type.scalar == Scalar::BF16) { // printed as the float32 it is
      items.push_back(PrintItem{bfloat16_to_float(b_, expr(*e)), Type::scalar_of(Scalar::F32), ""});
      continue;
    }
    items.push_back(PrintItem{expr(*e), e->type, ""});
  }
  for (size_t i = 0; i < items.size(); ++i) {
    auto glue = [&](size_t k) {
      return s.exprs[k]->kind == ir::ExprKind::String ? s.exprs[k]->int_value : 0;
    };
    items[i].space_before =
        i > 0 && !(glue(i) & ir::kPrintGlueBefore) && !(glue(i - 1) & ir::kPrintGlueAfter);
  }
  target_.print(emitter_, items);
}

} // namespace simt::codegen
