#include "codegen/libdevice_call.h"

#include <llvm/IR/Module.h>
#include <llvm/Support/ModRef.h>

#include <stdexcept>

namespace simt::codegen {

llvm::Type *libdevice_llvm_type(llvm::LLVMContext &ctx, ir::LibdeviceType type) {
  switch (type) {
  case ir::LibdeviceType::Void:
    return llvm::Type::getVoidTy(ctx);
  case ir::LibdeviceType::I16:
    return llvm::Type::getInt16Ty(ctx);
  case ir::LibdeviceType::I32:
    return llvm::Type::getInt32Ty(ctx);
  case ir::LibdeviceType::I64:
    return llvm::Type::getInt64Ty(ctx);
  case ir::LibdeviceType::F32:
    return llvm::Type::getFloatTy(ctx);
  case ir::LibdeviceType::F64:
    return llvm::Type::getDoubleTy(ctx);
  }
  throw std::logic_error("simt: unknown libdevice type");
}

std::vector<llvm::Value *> call_libdevice(Emitter &e, ir::Libdevice fn,
                                          llvm::ArrayRef<llvm::Value *> inputs,
                                          const std::string &symbol, LibdeviceAbi abi) {
  llvm::IRBuilder<> &b = e.b;
  llvm::LLVMContext &ctx = b.getContext();
  const ir::LibdeviceInfo &info = ir::libdevice_info(fn);
  auto abi_type = [&](ir::LibdeviceType type) {
    llvm::Type *t = libdevice_llvm_type(ctx, type);
    return abi.widen_int16 && t->isIntegerTy(16) ? b.getInt32Ty() : t;
  };
  // Output slots in the entry block, so that calls in loops reuse them.
  llvm::Function *caller = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&caller->getEntryBlock(), caller->getEntryBlock().getFirstInsertionPt());
  std::vector<llvm::Type *> params;
  std::vector<llvm::Value *> args;
  std::vector<std::pair<llvm::Value *, llvm::Type *>> slots;
  size_t next = 0;
  for (const ir::LibdeviceParam &p : info) {
    llvm::Type *type = abi_type(p.type);
    if (p.output) {
      llvm::Value *slot = entry.CreateAlloca(type, nullptr, std::string(p.name) + ".out");
      params.push_back(slot->getType());
      args.push_back(slot);
      slots.emplace_back(slot, type);
      continue;
    }
    if (next >= inputs.size())
      throw std::logic_error(std::string("simt: too few operands for libdevice.") + info.name);
    llvm::Value *value = inputs[next++];
    if (type != value->getType()) // int16 widened for the host's C functions
      value = b.CreateSExt(value, type);
    params.push_back(type);
    args.push_back(value);
  }
  llvm::Type *result = abi_type(info.result);
  llvm::Module &module = *b.GetInsertBlock()->getModule();
  llvm::FunctionCallee callee =
      module.getOrInsertFunction(symbol, llvm::FunctionType::get(result, params, false));
  if (auto *declaration = llvm::dyn_cast<llvm::Function>(callee.getCallee());
      declaration && abi.pure && declaration->isDeclaration()) {
    declaration->setDoesNotThrow();
    declaration->setWillReturn();
    declaration->setMemoryEffects(slots.empty()
                                      ? llvm::MemoryEffects::none()
                                      : llvm::MemoryEffects::argMemOnly(llvm::ModRefInfo::Mod));
  }
  llvm::Value *returned = b.CreateCall(callee, args);
  std::vector<llvm::Value *> values;
  llvm::Type *declared = libdevice_llvm_type(ctx, info.result);
  if (!declared->isVoidTy())
    values.push_back(declared == result ? returned : b.CreateTrunc(returned, declared));
  for (const ir::LibdeviceParam &p : info) {
    if (!p.output)
      continue;
    auto [slot, type] = slots[values.size() - (declared->isVoidTy() ? 0 : 1)];
    llvm::Value *value = b.CreateLoad(type, slot);
    llvm::Type *wanted = libdevice_llvm_type(ctx, p.type);
    values.push_back(wanted == type ? value : b.CreateTrunc(value, wanted));
  }
  return values;
}

std::vector<llvm::Value *> Target::libdevice(Emitter &e, ir::Libdevice fn,
                                             llvm::ArrayRef<llvm::Value *> args) {
  return call_libdevice(e, fn, args, std::string("__nv_") + ir::libdevice_name(fn));
}

} // namespace simt::codegen
