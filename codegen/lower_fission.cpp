// Loop fission (analysis/fission.h): a fissioned kernel's function runs a whole block, its
// block-level statements once, each region once per live thread (codegen/function_lowering.h).
#include "codegen/function_lowering.h"

namespace simt::codegen {

// Lays out the block's per-thread memory in the target's scratch memory: which threads are live,
// the locals threads keep across regions, their local arrays; every thread starts live, its
// parameters holding the arguments.
void FunctionLowering::start_fission() {
  for (int axis = 0; axis < 3; ++axis)
    block_dim_[axis] = target_.special_register(emitter_, ir::Op::BlockDim, axis);
  llvm::Value *threads =
      b_.CreateNUWMul(b_.CreateNUWMul(block_dim_[0], block_dim_[1]), block_dim_[2]);
  threads_ = b_.CreateZExt(threads, b_.getInt64Ty(), "threads");
  const llvm::DataLayout &layout = m_.module->getDataLayout();
  // Each array starts 16-byte aligned: offsets grow by multiples of 16 bytes per thread.
  std::vector<llvm::Value *> offsets;
  llvm::Value *offset = b_.getInt64(0);
  auto allocate = [&](int64_t bytes_per_thread, int64_t alignment = 16) {
    if (alignment > 16) // alignment= of a local array: the scratch is max_array_alignment-aligned
      offset = b_.CreateAnd(b_.CreateNUWAdd(offset, b_.getInt64(alignment - 1)), -alignment);
    offsets.push_back(offset);
    const int64_t rounded = (bytes_per_thread + alignment - 1) / alignment * alignment;
    offset = b_.CreateNUWAdd(offset, b_.CreateNUWMul(threads_, b_.getInt64(rounded)));
  };
  for (int axis = 0; axis < 3; ++axis) {
    current_tid_[axis] = b_.CreateAlloca(b_.getInt32Ty(), nullptr, "current.tid");
    b_.CreateStore(b_.getInt32(0), current_tid_[axis]);
  }
  if (plan_->threads_return)
    allocate(1); // alive flags
  for (size_t slot = 0; slot < f_.slots.size(); ++slot)
    if (plan_->per_thread_slots[slot])
      allocate(int64_t(layout.getTypeAllocSize(register_type(ctx(), f_.slots[slot].type))));
  for (size_t k = 0; k < local_array_bytes_.size(); ++k)
    allocate(local_array_bytes_[k], local_array_alignment(int(k)));
  // A kernel keeping nothing across regions asks for no scratch (a call per block).
  llvm::Value *scratch =
      offsets.empty() ? nullptr : fission_hooks().block_scratch(emitter_, offset);
  size_t next = 0;
  auto base = [&]() { return b_.CreateInBoundsGEP(b_.getInt8Ty(), scratch, offsets[next++]); };
  if (plan_->threads_return) {
    alive_ = base();
    b_.CreateMemSet(alive_, b_.getInt8(1), threads_, llvm::MaybeAlign(16));
  }
  per_thread_slots_.assign(f_.slots.size(), nullptr);
  for (size_t slot = 0; slot < f_.slots.size(); ++slot)
    if (plan_->per_thread_slots[slot])
      per_thread_slots_[slot] = base();
  for (size_t k = 0; k < local_array_bytes_.size(); ++k)
    per_thread_local_arrays_.push_back(base());
  if (check_variant() && !local_array_bytes_.empty())
    for_each_thread(false, [&] {
      for (size_t k = 0; k < local_array_bytes_.size(); ++k)
        local_array_event(int(k), local_array_address(int(k)));
    });
  std::vector<int> parameters;
  for (int i = 0; i < f_.num_params; ++i)
    if (plan_->per_thread_slots[size_t(i)])
      parameters.push_back(i);
  if (parameters.empty())
    return;
  std::vector<llvm::Value *> values;
  for (int i : parameters)
    values.push_back(b_.CreateLoad(register_type(ctx(), f_.slots[size_t(i)].type), slots_[i]));
  for_each_thread(false, [&] {
    for (size_t k = 0; k < parameters.size(); ++k)
      b_.CreateStore(values[k], slot_address(parameters[k]));
  });
}

llvm::Value *FunctionLowering::slot_address(int slot) {
  if (fissioned() && region_ && plan_->recomputed[size_t(slot)]) {
    // Recomputed where the region starts the thread, so every statement sees it.
    if (!region_->slots.count(slot)) {
      region_->slots[slot] = slots_[size_t(slot)];
      setup([&] {
        return b_.CreateStore(expr(*plan_->recomputed[size_t(slot)]), slots_[size_t(slot)]);
      });
    }
    return slots_[size_t(slot)];
  }
  if (!fissioned() || !per_thread_slots_[size_t(slot)])
    return slots_[size_t(slot)];
  if (!region_)
    throw std::logic_error("simt: a thread's local read outside a region");
  llvm::Value *&address = region_->slots[slot];
  if (!address)
    address = setup([&] {
      return b_.CreateInBoundsGEP(register_type(ctx(), f_.slots[size_t(slot)].type),
                                  per_thread_slots_[size_t(slot)], region_->thread,
                                  f_.slots[size_t(slot)].name);
    });
  return address;
}

llvm::Value *FunctionLowering::setup(const std::function<llvm::Value *()> &emit) {
  llvm::IRBuilderBase::InsertPointGuard guard(b_);
  llvm::Instruction *branch = region_->setup->getTerminator();
  b_.SetInsertPoint(branch);
  llvm::Value *value = emit();
  if (b_.GetInsertBlock() != region_->setup) // ir::FissionPlan::recomputed never branches
    throw std::logic_error("simt: a thread's setup code branched");
  return value;
}

// A local array's alignment: its alignment= (a power of two), at least 16 bytes.
int64_t FunctionLowering::local_array_alignment(int index) const {
  return std::max<int64_t>(16, f_.local_arrays[size_t(index)].alignment);
}

llvm::Value *FunctionLowering::local_array_address(int index) {
  if (!fissioned())
    return local_arrays_[size_t(index)];
  if (!region_)
    throw std::logic_error("simt: a thread's local array outside a region");
  llvm::Value *&address = region_->local_arrays[index];
  if (!address)
    address = setup([&] {
      const int64_t alignment = local_array_alignment(index);
      const int64_t stride =
          (local_array_bytes_[size_t(index)] + alignment - 1) / alignment * alignment;
      return b_.CreateInBoundsGEP(b_.getInt8Ty(), per_thread_local_arrays_[size_t(index)],
                                  b_.CreateNUWMul(region_->thread, b_.getInt64(stride)), "local");
    });
  return address;
}

// Three nested loops, z outermost, over the block's threads; the linear index counts along.
void FunctionLowering::for_each_thread(
    bool live_only, const std::function<void()> &body,
    std::optional<std::pair<llvm::Value *, llvm::Value *>> x_range) {
  live_only = live_only && alive_;
  llvm::BasicBlock *exit = block("threads.end");
  llvm::BasicBlock *heads[3], *latches[3];
  llvm::PHINode *counters[3];
  llvm::Value *row = b_.getInt64(0); // linear index of the current row's thread x = 0
  llvm::BasicBlock *outer = b_.GetInsertBlock();
  for (int axis = 2; axis >= 0; --axis) {
    heads[axis] = block("thread.loop");
    latches[axis] = block("thread.next");
    b_.CreateBr(heads[axis]);
    b_.SetInsertPoint(heads[axis]);
    counters[axis] = b_.CreatePHI(b_.getInt32Ty(), 2, "tid");
    const bool ranged = axis == 0 && x_range;
    counters[axis]->addIncoming(ranged ? x_range->first : b_.getInt32(0), outer);
    llvm::BasicBlock *inside = block("thread.inside");
    b_.CreateCondBr(b_.CreateICmpULT(counters[axis], ranged ? x_range->second : block_dim_[axis]),
                    inside, axis == 2 ? exit : latches[axis + 1]);
    b_.SetInsertPoint(inside);
    llvm::Value *counter = b_.CreateZExt(counters[axis], b_.getInt64Ty());
    row = axis == 0 ? b_.CreateNUWAdd(row, counter, "thread")
                    : b_.CreateNUWMul(b_.CreateNUWAdd(row, counter),
                                      b_.CreateZExt(block_dim_[axis - 1], b_.getInt64Ty()));
    outer = inside;
  }
  llvm::Value *thread = row;
  llvm::BasicBlock *start = block("thread.start");
  llvm::BasicBlock *run = block("thread.run");
  b_.CreateBr(start);
  b_.SetInsertPoint(start);
  if (live_only) {
    llvm::Value *alive =
        b_.CreateLoad(b_.getInt8Ty(), b_.CreateInBoundsGEP(b_.getInt8Ty(), alive_, thread));
    b_.CreateCondBr(b_.CreateICmpNE(alive, b_.getInt8(0)), run, latches[0]);
  } else {
    b_.CreateBr(run);
  }
  b_.SetInsertPoint(run);
  // The addresses of the thread's copies of locals go where its index is computed, which
  // dominates every statement of the region (slot_address).
  if (!llvm::isa<llvm::Instruction>(thread))
    throw std::logic_error("simt: the thread index is not an instruction");
  for (int axis = 0; axis < 3; ++axis)
    b_.CreateStore(counters[axis], current_tid_[axis]);
  if (check_variant()) // the checkers see which thread each access is of
    fission_hooks().enter_thread(emitter_, {counters[0], counters[1], counters[2]});
  std::optional<Region> outer_region = std::move(region_);
  std::vector<Loop> outer_loops = std::move(loops_);
  loops_.clear();
  region_ = Region{thread,     {counters[0], counters[1], counters[2]},
                   latches[0], llvm::cast<llvm::Instruction>(thread)->getParent(),
                   {},         {}};
  body();
  if (!terminated())
    b_.CreateBr(latches[0]);
  region_ = std::move(outer_region);
  loops_ = std::move(outer_loops);
  for (int axis = 0; axis < 3; ++axis) {
    b_.SetInsertPoint(latches[axis]);
    counters[axis]->addIncoming(b_.CreateNUWAdd(counters[axis], b_.getInt32(1)), latches[axis]);
    b_.CreateBr(heads[axis]);
  }
  b_.SetInsertPoint(exit);
}

void FunctionLowering::region(std::span<const ir::Stmt> stmts) {
  // Assignments of recomputed locals before an if change nothing its guard could skip.
  size_t prefix = 0;
  while (prefix < stmts.size() && stmts[prefix].kind == ir::StmtKind::Assign &&
         plan_->recomputed[size_t(stmts[prefix].slot)])
    ++prefix;
  auto range = guarded_range(stmts.subspan(prefix));
  for_each_thread(
      true,
      [&] {
        if (!range) {
          statements(stmts);
          return;
        }
        // The threads outside the range skip the if: inside it, its first condition holds.
        statements(stmts.first(prefix));
        const ir::Stmt &guard = stmts[prefix];
        if (scope_)
          b_.SetCurrentDebugLocation(m_.debug_info->location(scope_, guard.loc));
        const ir::Expr &cond = *guard.exprs[0];
        llvm::BasicBlock *skip = block("guard.skip");
        for (size_t k = 1; cond.kind == ir::ExprKind::And && k < cond.args.size(); ++k) {
          llvm::BasicBlock *next = block("guard.next");
          b_.CreateCondBr(expr(*cond.args[k]), next, skip);
          b_.SetInsertPoint(next);
        }
        statements(guard.body);
        if (!terminated())
          b_.CreateBr(skip);
        b_.SetInsertPoint(skip);
      },
      range);
}

void FunctionLowering::block_statements(const std::vector<ir::Stmt> &stmts) {
  size_t next = 0;
  while (next < stmts.size()) {
    if (terminated())
      start_dead_block();
    if (plan_->block_level.count(&stmts[next])) {
      block_statement(stmts[next++]);
      continue;
    }
    const size_t first = next;
    while (next < stmts.size() && !plan_->block_level.count(&stmts[next]))
      ++next;
    region(std::span(stmts).subspan(first, next - first));
  }
}

void FunctionLowering::block_statement(const ir::Stmt &s) {
  if (scope_)
    b_.SetCurrentDebugLocation(m_.debug_info->location(scope_, s.loc));
  switch (s.kind) {
  case ir::StmtKind::SyncThreads: // every thread has run the regions before it
    if (check_variant())
      fission_hooks().fissioned_barrier(emitter_, loc(s.loc));
    return;
  case ir::StmtKind::If:
    block_if(s);
    return;
  case ir::StmtKind::While:
    while_statement(s, /*block_level=*/true);
    return;
  case ir::StmtKind::ForRange:
    for_range(s, /*block_level=*/true);
    return;
  case ir::StmtKind::Break:
  case ir::StmtKind::Continue:
    b_.CreateBr(s.kind == ir::StmtKind::Break ? loops_.back().exit : loops_.back().next);
    return;
  case ir::StmtKind::Return: // every live thread returns: the block is done
    if (!s.exprs.empty()) {
      first_live_thread();
      expr(*s.exprs[0]);
    }
    return_from_function(false);
    return;
  default:
    break;
  }
  for (const ir::ExprPtr &e : s.exprs)
    reductions(*e);
  if (s.kind == ir::StmtKind::Assign && plan_->block_level_slots[size_t(s.slot)]) {
    first_live_thread();
    b_.CreateStore(expr(*s.exprs[0]), slots_[size_t(s.slot)]);
  } else {
    region(std::span(&s, 1));
  }
  for (const ir::ExprPtr &e : s.exprs)
    block_reductions_.erase(e.get());
}

void FunctionLowering::block_if(const ir::Stmt &s) {
  llvm::Value *cond = control_values(s.exprs, /*block_level=*/true)[0];
  llvm::BasicBlock *then_block = block("block.then");
  llvm::BasicBlock *else_block = block("block.else");
  llvm::BasicBlock *merge = block("block.endif");
  b_.CreateCondBr(cond, then_block, else_block);
  for (auto [branch, stmts] : {std::pair{then_block, &s.body}, std::pair{else_block, &s.orelse}}) {
    b_.SetInsertPoint(branch);
    block_statements(*stmts);
    if (!terminated())
      b_.CreateBr(merge);
  }
  b_.SetInsertPoint(merge);
}

void FunctionLowering::reductions(const ir::Expr &e) {
  if (!ir::is_barrier_reduction(e)) {
    for (const ir::ExprPtr &arg : e.args)
      reductions(*arg);
    return;
  }
  // Counts the live threads and those whose predicate holds (in registers, once SROA is done).
  llvm::Value *holds, *live;
  {
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    b_.SetInsertPoint(&fn_->getEntryBlock(), fn_->getEntryBlock().getFirstInsertionPt());
    holds = b_.CreateAlloca(b_.getInt64Ty(), nullptr, "holds");
    live = b_.CreateAlloca(b_.getInt64Ty(), nullptr, "live");
  }
  b_.CreateStore(b_.getInt64(0), holds);
  b_.CreateStore(b_.getInt64(0), live);
  for_each_thread(true, [&] {
    llvm::Value *predicate = b_.CreateICmpNE(expr(*e.args[0]), b_.getInt32(0));
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), holds),
                                b_.CreateZExt(predicate, b_.getInt64Ty())),
                   holds);
    b_.CreateStore(b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), live), b_.getInt64(1)), live);
  });
  if (check_variant())
    fission_hooks().fissioned_barrier(emitter_, loc(e.loc));
  llvm::Value *count = b_.CreateLoad(b_.getInt64Ty(), holds);
  llvm::Value *result;
  if (e.intrinsic == ir::Intrinsic::SyncthreadsCount)
    result = b_.CreateTrunc(count, b_.getInt32Ty());
  else if (e.intrinsic == ir::Intrinsic::SyncthreadsAnd)
    result = b_.CreateZExt(b_.CreateICmpEQ(count, b_.CreateLoad(b_.getInt64Ty(), live)),
                           b_.getInt32Ty());
  else
    result = b_.CreateZExt(b_.CreateICmpNE(count, b_.getInt64(0)), b_.getInt32Ty());
  block_reductions_[&e] = result;
}

