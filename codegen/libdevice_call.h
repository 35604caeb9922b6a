// Calls of libdevice's functions (ir/libdevice.def) with libdevice's ABI, shared by the
// targets: each input by value, each output as a pointer to a slot the call stores into (allocated
// in the calling function's entry block and loaded after the call).
#pragma once

#include "codegen/target.h"

#include <string>
#include <vector>

namespace simt::codegen {

// LLVM's type of a libdevice type (Void: void).
llvm::Type *libdevice_llvm_type(llvm::LLVMContext &ctx, ir::LibdeviceType type);

struct LibdeviceAbi {
  // int16 parameters and results travel as int32 (sign-extended; the host's C functions take
  // int32_t, so no C ABI's rule for extending 16-bit values matters).
  bool widen_int16 = false;
  // The callee only reads its inputs and writes its outputs (memory(argmem: write) or none),
  // returns and does not unwind, so the optimiser may move, merge or drop calls.
  bool pure = false;
};

// Calls `symbol` as libdevice's `fn` on `inputs` (its input parameters' values, in order): returns
// the return value (unless void), then each output's value, in order.
std::vector<llvm::Value *> call_libdevice(Emitter &e, ir::Libdevice fn,
                                          llvm::ArrayRef<llvm::Value *> inputs,
                                          const std::string &symbol, LibdeviceAbi abi = {});

} // namespace simt::codegen
