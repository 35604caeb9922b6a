#include "sim/jit.h"

#include "codegen/lower.h"
#include "sim/host_target.h"
#include "sim/libdevice_host.h"
#include "sim/local_frame.h"
#include "sim/object_cache.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/IRCompileLayer.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Object/ObjectFile.h>
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

// Marks the object of a Quick-tier compile: the on-disk cache keeps one entry per kernel, and the
// entry's tier decides whether a kernel loaded from it may still be recompiled at its full level.
constexpr const char *kQuickTierMarker = "simt.quick_tier";

// A target machine and the lock that serialises its use: it caches subtargets without locking.
struct Machine {
  std::unique_ptr<llvm::TargetMachine> target;
  std::mutex mutex;
};

// The process's one JIT, with the runtime functions and libm resolvable from kernels.
class Jit {
public:
  static Jit &instance() {
    static Jit jit;
    return jit;
  }

  // Lowers and optimises `module` at its full level (for inspection: nothing is added to the JIT).
  codegen::LoweredModule lower(const ir::Module &module, llvm::LLVMContext &ctx) {
    codegen::LoweredModule lowered = lower_unoptimised(module, ctx);
    std::lock_guard<std::mutex> lock(full_.mutex);
    optimise(*lowered.module, module.options.opt_level, Tier::Full);
    return lowered;
  }

  KernelCode compile(const ir::Module &module, Tier tier, UnoptimisedModule *unoptimised) {
    llvm::LLVMContext ctx;
    codegen::LoweredModule lowered = lower_unoptimised(module, ctx);
    const bool fibers = needs_fibers(module);
    // Equal modules get equal keys, so a kernel compiled twice in a process (or found in the
    // on-disk cache) is added only once. The entry's name comes from the module alone, so an
    // on-disk entry serves whatever order a script compiles its kernels in. The key does not
    // depend on the tier: the cache keeps the best code it has for a kernel.
    std::string bitcode = write_bitcode(*lowered.module);
    const std::string key = cache_key(bitcode, module.options);
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
    const Entry entry =
        obtain(key, entry_symbol, *lowered.module, module.options.opt_level, tier, code.name);
    (fibers ? code.thread_entry : code.block_entry) = entry.address;
    code.tier = entry.tier;
    if (unoptimised != nullptr && entry.tier == Tier::Quick)
      *unoptimised = UnoptimisedModule{code.name, key, entry_symbol, std::move(bitcode),
                                       module.options.opt_level};
    return code;
  }

  KernelEntry compile_full(const UnoptimisedModule &kernel) {
    llvm::LLVMContext ctx;
    std::unique_ptr<llvm::Module> module =
        take("reading kernel " + kernel.name + "'s LLVM IR back",
             llvm::parseBitcodeFile(llvm::MemoryBufferRef(kernel.bitcode, kernel.name), ctx));
    return obtain(kernel.key, kernel.entry_symbol, *module, kernel.opt_level, Tier::Full,
                  kernel.name)
        .address;
  }

private:
  struct Entry {
    KernelEntry address = nullptr;
    Tier tier = Tier::Quick;
  };