void FunctionLowering::first_live_thread() {
  if (!alive_) { // every thread is live: thread 0 is the first
    for (int axis = 0; axis < 3; ++axis)
      b_.CreateStore(b_.getInt32(0), current_tid_[axis]);
    if (check_variant())
      announce_thread();
    return;
  }
  llvm::BasicBlock *before = b_.GetInsertBlock();
  llvm::BasicBlock *scan = block("first.live");
  llvm::BasicBlock *test = block("first.live.test");
  llvm::BasicBlock *none = block("block.done");
  llvm::BasicBlock *found = block("first.live.found");
  b_.CreateBr(scan);
  b_.SetInsertPoint(scan);
  llvm::PHINode *thread = b_.CreatePHI(b_.getInt64Ty(), 2, "thread");
  thread->addIncoming(b_.getInt64(0), before);
  b_.CreateCondBr(b_.CreateICmpULT(thread, threads_), test, none, likely(ctx()));
  b_.SetInsertPoint(test);
  llvm::Value *alive =
      b_.CreateLoad(b_.getInt8Ty(), b_.CreateInBoundsGEP(b_.getInt8Ty(), alive_, thread));
  thread->addIncoming(b_.CreateNUWAdd(thread, b_.getInt64(1)), test);
  b_.CreateCondBr(b_.CreateICmpNE(alive, b_.getInt8(0)), found, scan, likely(ctx()));
  b_.SetInsertPoint(none);
  return_from_function(false);
  b_.SetInsertPoint(found);
  llvm::Value *x_extent = b_.CreateZExt(block_dim_[0], b_.getInt64Ty());
  llvm::Value *y_extent = b_.CreateZExt(block_dim_[1], b_.getInt64Ty());
  llvm::Value *x = b_.CreateURem(thread, x_extent);
  llvm::Value *y = b_.CreateURem(b_.CreateUDiv(thread, x_extent), y_extent);
  llvm::Value *z = b_.CreateUDiv(thread, b_.CreateNUWMul(x_extent, y_extent));
  b_.CreateStore(b_.CreateTrunc(x, b_.getInt32Ty()), current_tid_[0]);
  b_.CreateStore(b_.CreateTrunc(y, b_.getInt32Ty()), current_tid_[1]);
  b_.CreateStore(b_.CreateTrunc(z, b_.getInt32Ty()), current_tid_[2]);
  if (check_variant())
    announce_thread();
}

