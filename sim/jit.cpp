#include "sim/jit.h"

#include "codegen/lower.h"
#include "sim/host_target.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Scalar/InductiveRangeCheckElimination.h>

#include <atomic>
#include <mutex>
#include <stdexcept>

namespace simt::sim {

namespace {

[[noreturn]] void fail(const std::string &what, llvm::Error error) {
  throw std::runtime_error("simt: " + what + ": " + llvm::toString(std::move(error)));
}

template <typename T> T take(const std::string &what, llvm::Expected<T> value) {
  if (!value)
    fail(what, value.takeError());
  return std::move(*value);
}

// The process's one JIT, with the runtime functions and libm resolvable from kernels.
class Jit {
public:
  static Jit &instance() {
    static Jit jit;
    return jit;
  }

  // Lowers and optimises `module` under a fresh, unique prefix.
  codegen::LoweredModule lower(const ir::Module &module, llvm::LLVMContext &ctx) {
    std::string prefix = "simt" + std::to_string(next_module_++) + ".";
    HostTarget target(triple_, data_layout_);
    codegen::LoweredModule lowered = codegen::lower(module, target, ctx, prefix);
    std::string problems;
    llvm::raw_string_ostream out(problems);
    if (llvm::verifyModule(*lowered.module, &out))
      throw std::runtime_error("simt: LLVM rejected the lowered kernel: " + problems);
    optimise(*lowered.module);
    return lowered;
  }

  KernelCode compile(const ir::Module &module) {
    auto ctx = std::make_unique<llvm::LLVMContext>();
    codegen::LoweredModule lowered = lower(module, *ctx);
    std::lock_guard<std::mutex> lock(mutex_);
    llvm::orc::ThreadSafeModule tsm(std::move(lowered.module), std::move(ctx));
    if (llvm::Error error = jit_->addIRModule(std::move(tsm)))
      fail("adding a kernel to the JIT", std::move(error));
    KernelCode code;
    code.name = module.kernel().python_name;
    code.thread_entry = entry(thread_entry_name(lowered.symbol));
    if (!module.props.uses_barrier)
      code.block_entry = entry(block_entry_name(lowered.symbol));
    code.static_shared_bytes = module.static_shared_bytes;
    for (const codegen::CodeLocation &where : lowered.locations)
      code.locations.push_back(SourceLocation{where.file, where.line, where.col, where.function});
    return code;
  }

private:
  Jit() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto builder = take("detecting the host", llvm::orc::JITTargetMachineBuilder::detectHost());
    builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    machine_ = take("creating the target machine", builder.createTargetMachine());
    triple_ = machine_->getTargetTriple().str();
    data_layout_ = machine_->createDataLayout().getStringRepresentation();
    jit_ = take("creating the JIT",
                llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(builder).create());
    llvm::orc::JITDylib &main = jit_->getMainJITDylib();
    main.addGenerator(take("opening the process's symbols",
                           llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                               jit_->getDataLayout().getGlobalPrefix())));
    llvm::orc::SymbolMap runtime;
    auto add = [&](const char *name, auto *function) {
      runtime[jit_->mangleAndIntern(name)] = llvm::orc::ExecutorSymbolDef(
          llvm::orc::ExecutorAddr::fromPtr(function),
          llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
    };
    add("simt_rt_index_error", &simt_rt_index_error);
    add("simt_rt_raise", &simt_rt_raise);
    add("simt_rt_syncthreads", &simt_rt_syncthreads);
    add("simt_rt_syncthreads_reduce", &simt_rt_syncthreads_reduce);
    add("simt_rt_print_i64", &simt_rt_print_i64);
    add("simt_rt_print_u64", &simt_rt_print_u64);
    add("simt_rt_print_f64", &simt_rt_print_f64);
    add("simt_rt_print_str", &simt_rt_print_str);
    add("simt_rt_print_end", &simt_rt_print_end);
    if (llvm::Error error = main.define(llvm::orc::absoluteSymbols(std::move(runtime))))
      fail("registering the runtime", std::move(error));
  }

  void optimise(llvm::Module &module) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder passes(machine_.get());
    passes.registerModuleAnalyses(mam);
    passes.registerCGSCCAnalyses(cgam);
    passes.registerFunctionAnalyses(fam);
    passes.registerLoopAnalyses(lam);
    passes.crossRegisterProxies(lam, fam, cgam, mam);
    // Bounds checks would keep loops scalar: IRCE splits off a main loop free of them.
    passes.registerVectorizerStartEPCallback(
        [](llvm::FunctionPassManager &fpm, llvm::OptimizationLevel) {
          fpm.addPass(llvm::IRCEPass());
        });
    // The target machine caches subtargets without locking: one optimisation at a time.
    std::lock_guard<std::mutex> lock(machine_mutex_);
    passes.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
  }

  KernelEntry entry(const std::string &name) {
    auto address = take("looking up " + name, jit_->lookup(name));
    return address.toPtr<KernelEntry>();
  }

  std::unique_ptr<llvm::TargetMachine> machine_;
  std::string triple_;
  std::string data_layout_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::mutex mutex_;
  std::mutex machine_mutex_;
  std::atomic<uint64_t> next_module_{0};
};

} // namespace

KernelCode jit_compile(const ir::Module &module) { return Jit::instance().compile(module); }

std::string host_llvm_ir(const ir::Module &module) {
  llvm::LLVMContext ctx;
  codegen::LoweredModule lowered = Jit::instance().lower(module, ctx);
  std::string text;
  llvm::raw_string_ostream out(text);
  lowered.module->print(out, nullptr);
  return text;
}

} // namespace simt::sim
