#include "sim/jit.h"

#include "analysis/fission.h"
#include "codegen/interruptible_passes.h"
#include "codegen/llvm_errors.h"
#include "codegen/lower.h"
#include "sim/host_target.h"
#include "sim/libdevice_host.h"
#include "sim/local_frame.h"
#include "sim/object_cache.h"

#include <llvm/ADT/StringExtras.h>
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
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/xxhash.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/InductiveRangeCheckElimination.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <link.h>
#include <map>
#include <mutex>
#include <optional>
#include <span>
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
// What every global name of a kernel's module starts with.
constexpr const char *kSymbolPrefix = "simt.";
// The kernel's runtime-call locations (KernelCode::locations), kept in its object.
constexpr const char *kLocationsSymbol = "simt.locations";

// The xxh3 128-bit hash of `bytes`, as 32 lowercase hex digits.
std::string hash_hex(llvm::StringRef bytes) {
  const llvm::XXH128_hash_t hash = llvm::xxh3_128bits(llvm::arrayRefFromStringRef(bytes));
  return llvm::utohexstr(hash.high64, /*LowerCase=*/true, /*Width=*/16) +
         llvm::utohexstr(hash.low64, /*LowerCase=*/true, /*Width=*/16);
}

// This build of simt, whose lowering and pipelines made the code: the GNU build ID of the binary
// holding this function (the linker's hash of its contents), else those contents' hash.
std::string build_identity() {
  struct Search {
    uintptr_t address;
    std::string id;
    std::string path;
  } search{reinterpret_cast<uintptr_t>(&build_identity), {}, {}};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        Search &search = *static_cast<Search *>(data);
        const auto segments = std::span(info->dlpi_phdr, info->dlpi_phnum);
        const bool holds = std::any_of(segments.begin(), segments.end(), [&](const auto &p) {
          const uintptr_t start = info->dlpi_addr + p.p_vaddr;
          return p.p_type == PT_LOAD && search.address - start < p.p_memsz;
        });
        if (!holds)
          return 0;
        search.path = info->dlpi_name;
        for (const auto &p : segments) {
          if (p.p_type != PT_NOTE)
            continue;
          const char *note = reinterpret_cast<const char *>(info->dlpi_addr + p.p_vaddr);
          const char *end = note + p.p_memsz;
          while (note + sizeof(ElfW(Nhdr)) <= end) {
            const auto *header = reinterpret_cast<const ElfW(Nhdr) *>(note);
            const char *name = note + sizeof(ElfW(Nhdr));
            const char *desc = name + ((header->n_namesz + 3) & ~3u);
            if (header->n_type == NT_GNU_BUILD_ID && header->n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0)
              search.id = llvm::toHex(llvm::StringRef(desc, header->n_descsz), true);
            note = desc + ((header->n_descsz + 3) & ~3u);
          }
        }
        return 1;
      },
      &search);
  if (!search.id.empty())
    return search.id;
  const std::string path = search.path.empty() ? "/proc/self/exe" : search.path;
  auto contents =
      take("reading " + path, llvm::errorOrToExpected(llvm::MemoryBuffer::getFile(path)));
  return hash_hex(contents->getBuffer());
}

// A target machine and the lock that serialises its use: it caches subtargets without locking.
struct Machine {
  std::unique_ptr<llvm::TargetMachine> target;
  std::mutex mutex;
};

// The process's one JIT, with the runtime functions and libm resolvable from kernels.
class Jit {
public:
  // Never destroyed: the process's end frees it. Tearing ORC down at exit fails the queries a
  // link that ran out of memory (mappings) left behind, and failing them there crashed
  // (AsynchronousSymbolQuery::handleFailed from ~LLJIT).
  static Jit &instance() {
    static Jit *jit = new Jit;
    return *jit;
  }

  // Lowers and optimises `module` at its full level (for inspection: nothing is added to the JIT).
  codegen::LoweredModule lower(const ir::Module &module, const SimOptions &options,
                               llvm::LLVMContext &ctx) {
    codegen::LoweredModule lowered = lower_unoptimised(module, plan_kernel(module, options), ctx);
    verify(*lowered.module);
    std::lock_guard<std::mutex> lock(full_.mutex);
    optimise(*lowered.module, module.options.opt_level, Tier::Full);
    return lowered;
  }

