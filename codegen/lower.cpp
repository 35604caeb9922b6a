#include "codegen/lower.h"

#include "codegen/function_lowering.h"
#include "ir/walk.h"

namespace simt::codegen {

llvm::Value *Target::local_memory(Emitter &e, int64_t bytes, int64_t alignment) {
  // Named as Numba names a local array given alignment= (its inspect_llvm shows the alignment).
  llvm::AllocaInst *memory =
      e.b.CreateAlloca(e.b.getInt8Ty(), e.b.getInt64(bytes), alignment ? "_cudapy_lmem" : "local");
  memory->setAlignment(llvm::Align(std::max<int64_t>(16, alignment)));
  return memory;
}

llvm::Value *Target::const_memory(llvm::Module &module, const ir::ConstArrayDecl &decl,
                                  const std::string &name) {
  llvm::Constant *data = llvm::ConstantDataArray::get(module.getContext(), decl.data);
  auto *global = new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                                          llvm::GlobalValue::PrivateLinkage, data, name);
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  global->setAlignment(llvm::Align(16));
  return global;
}

void Target::fence(Emitter &e, FenceScope) {
  e.b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
}

void Target::nanosleep(Emitter &, llvm::Value *) {}

llvm::Value *Target::out_of_bounds_access(Emitter &, llvm::Value *, llvm::Value *, llvm::Value *,
                                          int32_t, int64_t, const std::string &) {
  return nullptr;
}

llvm::Value *square_and_multiply(llvm::IRBuilder<> &b, llvm::Value *base, llvm::Value *exponent) {
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  llvm::LLVMContext &ctx = fn->getContext();
  llvm::Type *t = base->getType(), *it = exponent->getType();
  const bool real = t->isFloatingPointTy();
  llvm::Value *unit = real ? llvm::ConstantFP::get(t, 1.0) : llvm::ConstantInt::get(t, 1);
  llvm::Value *zero = llvm::ConstantInt::get(it, 0), *one = llvm::ConstantInt::get(it, 1);
  auto multiply = [&](llvm::Value *x, llvm::Value *y) {
    return real ? b.CreateFMul(x, y) : b.CreateMul(x, y);
  };
  llvm::BasicBlock *entry = b.GetInsertBlock();
  auto *loop = llvm::BasicBlock::Create(ctx, "pow.loop", fn);
  auto *done = llvm::BasicBlock::Create(ctx, "pow.done", fn);
  b.CreateCondBr(b.CreateICmpEQ(exponent, zero), done, loop);
  b.SetInsertPoint(loop);
  llvm::PHINode *r = b.CreatePHI(t, 2), *a = b.CreatePHI(t, 2), *e = b.CreatePHI(it, 2);
  llvm::Value *odd = b.CreateICmpNE(b.CreateAnd(e, one), zero);
  llvm::Value *r_next = b.CreateSelect(odd, multiply(r, a), r);
  llvm::Value *e_next = b.CreateLShr(e, one);
  llvm::Value *a_next = multiply(a, a);
  r->addIncoming(unit, entry);
  a->addIncoming(base, entry);
  e->addIncoming(exponent, entry);
  r->addIncoming(r_next, loop);
  a->addIncoming(a_next, loop);
  e->addIncoming(e_next, loop);
  b.CreateCondBr(b.CreateICmpEQ(e_next, zero), done, loop);
  b.SetInsertPoint(done);
  llvm::PHINode *result = b.CreatePHI(t, 2);
  result->addIncoming(unit, entry);
  result->addIncoming(r_next, loop);
  return result;
}

// x ** y for integers of one type by repeated squaring; negative exponents (signed types) give
// what Python's int(x ** y) would: 1 for x == 1, +-1 for x == -1, 0 otherwise (x == 0 is
// checked by the caller, it raises).
llvm::Function *ModuleLowering::int_pow_helper(Scalar s) {
  auto found = int_pow_helpers.find(s);
  if (found != int_pow_helpers.end())
    return found->second;
  llvm::LLVMContext &ctx = module->getContext();
  llvm::Type *t = register_type(ctx, Type::scalar_of(s));
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(t, {t, t}, false),
                                    llvm::GlobalValue::InternalLinkage,
                                    prefix + "ipow." + std::to_string(int(s)), *module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->addFnAttr(llvm::Attribute::AlwaysInline);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Value *base = fn->getArg(0), *exp = fn->getArg(1);
  llvm::ConstantInt *zero = llvm::ConstantInt::get(llvm::cast<llvm::IntegerType>(t), 0);
  llvm::ConstantInt *one = llvm::ConstantInt::get(llvm::cast<llvm::IntegerType>(t), 1);
  if (scalar_is_signed(s)) {
    auto *negative = llvm::BasicBlock::Create(ctx, "negative", fn);
    auto *positive = llvm::BasicBlock::Create(ctx, "positive", fn);
    b.CreateCondBr(b.CreateICmpSLT(exp, zero), negative, positive);
    b.SetInsertPoint(negative);
    llvm::Value *minus_one = llvm::ConstantInt::getSigned(t, -1);
    llvm::Value *odd = b.CreateICmpNE(b.CreateAnd(exp, one), zero);
    llvm::Value *result = b.CreateSelect(
        b.CreateICmpEQ(base, one), one,
        b.CreateSelect(b.CreateICmpEQ(base, minus_one), b.CreateSelect(odd, minus_one, one), zero));
    b.CreateRet(result);
    b.SetInsertPoint(positive);
  }
  b.CreateRet(square_and_multiply(b, base, exp));
  int_pow_helpers[s] = fn;
  return fn;
}