void FunctionLowering::announce_thread() {
  if (!fissioned())
    return;
  llvm::Value *tid[3];
  for (int axis = 0; axis < 3; ++axis)
    tid[axis] = b_.CreateLoad(b_.getInt32Ty(), current_tid_[axis]);
  fission_hooks().enter_thread(emitter_, tid);
}

bool FunctionLowering::thread_x_plus(const ir::Expr &e,
                                     std::vector<const ir::Expr *> &terms) const {
  switch (e.kind) {
  case ir::ExprKind::Special:
    return e.op == ir::Op::ThreadIdx && e.index == 0;
  case ir::ExprKind::Cast: // to an integer as wide or wider, so no value changes
    return is_integer(e.type.scalar) && is_integer(e.args[0]->type.scalar) &&
           byte_size(e.type.scalar) >= std::max(4, byte_size(e.args[0]->type.scalar)) &&
           (scalar_is_signed(e.args[0]->type.scalar) || byte_size(e.type.scalar) > 4) &&
           thread_x_plus(*e.args[0], terms);
  case ir::ExprKind::Local:
    return plan_->recomputed[size_t(e.index)] &&
           thread_x_plus(*plan_->recomputed[size_t(e.index)], terms);
  case ir::ExprKind::Binary:
    if (e.op != ir::Op::Add || !(e.no_wrap || e.type.scalar == Scalar::I64))
      return false;
    for (size_t side = 0; side < 2; ++side) {
      const ir::Expr &other = *e.args[1 - side];
      if (ir::is_block_uniform(other, plan_->block_level_slots) && !m_.expr_may_fault(other) &&
          thread_x_plus(*e.args[side], terms)) {
        terms.push_back(&other);
        return true;
      }
    }
    return false;
  default:
    return false;
  }
}