  KernelCode compile(const ir::Module &module, Tier tier, UnoptimisedModule *unoptimised,
                     const SimOptions &options) {
    // Equal modules get equal keys, so a kernel compiled twice in a process (or found in the
    // on-disk cache) is added only once, and is not even lowered again. The entry's name comes
    // from the module alone, so an on-disk entry serves whatever order a script compiles its
    // kernels in. The key does not depend on the tier: the cache keeps the best code it has.
    const std::string key = cache_key(module, options);
    const KernelPlan plan = plan_kernel(module, options);
    const bool fibers = plan.fibers();
    const std::string symbol = codegen::kernel_symbol(module, kSymbolPrefix);
    const std::string entry_symbol = fibers ? thread_entry_name(symbol) : block_entry_name(symbol);
    KernelCode code;
    code.name = module.kernel().python_name;
    code.static_shared_bytes = module.static_shared_bytes;
    code.local_frame_bytes = local_frame_bytes(module);
    code.cooperative = module.props.uses_grid_sync;
    code.threads_wait =
        module.props.uses_barrier || module.props.uses_warp || module.props.may_spin;
    code.strategy = plan.strategy;
    if (module.props.uses_barrier)
      code.fission_obstacle = plan.fission.obstacle;
    llvm::LLVMContext ctx;
    std::optional<codegen::LoweredModule> lowered;
    if (module.options.instrumentation != Instrumentation::None) {
      lowered = lower_unoptimised(module, plan, ctx); // its frames are not in the object
      code.frames = std::move(lowered->frames);
      code.arrays = named_arrays(module);
    }
    Entry entry = find(key, entry_symbol, tier, code.name);
    if (entry == nullptr) {
      if (!lowered)
        lowered = lower_unoptimised(module, plan, ctx);
      entry = compile_new(key, entry_symbol, *lowered, module.options.opt_level, tier, code.name);
    }
    (fibers ? code.thread_entry : code.block_entry) = entry->address;
    code.tier = entry->tier;
    code.locations = entry->locations;
    code.keep_alive = entry;
    if (unoptimised != nullptr && entry->tier == Tier::Quick)
      *unoptimised =
          UnoptimisedModule{code.name, key, entry_symbol,
                            std::make_shared<const ir::Module>(ir::clone(module)), options};
    return code;
  }

  FullCode compile_full(const UnoptimisedModule &kernel) {
    Entry entry = find(kernel.key, kernel.entry_symbol, Tier::Full, kernel.name);
    if (entry == nullptr) {
      llvm::LLVMContext ctx;
      codegen::LoweredModule lowered =
          lower_unoptimised(*kernel.module, plan_kernel(*kernel.module, kernel.options), ctx);
      entry = compile_new(kernel.key, kernel.entry_symbol, lowered,
                          kernel.module->options.opt_level, Tier::Full, kernel.name);
    }
    return FullCode{entry->address, entry};
  }

  size_t alive() const { return alive_.load(std::memory_order_relaxed); }