FunctionLowering::FunctionLowering(ModuleLowering &m, int index)
    : m_(m), index_(index), f_(m.ir.functions[index]), target_(m.target), fn_(m.functions[index]),
      b_(fn_->getContext()), emitter_{b_, nullptr} {
  if (f_.is_kernel && m.fission) {
    if (!m.fission->fissionable())
      throw std::logic_error("simt: fissioning a kernel with " + m.fission->obstacle);
    plan_ = m.fission;
  }
  select_form_checks_ = ir::statement_count(f_.body) >= kLargeFunctionStatements;
}

int32_t FunctionLowering::loc(ir::Loc where) { return m_.location(index_, where); }

void FunctionLowering::run() {
  llvm::BasicBlock *entry = block("entry");
  b_.SetInsertPoint(entry);
  if (m_.ir.options.fastmath)
    b_.setFastMathFlags(llvm::FastMathFlags::getFast());
  if (m_.debug_info) {
    scope_ = m_.debug_info->function(*fn_, f_);
    b_.SetCurrentDebugLocation(m_.debug_info->location(scope_, ir::Loc{f_.first_line, 0}));
  }
  unsigned first_param = 0;
  if (target_.environment_type(ctx())) {
    emitter_.env = fn_->getArg(0);
    emitter_.env->setName("env");
    first_param = 1;
  }
  for (int i = 0; i < f_.num_params; ++i)
    fn_->getArg(first_param + i)->setName(f_.slots[i].name);
  allocate_slots();
  for (const ir::LocalArrayDecl &decl : f_.local_arrays) {
    local_array_bytes_.push_back(decl.elements.bytes(decl.shape));
    if (!fissioned())
      local_arrays_.push_back(
          target_.local_memory(emitter_, local_array_bytes_.back(), decl.alignment));
  }
  if (check_variant() && !fissioned()) // a fissioned kernel's: in start_fission
    for (size_t i = 0; i < f_.local_arrays.size(); ++i)
      local_array_event(int(i), local_arrays_[i]);
  for (int i = 0; i < f_.num_params; ++i) {
    b_.CreateStore(fn_->getArg(first_param + i), slots_[i]);
  }
  if (instrumented())
    instrumentation_hooks().enter_function(emitter_, index_, frame_);

  llvm::BasicBlock *body = block("body");
  b_.CreateBr(body);
  b_.SetInsertPoint(body);
  if (fissioned()) {
    start_fission();
    block_statements(f_.body);
  } else {
    statements(f_.body);
  }
  if (!terminated())
    return_from_function(false);
  if (bail_) {
    b_.SetInsertPoint(bail_);
    return_from_function(true);
  }
  llvm::removeUnreachableBlocks(*fn_);
}

InstrumentationHooks &FunctionLowering::instrumentation_hooks() {
  InstrumentationHooks *hooks = target_.instrumentation();
  if (hooks == nullptr)
    throw std::logic_error("simt: instrumented code for a target without instrumentation hooks");
  return *hooks;
}

FissionHooks &FunctionLowering::fission_hooks() {
  FissionHooks *hooks = target_.fission_hooks();
  if (hooks == nullptr)
    throw std::logic_error("simt: a fissioned kernel for a target without fission hooks");
  return *hooks;
}

bool FunctionLowering::instrumented() const {
  return m_.ir.options.instrumentation == Instrumentation::Debug;
}

bool FunctionLowering::reports_accesses() const {
  return m_.ir.options.instrumentation != Instrumentation::None;
}

bool FunctionLowering::check_variant() const {
  return m_.ir.options.instrumentation == Instrumentation::Check;
}