  Jit() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto builder = take("detecting the host", llvm::orc::JITTargetMachineBuilder::detectHost());
    // What LLJIT sets for the JITLink linker it uses on x86-64 ELF: its compile layer's machine
    // would get them, and ours compile what that linker links.
    builder.setRelocationModel(llvm::Reloc::PIC_);
    builder.setCodeModel(llvm::CodeModel::Small);
    builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
    quick_.target = take("creating the target machine", builder.createTargetMachine());
    builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    full_.target = take("creating the target machine", builder.createTargetMachine());
    triple_ = full_.target->getTargetTriple().str();
    data_layout_ = full_.target->createDataLayout().getStringRepresentation();
    cpu_ = full_.target->getTargetCPU().str() + " " + full_.target->getTargetFeatureString().str();
    jit_ = take("creating the JIT", llvm::orc::LLJITBuilder()
                                        .setJITTargetMachineBuilder(builder)
                                        .setCompileFunctionCreator(no_ir_compiler)
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

  // Kernels reach the JIT as objects (emit_object), so its IR layer never compiles; LLJIT would
  // otherwise create a target machine for it at start-up.
  static llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>>
  no_ir_compiler(llvm::orc::JITTargetMachineBuilder) {
    struct Refuse final : llvm::orc::IRCompileLayer::IRCompiler {
      Refuse() : IRCompiler(llvm::orc::IRSymbolMapper::ManglingOptions()) {}
      llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module &) override {
        return llvm::createStringError("simt: kernels are added to the JIT as objects");
      }
    };
    return std::make_unique<Refuse>();
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

  // The module's bitcode: what the cache key hashes (writing it takes half the time printing
  // the module as text does), and what a recompile reads back.
  static std::string write_bitcode(const llvm::Module &module) {
    std::string bitcode;
    llvm::raw_string_ostream out(bitcode);
    llvm::WriteBitcodeToFile(module, out);
    out.flush();
    return bitcode;
  }

  // What determines the machine code: the unoptimised module (its bitcode), the compile options,
  // LLVM, the host CPU, and this file's build (which fixes the optimisation pipelines).
  std::string cache_key(const std::string &bitcode, const CompileOptions &options) const {
    std::string text;
    llvm::raw_string_ostream out(text);
    out << "\n"
        << options.key() << "\n"
        << LLVM_VERSION_STRING << "\n"
        << cpu_ << "\n"
        << __DATE__ " " __TIME__;
    out.flush();
    llvm::SHA256 hash;
    hash.update(bitcode);
    hash.update(text);
    return llvm::toHex(hash.final(), /*LowerCase=*/true);
  }

  // The kernel's code at `tier` or better: this process's, the on-disk cache's, or `module`
  // optimised and compiled now. Optimised and compiled without holding the JIT: a Full compile
  // in the background must not hold up a Quick one (each tier has a target machine of its own).
  Entry obtain(const std::string &key, const std::string &entry_symbol, llvm::Module &module,
               int level, Tier tier, const std::string &name) {
    if (Entry found = find(key, entry_symbol, tier); found.address != nullptr)
      return found;
    if (tier == Tier::Quick) {
      llvm::Type *byte = llvm::Type::getInt8Ty(module.getContext());
      new llvm::GlobalVariable(module, byte, /*isConstant=*/true,
                               llvm::GlobalValue::ExternalLinkage, llvm::ConstantInt::get(byte, 0),
                               kQuickTierMarker);
    }
    std::unique_ptr<llvm::MemoryBuffer> object = emit_object(module, level, tier);
    std::lock_guard<std::mutex> lock(mutex_);
    auto known = entries_.find(key);
    if (known != entries_.end() && known->second.tier >= tier)
      return known->second; // another thread compiled it meanwhile
    cache_.store(key, object->getMemBufferRef());
    const Entry entry{take("compiling " + name, add_object(key, entry_symbol, std::move(object))),
                      tier};
    entries_[key] = entry;
    return entry;
  }

  // The kernel's code when this process or the on-disk cache has it at `tier` or better; else
  // a null address.
  Entry find(const std::string &key, const std::string &entry_symbol, Tier tier) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto known = entries_.find(key); known != entries_.end())
      return known->second.tier >= tier ? known->second : Entry{};
    std::unique_ptr<llvm::MemoryBuffer> object = cache_.load(key);
    if (!object)
      return {};
    const Tier cached = tier_of(object->getMemBufferRef());
    if (cached < tier)
      return {};
    auto address = add_object(key, entry_symbol, std::move(object));
    if (!address) {
      cache_.reject(key, llvm::toString(address.takeError()));
      return {};
    }
    return entries_[key] = Entry{*address, cached};
  }

  static Tier tier_of(llvm::MemoryBufferRef object) {
    auto file = llvm::object::ObjectFile::createObjectFile(object);
    if (!file) {
      llvm::consumeError(file.takeError()); // linking it reports the problem
      return Tier::Full;
    }
    for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
      llvm::Expected<llvm::StringRef> name = symbol.getName();
      if (!name)
        llvm::consumeError(name.takeError());
      else if (*name == kQuickTierMarker)
        return Tier::Quick;
    }
    return Tier::Full;
  }

  // Links one kernel's object into a JITDylib of its own and looks up its entry. On any failure
  // the JITDylib is removed with everything in it, so the kernel can be added again.
  llvm::Expected<KernelEntry> add_object(const std::string &key, const std::string &entry_symbol,
                                         std::unique_ptr<llvm::MemoryBuffer> object) {
    // A kernel recompiled at a better tier gets a JITDylib beside its first one, which stays:
    // launches may still be running its code.
    auto dylib = jit_->createJITDylib("simt." + key + "." + std::to_string(dylibs_++));
    if (!dylib)
      return dylib.takeError();
    dylib->addToLinkOrder(jit_->getMainJITDylib()); // the runtime and the process's symbols
    llvm::Error error = jit_->addObjectFile(*dylib, std::move(object));
    if (!error) {
      auto address = jit_->lookup(*dylib, entry_symbol);
      if (address)
        return address->toPtr<KernelEntry>();
      error = address.takeError();
    }
    return llvm::joinErrors(std::move(error), jit_->getExecutionSession().removeJITDylib(*dylib));
  }

  // Optimises `module` for `tier` and compiles it to an object.
  std::unique_ptr<llvm::MemoryBuffer> emit_object(llvm::Module &module, int level, Tier tier) {
    Machine &machine = tier == Tier::Quick ? quick_ : full_;
    std::lock_guard<std::mutex> lock(machine.mutex);
    optimise(module, level, tier);
    llvm::orc::SimpleCompiler compiler(*machine.target);
    return take("compiling " + module.getName().str(), compiler(module));
  }

  // `level`: 0 to 3, as CompileOptions::opt_level, for the Full tier. The caller holds the tier's
  // machine.
  void optimise(llvm::Module &module, int level, Tier tier) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder passes((tier == Tier::Quick ? quick_ : full_).target.get());
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
    auto parse = [&](const char *text) {
      if (llvm::Error error = passes.parsePassPipeline(pipeline, text))
        fail("building the optimisation pipeline", std::move(error));
    };
    if (tier == Tier::Quick) {
      // Locals out of memory and the kernel's body inlined into its entry: cheap passes whose
      // code runs a few times slower than O3's, for a fraction of its compile time. InstCombine
      // folds half-precision arithmetic done in float (fneg of a widened half) as O3 does: the
      // tiers' results, NaN payloads included, must agree.
      parse("always-inline,function(sroa,early-cse,simplifycfg,instcombine<no-verify-fixpoint>)");
    } else if (module.getInstructionCount() > kLargeModuleInstructions) {
      parse("always-inline,function(sroa,early-cse<memssa>,simplifycfg,early-cse<memssa>,"
            "simplifycfg)");
    } else if (level <= 0) {
      pipeline = passes.buildO0DefaultPipeline(llvm::OptimizationLevel::O0);
    } else {
      static const llvm::OptimizationLevel levels[] = {
          llvm::OptimizationLevel::O1, llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
      pipeline = passes.buildPerModuleDefaultPipeline(levels[std::min(level, 3) - 1]);
    }
    pipeline.run(module, mam);
  }

  Machine quick_; // CodeGenOptLevel::None: the fast instruction selector and register allocator
  Machine full_;  // CodeGenOptLevel::Aggressive
  std::string triple_;
  std::string data_layout_;
  std::string cpu_;
  ObjectCache cache_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::mutex mutex_;                     // guards the JIT's contents, entries_ and dylibs_
  std::map<std::string, Entry> entries_; // by cache key: the best tier this process has
  uint64_t dylibs_ = 0;
};

} // namespace

KernelCode jit_compile(const ir::Module &module, Tier tier, UnoptimisedModule *unoptimised) {
  return Jit::instance().compile(module, tier, unoptimised);
}

KernelEntry jit_compile_full(const UnoptimisedModule &kernel) {
  return Jit::instance().compile_full(kernel);
}

std::string host_llvm_ir(const ir::Module &module) {
  llvm::LLVMContext ctx;
  codegen::LoweredModule lowered = Jit::instance().lower(module, ctx);
  std::string text;
  llvm::raw_string_ostream out(text);
  lowered.module->print(out, nullptr);
  return text;
}

} // namespace simt::sim
