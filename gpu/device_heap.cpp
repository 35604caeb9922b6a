#include "gpu/device_heap.h"

namespace simt::gpu {

namespace {

// Each block starts with the list's link (16 bytes keep the array 16-byte aligned).
constexpr int64_t link_bytes = 16;
constexpr const char *list_name = "simt_kernel_arrays";
constexpr unsigned global_space = 1;

llvm::GlobalVariable *array_list(llvm::Module &module) {
  if (llvm::GlobalVariable *list = module.getNamedGlobal(list_name))
    return list;
  llvm::Type *i64 = llvm::Type::getInt64Ty(module.getContext());
  return new llvm::GlobalVariable(module, i64, false, llvm::GlobalValue::InternalLinkage,
                                  llvm::ConstantInt::get(i64, 0), list_name, nullptr,
                                  llvm::GlobalValue::NotThreadLocal, global_space);
}

llvm::FunctionCallee libc(llvm::Module &module, const char *name, llvm::Type *result,
                          llvm::ArrayRef<llvm::Type *> params) {
  return module.getOrInsertFunction(name, llvm::FunctionType::get(result, params, false));
}

} // namespace

std::string free_arrays_entry(const std::string &entry) { return entry + "__simt_free_arrays"; }

llvm::Value *device_allocate(llvm::IRBuilder<> &b, llvm::Value *bytes, bool zeroed) {
  llvm::Module &module = *b.GetInsertBlock()->getModule();
  llvm::LLVMContext &ctx = module.getContext();
  // An overflowed size asks for 2**64 - 1 bytes, which malloc refuses.
  llvm::Value *size = b.CreateSelect(b.CreateICmpSLT(bytes, b.getInt64(0)), b.getInt64(-1),
                                     b.CreateAdd(bytes, b.getInt64(link_bytes)));
  llvm::Value *block =
      b.CreateCall(libc(module, "malloc", b.getPtrTy(), {b.getInt64Ty()}), {size}, "block");
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  llvm::BasicBlock *from = b.GetInsertBlock();
  auto *given = llvm::BasicBlock::Create(ctx, "alloc.given", fn);
  auto *done = llvm::BasicBlock::Create(ctx, "alloc.done", fn);
  b.CreateCondBr(b.CreateIsNull(block), done, given);
  b.SetInsertPoint(given);
  // Pushed onto the list: the freeing kernel runs after every thread has finished.
  llvm::Value *previous = b.CreateAtomicRMW(llvm::AtomicRMWInst::Xchg, array_list(module),
                                            b.CreatePtrToInt(block, b.getInt64Ty()),
                                            llvm::MaybeAlign(8), llvm::AtomicOrdering::Monotonic);
  b.CreateAlignedStore(previous, block, llvm::Align(8));
  llvm::Value *data = b.CreateGEP(b.getInt8Ty(), block, b.getInt64(link_bytes));
  if (zeroed)
    b.CreateMemSet(data, b.getInt8(0), bytes, llvm::MaybeAlign(16));
  b.CreateBr(done);
  b.SetInsertPoint(done);
  llvm::PHINode *result = b.CreatePHI(b.getPtrTy(), 2, "array.data");
  result->addIncoming(llvm::ConstantPointerNull::get(b.getPtrTy()), from);
  result->addIncoming(data, given);
  return result;
}

bool emit_free_arrays_kernel(llvm::Module &module, const std::string &entry) {
  llvm::GlobalVariable *list = module.getNamedGlobal(list_name);
  if (!list)
    return false;
  llvm::LLVMContext &ctx = module.getContext();
  auto *fn =
      llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
                             llvm::GlobalValue::ExternalLinkage, free_arrays_entry(entry), module);
  auto *start = llvm::BasicBlock::Create(ctx, "entry", fn);
  auto *loop = llvm::BasicBlock::Create(ctx, "free", fn);
  auto *done = llvm::BasicBlock::Create(ctx, "done", fn);
  llvm::IRBuilder<> b(start);
  llvm::Value *head = b.CreateAlignedLoad(b.getInt64Ty(), list, llvm::Align(8));
  b.CreateAlignedStore(b.getInt64(0), list, llvm::Align(8));
  b.CreateCondBr(b.CreateICmpEQ(head, b.getInt64(0)), done, loop);
  b.SetInsertPoint(loop);
  llvm::PHINode *link = b.CreatePHI(b.getInt64Ty(), 2);
  link->addIncoming(head, start);
  llvm::Value *block = b.CreateIntToPtr(link, b.getPtrTy());
  llvm::Value *next = b.CreateAlignedLoad(b.getInt64Ty(), block, llvm::Align(8));
  b.CreateCall(libc(module, "free", b.getVoidTy(), {b.getPtrTy()}), {block});
  link->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpEQ(next, b.getInt64(0)), done, loop);
  b.SetInsertPoint(done);
  b.CreateRetVoid();
  llvm::Metadata *annotation[] = {llvm::ValueAsMetadata::get(fn),
                                  llvm::MDString::get(ctx, "kernel"),
                                  llvm::ConstantAsMetadata::get(b.getInt32(1))};
  module.getOrInsertNamedMetadata("nvvm.annotations")
      ->addOperand(llvm::MDNode::get(ctx, annotation));
  return true;
}

} // namespace simt::gpu
