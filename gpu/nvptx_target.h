// The NVPTX Target: kernels for NVIDIA GPUs, lowered by the generic lowering (codegen/lower.h)
// into NVVM-dialect LLVM IR for LLVM's NVPTX backend (gpu/ptx.h).
//
// Special registers are llvm.nvvm.read.ptx.sreg.*; the block's shared memory is one extern
// array in address space 3 (static arrays first, dynamic shared memory after them); barriers
// are llvm.nvvm.barrier0 and its counting forms; math calls libdevice (__nv_*). There is no
// per-thread environment: a fault stores the first exception into a device-side record
// (`simt_exception`: code, location, thread and block ids) and the thread returns.
#pragma once

#include "codegen/target.h"

#include <string>

namespace simt::gpu {

// Exception codes of the device-side record, in the order a launch maps them back.
enum class DeviceException : int32_t { None, IndexError, Raised };

class NvptxTarget final : public codegen::Target {
public:
  // `data_layout` of LLVM's NVPTX target machine for the device; `static_shared_bytes` of the
  // kernel's static shared arrays (dynamic shared memory starts after them).
  NvptxTarget(std::string data_layout, int64_t static_shared_bytes)
      : data_layout_(std::move(data_layout)), static_shared_bytes_(static_shared_bytes) {}

  void configure(llvm::Module &module) override;
  llvm::Type *environment_type(llvm::LLVMContext &) override { return nullptr; }
  llvm::Value *special_register(codegen::Emitter &e, ir::Op op, int axis) override;
  llvm::Value *shared_memory(codegen::Emitter &e, int64_t offset) override;
  llvm::Value *dynamic_shared_bytes(codegen::Emitter &e) override;
  void barrier(codegen::Emitter &e, int32_t loc) override;
  llvm::Value *barrier_reduce(codegen::Emitter &e, Reduction reduction, llvm::Value *predicate,
                              int32_t loc) override;
  llvm::Value *warp_op(codegen::Emitter &e, ir::WarpOp op, llvm::Value *mask, llvm::Value *value,
                       llvm::Value *operand, int32_t loc) override;
  llvm::Value *active_mask(codegen::Emitter &e, int32_t loc) override;
  void grid_barrier(codegen::Emitter &e, int32_t loc) override;
  void index_error(codegen::Emitter &e, llvm::Value *index, llvm::Value *axis, llvm::Value *size,
                   llvm::Value *loc) override;
  void raise(codegen::Emitter &e, const std::string &exception, const std::string &message,
             llvm::Value *loc) override;
  llvm::Value *must_return(codegen::Emitter &e) override;
  llvm::Value *loop_back_edge(codegen::Emitter &e, bool spins, int32_t loc) override;
  void print(codegen::Emitter &e, const std::vector<codegen::PrintItem> &items) override;
  void enter_function(codegen::Emitter &e, int32_t function, llvm::Value *frame) override;
  void leave_function(codegen::Emitter &e) override;
  void statement(codegen::Emitter &e, int32_t loc) override;
  void breakpoint_call(codegen::Emitter &e, int32_t loc) override;
  void memory_access(codegen::Emitter &e, llvm::Value *address, uint32_t size,
                     codegen::AccessKind kind, MemSpace space, llvm::Value *value,
                     int32_t loc) override;
  llvm::Value *math(codegen::Emitter &e, ir::Intrinsic fn, llvm::ArrayRef<llvm::Value *> args,
                    Scalar type) override;
  // One kernel function named as the Python function, taking each array parameter as (data
  // pointer, extents, strides in bytes) and each scalar by value, marked a kernel in
  // nvvm.annotations.
  void emit_entry_points(llvm::Module &module, llvm::Function *body, const ir::Module &ir_module,
                         const std::string &symbol) override;

private:
  void record_exception(codegen::Emitter &e, DeviceException code, llvm::Value *loc);
  std::string data_layout_;
  int64_t static_shared_bytes_;
};

} // namespace simt::gpu