std::optional<std::pair<llvm::Value *, llvm::Value *>>
FunctionLowering::guarded_range(std::span<const ir::Stmt> stmts) {
  if (stmts.size() != 1 || stmts[0].kind != ir::StmtKind::If || !stmts[0].orelse.empty() ||
      !stmts[0].exprs[0]->type.is_scalar() || stmts[0].exprs[0]->type.scalar != Scalar::Bool)
    return std::nullopt;
  const ir::Expr *cond = stmts[0].exprs[0].get();
  if (cond->kind == ir::ExprKind::And)
    cond = cond->args[0].get(); // the first conjunct bounds the others' threads too
  if (cond->kind != ir::ExprKind::Compare || !cond->args[0]->type.is_scalar() ||
      !is_integer(cond->args[0]->type.scalar))
    return std::nullopt;
  ir::Op op = cond->op;
  std::vector<const ir::Expr *> terms;
  const ir::Expr *bound = cond->args[1].get();
  if (!thread_x_plus(*cond->args[0], terms)) {
    terms.clear();
    if (!thread_x_plus(*cond->args[1], terms))
      return std::nullopt;
    bound = cond->args[0].get();
    static const std::map<ir::Op, ir::Op> swapped = {{ir::Op::Lt, ir::Op::Gt},
                                                     {ir::Op::Le, ir::Op::Ge},
                                                     {ir::Op::Gt, ir::Op::Lt},
                                                     {ir::Op::Ge, ir::Op::Le},
                                                     {ir::Op::Eq, ir::Op::Eq}};
    auto found = swapped.find(op);
    if (found == swapped.end())
      return std::nullopt;
    op = found->second;
  }
  if (op == ir::Op::Ne || !ir::is_block_uniform(*bound, plan_->block_level_slots) ||
      m_.expr_may_fault(*bound))
    return std::nullopt;
  auto widened = [&](const ir::Expr &e) {
    llvm::Value *v = expr(e);
    return scalar_is_signed(e.type.scalar) ? b_.CreateSExtOrTrunc(v, b_.getInt64Ty())
                                           : b_.CreateZExtOrTrunc(v, b_.getInt64Ty());
  };
  // threadIdx.x + terms op bound: threadIdx.x op bound - terms (the terms are block indices and
  // extents, far from overflowing), as a range of threadIdx.x clamped to [0, blockDim.x].
  llvm::Value *value = widened(*bound);
  for (const ir::Expr *term : terms)
    value = b_.CreateSub(value, widened(*term));
  llvm::Value *extent = b_.CreateZExt(block_dim_[0], b_.getInt64Ty());
  auto clamp = [&](llvm::Value *v) {
    llvm::Value *low = b_.CreateSelect(b_.CreateICmpSLT(v, b_.getInt64(0)), b_.getInt64(0), v);
    return b_.CreateTrunc(b_.CreateSelect(b_.CreateICmpSGT(low, extent), extent, low),
                          b_.getInt32Ty());
  };
  // bound + 1 cannot overflow usefully: a bound of INT64_MAX leaves every thread in range.
  llvm::Value *after = b_.CreateSelect(b_.CreateICmpEQ(value, b_.getInt64(INT64_MAX)), value,
                                       b_.CreateAdd(value, b_.getInt64(1)));
  switch (op) {
  case ir::Op::Lt:
    return std::pair{b_.getInt32(0), clamp(value)};
  case ir::Op::Le:
    return std::pair{b_.getInt32(0), clamp(after)};
  case ir::Op::Gt:
    return std::pair{clamp(after), block_dim_[0]};
  case ir::Op::Ge:
    return std::pair{clamp(value), block_dim_[0]};
  default: // Eq
    return std::pair{clamp(value), clamp(after)};
  }
}

} // namespace simt::codegen