  // Removes `dylib`, whose code no KernelCode holds any more, unmapping its memory. Called
  // without mutex_ (the last reference may go while a thread holds it): the ExecutionSession
  // locks what it shares, and no other thread uses this dylib.
  void release(llvm::orc::JITDylib &dylib) {
    alive_.fetch_sub(1, std::memory_order_relaxed);
    llvm::orc::ExecutionSession &session = jit_->getExecutionSession();
    if (llvm::Error error = session.removeJITDylib(dylib))
      std::fprintf(stderr, "simt: warning: freeing a kernel's code failed: %s\n",
                   llvm::toString(std::move(error)).c_str());
    // Symbol names stay interned until swept: kernels of ever new names would pile them up.
    constexpr uint64_t kSweepEvery = 1024;
    if (released_.fetch_add(1, std::memory_order_relaxed) % kSweepEvery == kSweepEvery - 1)
      session.getSymbolStringPool()->clearDeadEntries();
  }

private:
  // One kernel's code, linked into a JITDylib of its own: removed with it when the last
  // KernelCode holding it goes (KernelCode::keep_alive).
  struct LinkedCode {
    KernelEntry address = nullptr;
    Tier tier = Tier::Quick;
    // The kernel's runtime-call locations, read from its object (where they are kept, so a
    // kernel found in a cache needs no lowering).
    std::vector<SourceLocation> locations;
    llvm::orc::JITDylib *dylib = nullptr;
    LinkedCode() = default;
    LinkedCode(const LinkedCode &) = delete;
    LinkedCode &operator=(const LinkedCode &) = delete;
    ~LinkedCode() {
      if (dylib != nullptr)
        instance().release(*dylib);
    }
  };
  using Entry = std::shared_ptr<const LinkedCode>;

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
    build_ = build_identity();
    // No platform: kernels have no initialisers, and the generic one adds an IR module (an
    // LLVMContext) to every JITDylib and keeps state for each until the session ends.
    jit_ = take("creating the JIT", llvm::orc::LLJITBuilder()
                                        .setJITTargetMachineBuilder(builder)
                                        .setCompileFunctionCreator(no_ir_compiler)
                                        .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                                        .create());
    // Linking errors reach the session's reporter, the lookup only "failed to materialize":
    // add_object takes them into the error it returns.
    jit_->getExecutionSession().setErrorReporter([](llvm::Error error) {
      std::string text = llvm::toString(std::move(error));
      if (reported_errors != nullptr)
        *reported_errors += (reported_errors->empty() ? "" : "; ") + text;
      else
        std::fprintf(stderr, "simt: JIT session error: %s\n", text.c_str());
    });
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
#define SIMT_RUNTIME(Name, Cold, Result, ...) add(#Name, &Name);
#include "sim/runtime.def"
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

  codegen::LoweredModule lower_unoptimised(const ir::Module &module, const KernelPlan &plan,
                                           llvm::LLVMContext &ctx) {
    HostTarget target(triple_, data_layout_, plan);
    return codegen::lower(module, target, ctx, kSymbolPrefix);
  }

  // Checked before it is optimised, not before the cache lookup: code found in a cache was made
  // from an equal module, checked when it was compiled.
  static void verify(const llvm::Module &module) {
    std::string problems;
    llvm::raw_string_ostream out(problems);
    if (llvm::verifyModule(module, &out))
      throw std::runtime_error("simt: LLVM rejected the lowered kernel: " + problems);
  }

  // What determines the machine code: the typed IR (its fingerprint, which holds the compile
  // options), the simulator's options, LLVM, the host CPU, and this build of simt (its lowering
  // and pipelines).
  std::string cache_key(const ir::Module &module, const SimOptions &options) const {
    std::string text = ir::fingerprint(module) + options.key();
    text += "\n" LLVM_VERSION_STRING "\n" + cpu_ + "\n" + build_;
    // A 128-bit hash tells kernels apart; the on-disk entries carry an HMAC against tampering.
    return hash_hex(text);
  }

  // The kernel's code at `tier` or better, when find() had none: `lowered` optimised and
  // compiled now, unless another thread did meanwhile. Optimised and compiled without holding
  // the JIT: a Full compile in the background must not hold up a Quick one (each tier has a
  // target machine of its own).
  Entry compile_new(const std::string &key, const std::string &entry_symbol,
                    codegen::LoweredModule &lowered, int level, Tier tier,
                    const std::string &name) {
    // A fatal error here ends the process (the JIT's target machines and session are shared:
    // nothing can be leaked alone), with a message naming the kernel.
    const codegen::LlvmTask task("compiling kernel '" + name + "' for the simulator",
                                 /*recoverable=*/false);
    llvm::Module &module = *lowered.module;
    llvm::Type *byte = llvm::Type::getInt8Ty(module.getContext());
    if (tier == Tier::Quick)
      new llvm::GlobalVariable(module, byte, /*isConstant=*/true,
                               llvm::GlobalValue::ExternalLinkage, llvm::ConstantInt::get(byte, 0),
                               kQuickTierMarker);
    llvm::Constant *locations = llvm::ConstantDataArray::getString(
        module.getContext(), encode(lowered.locations), /*AddNull=*/false);
    new llvm::GlobalVariable(module, locations->getType(), /*isConstant=*/true,
                             llvm::GlobalValue::ExternalLinkage, locations, kLocationsSymbol);
    std::unique_ptr<llvm::MemoryBuffer> object = emit_object(module, level, tier);
    std::lock_guard<std::mutex> lock(mutex_);
    if (Entry known = live(key); known != nullptr && known->tier >= tier)
      return known; // another thread compiled it meanwhile
    cache_.store(key, object->getMemBufferRef());
    llvm::Expected<Entry> entry = add_object(key, entry_symbol, std::move(object), tier);
    if (!entry)
      throw_link_failure(name, entry.takeError());
    remember(key, *entry);
    return *entry;
  }

