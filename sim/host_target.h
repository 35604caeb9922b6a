// The host Target: kernels for the simulator, run on the CPU against the runtime ABI (sim/abi.h).
#pragma once

#include "codegen/target.h"
#include "sim/kernel_plan.h"

#include <string>

namespace simt::sim {

// Entry point names for the kernel whose module-unique symbol is `symbol`.
std::string thread_entry_name(const std::string &symbol);
std::string block_entry_name(const std::string &symbol);
// How the simulator runs a kernel's block: a loop over its threads (Flat: nothing makes them
// wait for each other); a loop over them per barrier-free region (Fission, analysis/fission.h:
// its barriers sit in block-uniform control flow); or a fiber per thread (Fibers: a barrier
// elsewhere, a warp operation or a spinning loop is reachable, the kernel is instrumented for the
// debugger, which may stop any thread, or for checkers under a schedule that orders threads
// (SimOptions::checked_fibers), SimOptions::fission is off, or its threads'
// local arrays are too large to keep side by side). Flat kernels are lowered as one region.

class HostTarget final : public codegen::Target,
                         public codegen::InstrumentationHooks,
                         public codegen::FissionHooks {
public:
  // `triple` and `data_layout` of the host machine the JIT compiles for; `plan` the kernel's (it
  // outlives the target).
  HostTarget(std::string triple, std::string data_layout, const KernelPlan &plan)
      : triple_(std::move(triple)), data_layout_(std::move(data_layout)), plan_(plan) {}

  void configure(llvm::Module &module) override;
  llvm::Type *environment_type(llvm::LLVMContext &ctx) override;
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
  llvm::Value *out_of_bounds_access(codegen::Emitter &e, llvm::Value *index, llvm::Value *axis,
                                    llvm::Value *size, int32_t loc, int64_t itemsize,
                                    const std::string &access) override;
  void index_error(codegen::Emitter &e, llvm::Value *index, llvm::Value *axis, llvm::Value *size,
                   llvm::Value *loc) override;
  void raise(codegen::Emitter &e, const std::string &exception, const std::string &message,
             llvm::Value *loc) override;
  llvm::Value *must_return(codegen::Emitter &e) override;
  llvm::Value *enter_recursive_call(codegen::Emitter &e) override;
  void leave_recursive_call(codegen::Emitter &e) override;
  llvm::Value *loop_back_edge(codegen::Emitter &e, bool spins, int32_t loc) override;
  void print(codegen::Emitter &e, const std::vector<codegen::PrintItem> &items) override;
  codegen::InstrumentationHooks *instrumentation() override { return this; }
  void enter_function(codegen::Emitter &e, int32_t function, llvm::Value *frame) override;
  void leave_function(codegen::Emitter &e) override;
  void statement(codegen::Emitter &e, int32_t loc) override;
  void breakpoint_call(codegen::Emitter &e, int32_t loc) override;
  void memory_access(codegen::Emitter &e, llvm::Value *address, uint32_t size, uint32_t align,
                     codegen::AccessKind kind, MemSpace space, llvm::Value *value,
                     int32_t loc) override;
  llvm::Value *math(codegen::Emitter &e, ir::Intrinsic fn, llvm::ArrayRef<llvm::Value *> args,
                    Scalar type) override;
  // simt_libdevice_<name> (sim/libdevice_host.h)
  std::vector<llvm::Value *> libdevice(codegen::Emitter &e, ir::Libdevice fn,
                                       llvm::ArrayRef<llvm::Value *> args) override;
  // Flat kernels are fissioned too: one region, a loop over the block's threads.
  const ir::FissionPlan *fission_plan(const ir::Module &) override {
    return plan_.lowered_fissioned();
  }
  codegen::FissionHooks *fission_hooks() override { return this; }
  void enter_thread(codegen::Emitter &e, llvm::ArrayRef<llvm::Value *> tid) override;
  void fissioned_barrier(codegen::Emitter &e, int32_t loc) override;
  llvm::Value *block_scratch(codegen::Emitter &e, llvm::Value *bytes) override;
  bool allocates() const override { return true; }
  llvm::Value *allocate(codegen::Emitter &e, llvm::Value *bytes, bool zeroed, int32_t loc) override;
  void emit_entry_points(llvm::Module &module, llvm::Function *body, const ir::Module &ir_module,
                         const std::string &symbol) override;

private:
  std::string triple_;
  std::string data_layout_;
  const KernelPlan &plan_;
};

} // namespace simt::sim
