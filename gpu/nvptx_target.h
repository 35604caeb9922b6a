// The NVPTX Target: kernels for NVIDIA GPUs, lowered by the generic lowering (codegen/lower.h)
// into NVVM-dialect LLVM IR for LLVM's NVPTX backend (gpu/ptx.h).
//
// Special registers are llvm.nvvm.read.ptx.sreg.*; the block's shared memory is one extern
// array in address space 3 (static arrays first, dynamic shared memory after them); barriers
// are llvm.nvvm.barrier0 and its counting forms; math calls libdevice (__nv_*). There is no
// per-thread environment: a fault stores the first exception into a device-side record (below)
// (gpu/exception_record.h) and the thread returns; every thread returns once the record holds a
// fault.
#pragma once

#include "codegen/target.h"
#include "gpu/exception_record.h"

#include <string>
#include <vector>

namespace simt::gpu {

// The kernel's externally visible function, as compile_ptx's device= and abi= ask.
struct EntryAbi {
  // A device function (.func) rather than a kernel (.entry).
  bool device = false;
  // Numba's ABI: a kernel's arrays as (meminfo, parent, nitems, itemsize, data, shape..,
  // strides..); a device function returns an i32 status and stores its result through its first
  // parameter (then an exception-info pointer). The C ABI: the result is returned.
  bool c_abi = false;
  // The function's name.
  std::string name;
  // A kernel's launch bounds (numba-cuda's launch_bounds=): at most this many threads per block,
  // at least this many blocks per multiprocessor, at most this many blocks per cluster; 0: not
  // given. NVVM's annotations maxntidx, minctasm and maxclusterrank.
  int max_threads_per_block = 0;
  int min_blocks_per_multiprocessor = 0;
  int max_blocks_per_cluster = 0;
};

// A `raise` in a kernel: its exception class and message.
struct RaiseSite {
  std::string exception;
  std::string message;
};

class NvptxTarget final : public codegen::Target {
public:
  // `data_layout` of LLVM's NVPTX target machine for the device; `static_shared_bytes` of the
  // kernel's static shared arrays (each its own global on the GPU, as Numba's; the typed IR's
  // dynamic shared memory starts after them, and on the GPU at the extern array's start).
  // `sm`: the compute capability as a number (75 for sm_75).
  NvptxTarget(std::string data_layout, int64_t static_shared_bytes, EntryAbi abi, bool fastmath,
              int sm)
      : data_layout_(std::move(data_layout)), static_shared_bytes_(static_shared_bytes),
        abi_(std::move(abi)), fastmath_(fastmath), sm_(sm) {}

  // The raise statements lowered so far, by the record's code (first_raise_code + index).
  const std::vector<RaiseSite> &raised() const { return raised_; }

  void configure(llvm::Module &module) override;
  llvm::Type *environment_type(llvm::LLVMContext &) override { return nullptr; }
  llvm::Value *special_register(codegen::Emitter &e, ir::Op op, int axis) override;
  llvm::Value *shared_memory(codegen::Emitter &e, int64_t offset) override;
  llvm::Value *shared_array_memory(codegen::Emitter &e, const ir::SharedArrayDecl &decl,
                                   int index) override;
  llvm::Value *dynamic_shared_bytes(codegen::Emitter &e) override;
  // In the constant address space (4): the GPU's constant cache, as Numba's cuda.const.array_like.
  llvm::Value *const_memory(llvm::Module &module, const ir::ConstArrayDecl &decl,
                            const std::string &name) override;
  void fence(codegen::Emitter &e, FenceScope scope) override;
  void nanosleep(codegen::Emitter &e, llvm::Value *nanoseconds) override;
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
  llvm::Value *enter_recursive_call(codegen::Emitter &) override { return nullptr; }
  void leave_recursive_call(codegen::Emitter &) override {}
  llvm::Value *loop_back_edge(codegen::Emitter &e, bool spins, int32_t loc) override;
  void print(codegen::Emitter &e, const std::vector<codegen::PrintItem> &items) override;
  void breakpoint_call(codegen::Emitter &e, int32_t loc) override;
  // CUDA's device-side malloc (gpu/device_heap.h); kernels only: a device function compiled on
  // its own has no launch whose end frees its arrays.
  bool allocates() const override { return !abi_.device; }
  std::string allocation_refusal() const override;
  llvm::Value *allocate(codegen::Emitter &e, llvm::Value *bytes, bool zeroed, int32_t loc) override;
  bool native_bfloat16() const override { return sm_ >= 80; }
  bool release_breakpoints() const override { return true; }
  llvm::Value *math(codegen::Emitter &e, ir::Intrinsic fn, llvm::ArrayRef<llvm::Value *> args,
                    Scalar type) override;
  // One function as EntryAbi says, marked a kernel in nvvm.annotations unless a device function.
  void emit_entry_points(llvm::Module &module, llvm::Function *body, const ir::Module &ir_module,
                         const std::string &symbol) override;

private:
  static llvm::GlobalVariable *exception_record(llvm::Module &module);
  // The exception record's code (a volatile load of it).
  llvm::Value *fault_code(codegen::Emitter &e);
  void record_exception(codegen::Emitter &e, int32_t code, llvm::Value *loc,
                        llvm::ArrayRef<llvm::Value *> index_fault);
  std::string data_layout_;
  int64_t static_shared_bytes_;
  EntryAbi abi_;
  // Refuses what compute capabilities below `sm` lack (LLVM would abort selecting it).
  void require_sm(int sm, const char *what) const;
  bool fastmath_;
  int sm_;
  std::vector<RaiseSite> raised_;
  // The code read as the thread reached the barrier just lowered, for the must_return after it.
  llvm::Value *code_before_barrier_ = nullptr;
};

} // namespace simt::gpu