  // The kernel's code when this process or the on-disk cache has it at `tier` or better; else
  // null.
  Entry find(const std::string &key, const std::string &entry_symbol, Tier tier,
             const std::string &name) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (Entry known = live(key))
      return known->tier >= tier ? known : nullptr;
    std::unique_ptr<llvm::MemoryBuffer> object = cache_.load(key);
    if (!object)
      return nullptr;
    const Tier cached = tier_of(object->getMemBufferRef());
    if (cached < tier)
      return nullptr;
    llvm::Expected<Entry> entry = add_object(key, entry_symbol, std::move(object), cached);
    if (!entry) {
      std::string why = llvm::toString(entry.takeError());
      if (out_of_memory(why))
        throw_link_failure(name, llvm::createStringError(why)); // the entry is sound
      cache_.reject(key, why);
      return nullptr;
    }
    remember(key, *entry);
    return *entry;
  }

  // The code of `key` some KernelCode still holds, else null. The caller holds mutex_.
  Entry live(const std::string &key) const {
    auto known = entries_.find(key);
    return known != entries_.end() ? known->second.lock() : nullptr;
  }

  // Records `entry` as the best code of `key`, and forgets the keys whose code is gone once
  // they are as many as those alive. The caller holds mutex_.
  void remember(const std::string &key, const Entry &entry) {
    entries_[key] = entry;
    if (entries_.size() < sweep_at_)
      return;
    std::erase_if(entries_, [](const auto &known) { return known.second.expired(); });
    sweep_at_ = std::max<size_t>(1024, 2 * entries_.size());
  }

  static bool out_of_memory(const std::string &why) {
    return why.find(std::strerror(ENOMEM)) != std::string::npos;
  }

  // Throws JitOutOfMemory when the code could not be mapped, else std::runtime_error.
  [[noreturn]] void throw_link_failure(const std::string &name, llvm::Error error) const {
    std::string why = llvm::toString(std::move(error));
    if (!out_of_memory(why))
      throw std::runtime_error("simt: compiling " + name + ": " + why);
    throw out_of_memory_for(name);
  }

public:
  // Why kernel `name` could not be compiled or mapped for want of memory or memory mappings:
  // what is alive and the likely cause. LLVM runs out first (a std::bad_alloc of its own) or the
  // code's mapping fails, whichever allocation meets the limit.
  JitOutOfMemory out_of_memory_for(const std::string &name) const {
    return JitOutOfMemory(
        "simt: out of memory for the code of kernel " + name + " (" + std::strerror(ENOMEM) +
        "): the code of " + std::to_string(alive()) + " kernels is alive, and the process has " +
        memory_maps() +
        ". Likely cause: a program that defines new @cuda.jit kernels again and again (a "
        "function that makes a kernel each call, a kernel defined in a loop) and keeps them "
        "referenced, as each kernel's code stays mapped while its dispatcher lives: define each "
        "kernel once and reuse it, or drop the references to kernels no longer used");
  }

