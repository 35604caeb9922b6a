#include "sim/jit.h"

#include "codegen/lower.h"
#include "sim/host_target.h"
#include "sim/libdevice_host.h"
#include "sim/local_frame.h"
#include "sim/object_cache.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Scalar/InductiveRangeCheckElimination.h>

#include <algorithm>
#include <map>
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

  // Lowers and optimises `module` (for inspection: nothing is added to the JIT).
  codegen::LoweredModule lower(const ir::Module &module, llvm::LLVMContext &ctx) {
    codegen::LoweredModule lowered = lower_unoptimised(module, ctx);
    optimise(*lowered.module, module.options.opt_level);
    return lowered;
  }

  KernelCode compile(const ir::Module &module) {
    auto ctx = std::make_unique<llvm::LLVMContext>();
    codegen::LoweredModule lowered = lower_unoptimised(module, *ctx);
    const bool fibers = needs_fibers(module);
    // Equal modules get equal keys, so a kernel compiled twice in a process (or found in the
    // on-disk cache) is added only once. The entry's name comes from the module alone, so an
    // on-disk entry serves whatever order a script compiles its kernels in.
    const std::string key = cache_key(*lowered.module, module.options);
    const std::string entry_symbol =
        fibers ? thread_entry_name(lowered.symbol) : block_entry_name(lowered.symbol);
    KernelCode code;
    code.name = module.kernel().python_name;
    code.static_shared_bytes = module.static_shared_bytes;
    code.local_frame_bytes = local_frame_bytes(module);
    code.cooperative = module.props.uses_grid_sync;
    for (const codegen::CodeLocation &where : lowered.locations)
      code.locations.push_back(SourceLocation{where.file, where.line, where.col, where.function});
    code.frames = std::move(lowered.frames);

    std::lock_guard<std::mutex> lock(mutex_);
    auto known = entries_.find(key);
    if (known == entries_.end()) {
      KernelEntry entry = load_cached(key, entry_symbol);
      if (!entry) {
        optimise(*lowered.module, module.options.opt_level);
        lowered.module->setModuleIdentifier(key); // names the on-disk cache entry
        llvm::orc::ThreadSafeModule tsm(std::move(lowered.module), std::move(ctx));
        entry = take("compiling " + code.name,
                     add_kernel(key, entry_symbol, [&](llvm::orc::JITDylib &dylib) {
                       return jit_->addIRModule(dylib, std::move(tsm));
                     }));
      }
      known = entries_.emplace(key, entry).first;
    }
    (fibers ? code.thread_entry : code.block_entry) = known->second;
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
    cpu_ = machine_->getTargetCPU().str() + " " + machine_->getTargetFeatureString().str();
    jit_ =
        take("creating the JIT",
             llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(builder)
                 .setCompileFunctionCreator(
                     [this](llvm::orc::JITTargetMachineBuilder target)
                         -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                       auto compiler_machine = target.createTargetMachine();
                       if (!compiler_machine)
                         return compiler_machine.takeError();
                       return std::make_unique<llvm::orc::TMOwningSimpleCompiler>(
                           std::move(*compiler_machine), &cache_);
                     })
                 .create());
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
    add("simt_rt_block_scratch", &simt_rt_block_scratch);
    add("simt_rt_warp", &simt_rt_warp);
    add("simt_rt_activemask", &simt_rt_activemask);
    add("simt_rt_grid_sync", &simt_rt_grid_sync);
    add("simt_rt_print_i64", &simt_rt_print_i64);
    add("simt_rt_print_u64", &simt_rt_print_u64);
    add("simt_rt_print_f64", &simt_rt_print_f64);
    add("simt_rt_print_str", &simt_rt_print_str);
    add("simt_rt_print_end", &simt_rt_print_end);
    add("simt_rt_enter", &simt_rt_enter);
    add("simt_rt_leave", &simt_rt_leave);
    add("simt_rt_statement", &simt_rt_statement);
    add("simt_rt_breakpoint", &simt_rt_breakpoint);
    add("simt_rt_access", &simt_rt_access);
    add("simt_rt_poll", &simt_rt_poll);
    add("simt_rt_yield", &simt_rt_yield);
    for (const HostSymbol &symbol : libdevice_host_symbols())
      add(symbol.name, symbol.address);
    runtime[jit_->mangleAndIntern("simt_rt_stop_requests")] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(&simt_rt_stop_requests), llvm::JITSymbolFlags::Exported);
    if (llvm::Error error = main.define(llvm::orc::absoluteSymbols(std::move(runtime))))
      fail("registering the runtime", std::move(error));
  }

  codegen::LoweredModule lower_unoptimised(const ir::Module &module, llvm::LLVMContext &ctx) {
    HostTarget target(triple_, data_layout_);
    codegen::LoweredModule lowered = codegen::lower(module, target, ctx, "simt.");
    std::string problems;
    llvm::raw_string_ostream out(problems);
    if (llvm::verifyModule(*lowered.module, &out))
      throw std::runtime_error("simt: LLVM rejected the lowered kernel: " + problems);
    return lowered;
  }

  // What determines the machine code: the unoptimised module, the compile options, LLVM, the host
  // CPU, and this file's build (which fixes the optimisation pipeline).
  std::string cache_key(const llvm::Module &module, const CompileOptions &options) const {
    std::string text;
    llvm::raw_string_ostream out(text);
    module.print(out, nullptr);
    out << "\n"
        << options.key() << "\n"
        << LLVM_VERSION_STRING << "\n"
        << cpu_ << "\n"
        << __DATE__ " " __TIME__;
    out.flush();
    llvm::SHA256 hash;
    hash.update(text);
    return llvm::toHex(hash.final(), /*LowerCase=*/true);
  }

  // The entry of a previously compiled object, or null when there is none or it is unusable.
  KernelEntry load_cached(const std::string &key, const std::string &entry_symbol) {
    std::unique_ptr<llvm::MemoryBuffer> object = cache_.load(key);
    if (!object)
      return nullptr;
    auto entry = add_kernel(key, entry_symbol, [&](llvm::orc::JITDylib &dylib) {
      return jit_->addObjectFile(dylib, std::move(object));
    });
    if (entry)
      return *entry;
    cache_.reject(key, llvm::toString(entry.takeError()));
    return nullptr;
  }

  // Adds one kernel's code (with `add`) in a JITDylib of its own and looks up its entry. On any
  // failure the JITDylib is removed with everything in it, so the kernel can be added again.
  llvm::Expected<KernelEntry>
  add_kernel(const std::string &key, const std::string &entry_symbol,
             llvm::function_ref<llvm::Error(llvm::orc::JITDylib &)> add) {
    auto dylib = jit_->createJITDylib("simt." + key);
    if (!dylib)
      return dylib.takeError();
    dylib->addToLinkOrder(jit_->getMainJITDylib()); // the runtime and the process's symbols
    llvm::Error error = add(*dylib);
    if (!error) {
      auto address = jit_->lookup(*dylib, entry_symbol);
      if (address)
        return address->toPtr<KernelEntry>();
      error = address.takeError();
    }
    return llvm::joinErrors(std::move(error), jit_->getExecutionSession().removeJITDylib(*dylib));
  }

  // `level`: 0 to 3, as CompileOptions::opt_level.
  void optimise(llvm::Module &module, int level) {
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
    // O3 takes time quadratic (GVN: cubic) in a function's size, from InstCombine's queries of
    // dominating conditions and GVN's non-local memory dependences; kernels of more than a few
    // hundred statements (generated code) get a pipeline of passes linear in it.
    constexpr unsigned kLargeModuleInstructions = 10000;
    llvm::ModulePassManager pipeline;
    if (module.getInstructionCount() > kLargeModuleInstructions) {
      if (llvm::Error error = passes.parsePassPipeline(
              pipeline, "always-inline,function(sroa,early-cse<memssa>,simplifycfg,"
                        "early-cse<memssa>,simplifycfg)"))
        fail("building the optimisation pipeline", std::move(error));
    } else if (level <= 0) {
      pipeline = passes.buildO0DefaultPipeline(llvm::OptimizationLevel::O0);
    } else {
      static const llvm::OptimizationLevel levels[] = {
          llvm::OptimizationLevel::O1, llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
      pipeline = passes.buildPerModuleDefaultPipeline(levels[std::min(level, 3) - 1]);
    }
    // The target machine caches subtargets without locking: one optimisation at a time.
    std::lock_guard<std::mutex> lock(machine_mutex_);
    pipeline.run(module, mam);
  }

  std::unique_ptr<llvm::TargetMachine> machine_;
  std::string triple_;
  std::string data_layout_;
  std::string cpu_;
  ObjectCache cache_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::mutex mutex_;                           // guards the JIT's contents and entries_
  std::map<std::string, KernelEntry> entries_; // by cache key
  std::mutex machine_mutex_;
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