void FunctionLowering::memory_event(AccessKind kind, llvm::Value *address, uint32_t size,
                                    int64_t value, ir::Loc where) {
  instrumentation_hooks().memory_access(emitter_, address, size, 1, kind, MemSpace::Local,
                                        b_.getInt64(value), loc(where));
  check_status();
}

// The check variant tells the checkers where each call's local array `index` is.
void FunctionLowering::local_array_event(int index, llvm::Value *address) {
  memory_event(AccessKind::LocalArray, address, uint32_t(local_array_bytes_[size_t(index)]),
               int64_t(index_) << 32 | int64_t(index), ir::Loc{f_.first_line, 0});
}

void FunctionLowering::fence(Target::FenceScope scope, ir::Loc where) {
  target_.fence(emitter_, scope);
  if (check_variant())
    memory_event(AccessKind::Fence, llvm::ConstantPointerNull::get(b_.getPtrTy()), 0,
                 int64_t(scope), where);
}

// One alloca per slot (SROA turns them into registers); instrumented code puts them in one frame
// whose address escapes to the runtime, so every local is in memory at every hook.
void FunctionLowering::allocate_slots() {
  std::vector<llvm::Type *> types;
  for (const ir::Slot &slot : f_.slots) {
    if (slot.type.is_none())
      unsupported("a variable of type none ('" + slot.name + "')");
    types.push_back(register_type(ctx(), slot.type));
  }
  if (!instrumented()) {
    for (size_t i = 0; i < types.size(); ++i)
      slots_.push_back(b_.CreateAlloca(types[i], nullptr, f_.slots[i].name));
    return;
  }
  auto *frame_type = llvm::StructType::get(ctx(), types);
  llvm::AllocaInst *frame_memory = b_.CreateAlloca(frame_type, nullptr, "frame");
  frame_ = frame_memory;
  const llvm::StructLayout *layout = m_.module->getDataLayout().getStructLayout(frame_type);
  // Zeroed, so that the runtime reads a local not assigned yet as zeros (an array: no data),
  // never as what the stack held before.
  b_.CreateMemSet(frame_memory, b_.getInt8(0), b_.getInt64(layout->getSizeInBytes()),
                  frame_memory->getAlign());
  FrameLayout &frame = m_.frames[size_t(index_)];
  frame = FrameLayout{f_.python_name, f_.file, f_.first_line, f_.num_params, {}};
  for (size_t i = 0; i < types.size(); ++i) {
    slots_.push_back(b_.CreateStructGEP(frame_type, frame_, unsigned(i), f_.slots[i].name));
    const ir::Slot &slot = f_.slots[i];
    frame.slots.push_back(FrameSlot{python_name(slot.name), slot.type,
                                    layout->getElementOffset(unsigned(i)), slot.first_line,
                                    slot.last_line});
  }
}

void FunctionLowering::statement_hook(ir::Loc where) {
  if (!instrumented())
    return;
  instrumentation_hooks().statement(emitter_, loc(where));
  check_status();
}

void FunctionLowering::access_hook(llvm::Value *address, const Type &array, Scalar scalar,
                                   uint32_t size, AccessKind kind, llvm::Value *value,
                                   ir::Loc where) {
  if (!reports_accesses())
    return;
  llvm::Value *bits = b_.getInt64(0);
  const unsigned width = unsigned(byte_size(scalar)) * 8;
  if (value != nullptr &&
      (value->getType()->isIntegerTy() || value->getType()->isFloatingPointTy()) && width <= 64)
    bits = b_.CreateZExt(b_.CreateBitCast(value, b_.getIntNTy(width)), b_.getInt64Ty());
  // A GPU faults on an access that is not aligned to its scalar (a complex to its parts'); the
  // checkers report it. A record copied whole has no one scalar: byte aligned.
  const uint32_t align =
      scalar == Scalar::U8 && size != 1 ? 1 : uint32_t(is_complex(scalar) ? width / 16 : width / 8);
  instrumentation_hooks().memory_access(emitter_, address, size, align, kind, array.space, bits,
                                        loc(where));
  check_status();
}

llvm::Value *FunctionLowering::load(llvm::Value *address, const Type &array, Scalar scalar,
                                    llvm::Align align, ir::Loc where) {
  access_hook(address, array, scalar, uint32_t(byte_size(scalar)), AccessKind::Load, nullptr,
              where);
  return memory_to_register(b_, b_.CreateAlignedLoad(memory_type(ctx(), scalar), address, align),
                            scalar);
}