private:
  // "N memory mappings (vm.max_map_count: M)", from /proc.
  static std::string memory_maps() {
    auto lines = [](const char *path) -> std::optional<size_t> {
      std::FILE *file = std::fopen(path, "r");
      if (file == nullptr)
        return std::nullopt;
      size_t count = 0;
      for (int c; (c = std::fgetc(file)) != EOF;)
        count += c == '\n';
      std::fclose(file);
      return count;
    };
    std::string text = "?";
    if (std::optional<size_t> maps = lines("/proc/self/maps"))
      text = std::to_string(*maps);
    text += " memory mappings (vm.max_map_count: ";
    std::FILE *file = std::fopen("/proc/sys/vm/max_map_count", "r");
    long limit = -1;
    if (file != nullptr) {
      if (std::fscanf(file, "%ld", &limit) != 1)
        limit = -1;
      std::fclose(file);
    }
    return text + (limit >= 0 ? std::to_string(limit) : "?") + ")";
  }

  // The locations as the object keeps them: a count, then each one's line, column, file and
  // function (texts as a length and bytes), in native byte order.
  static std::string encode(const std::vector<SourceLocation> &locations) {
    std::string bytes;
    auto number = [&](uint32_t value) { bytes.append(reinterpret_cast<char *>(&value), 4); };
    number(uint32_t(locations.size()));
    for (const SourceLocation &where : locations) {
      number(uint32_t(where.line));
      number(uint32_t(where.col));
      number(uint32_t(where.file.size()));
      bytes += where.file;
      number(uint32_t(where.function.size()));
      bytes += where.function;
    }
    return bytes;
  }

  static std::vector<SourceLocation> decode(const char *bytes) {
    auto number = [&] {
      uint32_t value;
      std::memcpy(&value, bytes, 4);
      bytes += 4;
      return value;
    };
    auto text = [&] {
      const uint32_t size = number();
      std::string value(bytes, size);
      bytes += size;
      return value;
    };
    std::vector<SourceLocation> locations(number());
    for (SourceLocation &where : locations) {
      where.line = int(number());
      where.col = int(number());
      where.file = text();
      where.function = text();
    }
    return locations;
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

  // Links one kernel's object at `tier` into a JITDylib of its own and looks up its entry. On
  // any failure the JITDylib is removed with everything in it, so the kernel can be added again.
  llvm::Expected<Entry> add_object(const std::string &key, const std::string &entry_symbol,
                                   std::unique_ptr<llvm::MemoryBuffer> object, Tier tier) {
    auto code = std::make_shared<LinkedCode>(); // before linking: nothing to undo if it throws
    code->tier = tier;
    // A kernel recompiled at a better tier gets a JITDylib beside its first one, which stays
    // while launches may still be running its code (they hold its KernelCode).
    auto dylib = jit_->createJITDylib("simt." + key + "." + std::to_string(dylibs_++));
    if (!dylib)
      return dylib.takeError();
    dylib->addToLinkOrder(jit_->getMainJITDylib()); // the runtime and the process's symbols
    std::string reported;
    reported_errors = &reported;
    llvm::Error error = jit_->addObjectFile(*dylib, std::move(object));
    if (!error) {
      auto address = jit_->lookup(*dylib, entry_symbol);
      auto locations = jit_->lookup(*dylib, kLocationsSymbol);
      if (address && locations) {
        reported_errors = nullptr;
        code->address = address->toPtr<KernelEntry>();
        code->locations = decode(locations->toPtr<const char *>());
        code->dylib = &*dylib;
        alive_.fetch_add(1, std::memory_order_relaxed);
        return code;
      }
      error = llvm::joinErrors(address ? llvm::Error::success() : address.takeError(),
                               locations ? llvm::Error::success() : locations.takeError());
    }
    reported_errors = nullptr;
    if (!reported.empty()) // the cause first
      error = llvm::joinErrors(llvm::createStringError(reported), std::move(error));
    return llvm::joinErrors(std::move(error), jit_->getExecutionSession().removeJITDylib(*dylib));
  }

  // Optimises `module` for `tier` and compiles it to an object.
  std::unique_ptr<llvm::MemoryBuffer> emit_object(llvm::Module &module, int level, Tier tier) {
    verify(module);
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
    llvm::PassInstrumentationCallbacks instrumentation;
    codegen::skip_passes_once_interrupted(instrumentation);
    llvm::PassBuilder passes((tier == Tier::Quick ? quick_ : full_).target.get(),
                             llvm::PipelineTuningOptions(), std::nullopt, &instrumentation);
    passes.registerModuleAnalyses(mam);
    passes.registerCGSCCAnalyses(cgam);
    passes.registerFunctionAnalyses(fam);
    passes.registerLoopAnalyses(lam);
    passes.crossRegisterProxies(lam, fam, cgam, mam);
    // Bounds checks would keep loops scalar: IRCE splits off a main loop free of them. Its main
    // loop keeps the checks' branches, folded to constants, and their exits: the vectorizer sees
    // a loop of several exits unless they are cleaned away first.
    passes.registerVectorizerStartEPCallback(
        [](llvm::FunctionPassManager &fpm, llvm::OptimizationLevel) {
          fpm.addPass(llvm::IRCEPass());
          fpm.addPass(llvm::SimplifyCFGPass());
          fpm.addPass(llvm::InstCombinePass());
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
      // Locals out of memory: cheap passes whose code runs a few times slower than O3's, for a
      // fraction of its compile time. The kernel's body stays a function its entry calls (once
      // per block, or per thread on fibers): inlining it cost a sixth of a Quick compile. The
      // entry passes the body only values it loads at run time, so inlining folds nothing.
      // InstCombine folds half-precision arithmetic done in float (fneg of a widened half) as
      // O3 does: the tiers' results, NaN payloads included, must agree.
      // InstCombine answers each query on a value from every branch condition on it in the
      // function (its dominating-condition cache): time quadratic in a kernel of thousands of
      // bounds checks on one array's shape, or an `or` chain testing one variable. Large kernels
      // go without it, as they do at the Full tier (the tiers' results still agree).
      if (module.getInstructionCount() > kLargeModuleInstructions)
        parse("function(sroa,early-cse,simplifycfg)");
      else
        parse("function(sroa,early-cse,simplifycfg,instcombine<no-verify-fixpoint>)");
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
    poll_compile_interrupt(); // code of skipped passes is never kept
  }

  Machine quick_; // CodeGenOptLevel::None: the fast instruction selector and register allocator
  Machine full_;  // CodeGenOptLevel::Aggressive
  std::string triple_;
  std::string data_layout_;
  std::string cpu_;
  std::string build_;
  ObjectCache cache_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::mutex mutex_; // guards adding to the JIT, entries_, sweep_at_ and dylibs_
  // By cache key: the best tier this process has, while a KernelCode holds it.
  std::map<std::string, std::weak_ptr<const LinkedCode>> entries_;
  size_t sweep_at_ = 1024; // entries_'s size that has remember() forget the expired ones
  uint64_t dylibs_ = 0;
  std::atomic<size_t> alive_{0};      // LinkedCode holding a JITDylib
  std::atomic<uint64_t> released_{0}; // JITDylibs removed
  // Where the session's reporter puts the errors of the add_object running on this thread.
  static inline thread_local std::string *reported_errors = nullptr;
};

} // namespace

KernelCode jit_compile(const ir::Module &module, Tier tier, UnoptimisedModule *unoptimised,
                       const SimOptions &options) {
  Jit &jit = Jit::instance();
  try {
    return jit.compile(module, tier, unoptimised, options);
  } catch (const JitOutOfMemory &) {
    throw;
  } catch (const std::bad_alloc &) { // LLVM's own allocations met the limit first
    throw jit.out_of_memory_for(module.kernel().python_name);
  }
}

FullCode jit_compile_full(const UnoptimisedModule &kernel) {
  return Jit::instance().compile_full(kernel);
}

size_t jit_kernels_alive() { return Jit::instance().alive(); }

std::string host_llvm_ir(const ir::Module &module, const SimOptions &options) {
  llvm::LLVMContext ctx;
  codegen::LoweredModule lowered = Jit::instance().lower(module, options, ctx);
  std::string text;
  llvm::raw_string_ostream out(text);
  lowered.module->print(out, nullptr);
  return text;
}

} // namespace simt::sim