void FunctionLowering::store(llvm::Value *address, const Type &array, Scalar scalar,
                             llvm::Value *value, llvm::Align align, ir::Loc where) {
  access_hook(address, array, scalar, uint32_t(byte_size(scalar)), AccessKind::Store, value, where);
  b_.CreateAlignedStore(value, address, align);
}

void FunctionLowering::copy_record(llvm::Value *target, llvm::Value *source, int64_t bytes,
                                   const Type &array, ir::Loc where) {
  access_hook(target, array, Scalar::U8, uint32_t(bytes), AccessKind::Store, nullptr, where);
  b_.CreateMemMove(target, llvm::Align(1), source, llvm::Align(1), bytes);
}

llvm::BasicBlock *FunctionLowering::bail() {
  if (!bail_)
    bail_ = block("bail");
  return bail_;
}

FunctionLowering::Fault &FunctionLowering::index_fault() {
  if (index_fault_.full()) {
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    index_fault_ = Fault{block("index.error"), {}, 0};
    b_.SetInsertPoint(index_fault_.block);
    std::vector<llvm::PHINode *> &operands = index_fault_.operands;
    operands = {b_.CreatePHI(b_.getInt64Ty(), 2, "fault.index"),
                b_.CreatePHI(b_.getInt32Ty(), 2, "fault.axis"),
                b_.CreatePHI(b_.getInt64Ty(), 2, "fault.size"),
                b_.CreatePHI(b_.getInt32Ty(), 2, "fault.loc")};
    announce_thread(); // the report names the faulting thread
    target_.index_error(emitter_, operands[0], operands[1], operands[2], operands[3]);
    b_.CreateBr(bail());
  }
  return index_fault_;
}

FunctionLowering::Fault &FunctionLowering::raise_fault(const std::string &exception,
                                                       const std::string &message) {
  Fault &fault = raise_faults_[{exception, message}];
  if (fault.full()) {
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    fault = Fault{block("raise"), {}, 0};
    b_.SetInsertPoint(fault.block);
    fault.operands.push_back(b_.CreatePHI(b_.getInt32Ty(), 2, "fault.loc"));
    announce_thread(); // the report names the faulting thread
    target_.raise(emitter_, exception, message, fault.operands[0]);
    b_.CreateBr(bail());
  }
  return fault;
}

void FunctionLowering::enter_fault(Fault &fault, llvm::ArrayRef<llvm::Value *> operands) {
  ++fault.sites;
  for (size_t i = 0; i < operands.size(); ++i)
    fault.operands[i]->addIncoming(operands[i], b_.GetInsertBlock());
  b_.CreateBr(fault.block);
}

void FunctionLowering::fault_if(llvm::Value *failed, Fault &fault,
                                llvm::ArrayRef<llvm::Value *> operands) {
  ++fault.sites;
  for (size_t i = 0; i < operands.size(); ++i)
    fault.operands[i]->addIncoming(operands[i], b_.GetInsertBlock());
  llvm::BasicBlock *next = block("ok");
  b_.CreateCondBr(failed, fault.block, next, unlikely(ctx()));
  b_.SetInsertPoint(next);
}

// A kernel returns whether its thread stopped early; a device function's value is unused when it
// stopped (its caller checks the status), and the typer guarantees a value on normal paths.
void FunctionLowering::return_from_function(bool stopped) {
  if (instrumented() && !stopped)
    instrumentation_hooks().leave_function(emitter_);
  if (f_.is_kernel)
    b_.CreateRet(b_.getInt1(stopped));
  else if (fn_->getReturnType()->isVoidTy())
    b_.CreateRetVoid();
  else
    b_.CreateRet(llvm::PoisonValue::get(fn_->getReturnType()));
}

void FunctionLowering::check_status() {
  llvm::BasicBlock *next = block("running");
  b_.CreateCondBr(target_.must_return(emitter_), bail(), next, unlikely(ctx()));
  b_.SetInsertPoint(next);
}

void FunctionLowering::raise_if(llvm::Value *failed, const std::string &exception,
                                const std::string &message, ir::Loc where) {
  fault_if(failed, raise_fault(exception, message), {b_.getInt32(loc(where))});
}

LoweredModule lower(const ir::Module &module, Target &target, llvm::LLVMContext &ctx,
                    const std::string &prefix) {
  if (module.functions.empty())
    throw std::logic_error("simt: a module without functions");
  return ModuleLowering(module, target, ctx, prefix).run();
}

std::string kernel_symbol(const ir::Module &module, const std::string &prefix) {
  return prefix + symbol_name(module.kernel().name);
}

} // namespace simt::codegen
