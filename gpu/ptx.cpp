#include "gpu/ptx.h"

#include "codegen/interruptible_passes.h"
#include "codegen/llvm_errors.h"
#include "codegen/lower.h"
#include "codegen/symbol_name.h"
#include "config/settings.h"
#include "gpu/device_heap.h"
#include "gpu/numba_names.h"
#include "gpu/nvptx_target.h"
#include "gpu/ptxas_workarounds.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

namespace simt::gpu {

namespace {

constexpr const char *triple = "nvptx64-nvidia-cuda";

// The compute capability of "sm_75" or "sm_90a" as 75 or 90.
int sm_number(const std::string &cc) {
  int number = 0;
  for (size_t i = 3; i < cc.size() && std::isdigit(static_cast<unsigned char>(cc[i])); ++i)
    number = number * 10 + (cc[i] - '0');
  return number;
}

// PTX ISA 6.3 at least (LLVM's default for sm_75; nanosleep and activemask need it), 7.5 for
// DWARF (labels in .section); newer architectures get the version they require by default.
std::string ptx_features(const std::string &cc, DebugInfo debug_info) {
  if (debug_info == DebugInfo::Full && sm_number(cc) < 89)
    return "+ptx75";
  return sm_number(cc) < 75 ? "+ptx63" : "";
}

std::unique_ptr<llvm::TargetMachine> target_machine(const std::string &cc, bool fastmath,
                                                    DebugInfo debug_info) {
  static std::once_flag initialised;
  std::call_once(initialised, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (target == nullptr)
    throw std::runtime_error("simt: LLVM's NVPTX target is missing: " + error);
  llvm::TargetOptions target_options;
  target_options.AllowFPOpFusion = llvm::FPOpFusion::Fast; // fma contraction, as NVVM and nvcc
  if (fastmath) {
    target_options.UnsafeFPMath = true;
    target_options.NoInfsFPMath = true;
    target_options.NoNaNsFPMath = true;
  }
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cc, ptx_features(cc, debug_info), target_options, std::nullopt));
  if (machine == nullptr)
    throw std::runtime_error("simt: LLVM cannot compile for " + cc);
  return machine;
}

// What the NVPTX backend reads to select approximate division and square root (unsafe-fp-math)
// and flush-to-zero float32 instructions (denormal-fp-math-f32).
void allow_fast_math(llvm::Function &fn) {
  for (const char *flag : {"unsafe-fp-math", "approx-func-fp-math", "no-infs-fp-math",
                           "no-nans-fp-math", "no-signed-zeros-fp-math"})
    fn.addFnAttr(flag, "true");
  fn.addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
}

std::string libdevice_path() {
  if (const char *path = config::raw(config::Setting::SIMT_LIBDEVICE))
    return path;
  const char *home = std::getenv("CUDA_HOME");
  return std::string(home ? home : "/usr/local/cuda") + "/nvvm/libdevice/libdevice.10.bc";
}

bool calls_libdevice(const llvm::Module &module) {
  for (const llvm::Function &fn : module)
    if (fn.isDeclaration() && fn.getName().starts_with("__nv_"))
      return true;
  return false;
}

// Links the libdevice functions `module` calls (only those), internalised.
void link_libdevice(llvm::Module &module) {
  const std::string path = libdevice_path();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    throw std::runtime_error("simt: the kernel calls math functions, which need CUDA's libdevice, "
                             "and " +
                             path + " cannot be read (set SIMT_LIBDEVICE or CUDA_HOME)");
  // Lazily: the linker materialises the bodies of the functions the module needs, not all ~500.
  auto libdevice = llvm::getOwningLazyBitcodeModule(std::move(*buffer), module.getContext());
  if (!libdevice)
    throw std::runtime_error("simt: " + path +
                             " is not LLVM bitcode: " + llvm::toString(libdevice.takeError()));
  (*libdevice)->setTargetTriple(module.getTargetTriple());
  (*libdevice)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(*libdevice), llvm::Linker::LinkOnlyNeeded))
    throw std::runtime_error("simt: linking libdevice failed");
}

// Every LLVM object one compile makes: after an LLVM fatal error all of them are leaked, none
// destroyed (codegen/llvm_errors.h says why). Members go in reverse order: the pass managers
// before the module, the module before its context.
struct PtxJob {
  std::unique_ptr<llvm::TargetMachine> machine;
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> module;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassInstrumentationCallbacks instrumentation; // Ctrl-C skips the remaining passes
  std::optional<llvm::PassBuilder> passes;
  llvm::ModulePassManager pipeline;
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream ptx_out{ptx};
  llvm::legacy::PassManager emit;
};

void optimise(PtxJob &job, const std::string &entry, bool opt) {
  // Everything but the kernel's entry is internal, so unused libdevice code goes away.
  for (llvm::Function &fn : *job.module)
    if (!fn.isDeclaration() && fn.getName() != entry && fn.getName() != free_arrays_entry(entry))
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
  // NVVMReflect must run even unoptimised: libdevice branches on __nvvm_reflect.
  codegen::skip_passes_once_interrupted(job.instrumentation);
  llvm::PassBuilder &passes = job.passes.emplace(job.machine.get(), llvm::PipelineTuningOptions(),
                                                 std::nullopt, &job.instrumentation);
  // (NVPTX adds NVVMReflect.)
  passes.registerModuleAnalyses(job.mam);
  passes.registerCGSCCAnalyses(job.cgam);
  passes.registerFunctionAnalyses(job.fam);
  passes.registerLoopAnalyses(job.lam);
  passes.crossRegisterProxies(job.lam, job.fam, job.cgam, job.mam);
  job.pipeline = opt ? passes.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
                     : passes.buildO0DefaultPipeline(llvm::OptimizationLevel::O0);
  job.pipeline.run(*job.module, job.mam);
  poll_compile_interrupt(); // before code generation, outside LLVM's frames
}

// A value of no bits: a thread group (an empty struct), or an aggregate of such.
bool is_empty(const llvm::Type *type) {
  if (const auto *s = llvm::dyn_cast<llvm::StructType>(type))
    return llvm::all_of(s->elements(), is_empty);
  if (const auto *a = llvm::dyn_cast<llvm::ArrayType>(type))
    return a->getNumElements() == 0 || is_empty(a->getElementType());
  return false;
}

bool has_empty_signature(const llvm::FunctionType *type) {
  return is_empty(type->getReturnType()) || llvm::any_of(type->params(), is_empty);
}

// PTX has no parameter or result of no bits (LLVM 19's NVPTX backend aborts: "Empty parameter
// types are not supported"), so a device function taking or returning a thread group is always
// inlined, at -O0 too (device functions are never recursive: the frontend refuses that).
void inline_empty_signatures(llvm::Module &module) {
  for (llvm::Function &fn : module)
    if (!fn.isDeclaration() && has_empty_signature(fn.getFunctionType())) {
      fn.removeFnAttr(llvm::Attribute::NoInline);
      fn.removeFnAttr(llvm::Attribute::OptimizeNone);
      fn.addFnAttr(llvm::Attribute::AlwaysInline);
    }
}

// LLVM aborts the process when instruction selection fails; what LLVM 19's NVPTX backend is known
// not to select is refused here instead, with the function it is in.
void check_selectable(const llvm::Module &module) {
  auto refuse = [](const llvm::Function &fn, const std::string &what) {
    throw std::runtime_error("simt: internal error: " + fn.getName().str() + " " + what +
                             ", which LLVM 19's NVPTX backend cannot compile");
  };
  for (const llvm::Function &fn : module) {
    if (!fn.isDeclaration() && has_empty_signature(fn.getFunctionType()))
      refuse(fn, "takes or returns a value of no bits");
    for (const llvm::BasicBlock &block : fn)
      for (const llvm::Instruction &instruction : block) {
        const auto *call = llvm::dyn_cast<llvm::CallBase>(&instruction);
        if (call == nullptr)
          continue;
        if (has_empty_signature(call->getFunctionType()))
          refuse(fn, "passes or receives a value of no bits in a call");
        if (call->getIntrinsicID() == llvm::Intrinsic::stacksave ||
            call->getIntrinsicID() == llvm::Intrinsic::stackrestore)
          refuse(fn, "saves and restores the stack (a dynamic alloca)");
      }
  }
}

std::string emit_ptx(PtxJob &job) {
  check_selectable(*job.module);
  if (job.machine->addPassesToEmitFile(job.emit, job.ptx_out, nullptr,
                                       llvm::CodeGenFileType::AssemblyFile))
    throw std::runtime_error("simt: LLVM cannot emit PTX");
  job.emit.run(*job.module);
  return avoid_ptxas_miscompiles(std::string(job.ptx.str()));
}

// What compile_ptx refuses before LLVM sees it: names PTX cannot spell that the user chose, so
// that simt must not change them (LLVM's NVPTX backend would end the process).
void check_names(const ir::Module &module, const EntryAbi &abi) {
  auto refuse = [](const std::string &what, const std::string &name) {
    throw std::invalid_argument("simt: " + what + " '" + name +
                                "' is not a PTX identifier (letters, digits, '_' and '$', not "
                                "starting with a digit; '_' or '$' alone is none)");
  };
  if (!abi.name.empty() && !codegen::is_symbol_name(abi.name))
    refuse("abi_info's abi_name", abi.name);
  for (const ExternFunction &fn : module.externs)
    if (!codegen::is_symbol_name(fn.name))
      refuse("the external device function (cuda.declare_device)", fn.name);
}

// "compiling kernel 'k' (k.py:3) for sm_75", for LLVM's fatal errors.
std::string task_name(const ir::Module &module, const PtxOptions &options) {
  const ir::Function &f = module.kernel();
  return std::string("compiling ") + (options.abi.device ? "device function" : "kernel") + " '" +
         f.python_name + "' (" + f.file + ":" + std::to_string(f.first_line) + ") for " +
         options.cc;
}

CompiledPtx compile(PtxJob &job, const ir::Module &module, const PtxOptions &options) {
  const bool fastmath = module.options.fastmath;
  job.machine = target_machine(options.cc, fastmath, module.options.debug_info);
  EntryAbi abi = options.abi;
  if (abi.name.empty())
    abi.name = codegen::symbol_name(module.kernel().python_name);
  NvptxTarget target(job.machine->createDataLayout().getStringRepresentation(),
                     module.static_shared_bytes, abi, fastmath, sm_number(options.cc));
  codegen::LoweredModule lowered = codegen::lower(module, target, job.ctx, "simt_");
  job.module = std::move(lowered.module);
  llvm::Module &m = *job.module;
  m.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", fastmath ? 1 : 0);
  if (calls_libdevice(m))
    link_libdevice(m);
  if (fastmath)
    for (llvm::Function &fn : m)
      if (!fn.isDeclaration())
        allow_fast_math(fn);
  std::string problems;
  llvm::raw_string_ostream errors(problems);
  if (llvm::verifyModule(m, &errors))
    throw std::runtime_error("simt: LLVM rejected the NVPTX kernel: " + problems);
  inline_empty_signatures(m);
  optimise(job, abi.name, options.opt);
  CompiledPtx compiled{"", abi.name, std::move(lowered.locations), target.raised(), "", ""};
  if (m.getFunction(free_arrays_entry(abi.name)))
    compiled.free_arrays = free_arrays_entry(abi.name);
  if (options.llvm_ir) {
    restore_local_array_names(m);
    std::string printed;
    llvm::raw_string_ostream text(printed);
    m.print(text, nullptr);
    compiled.llvm_ir = quote_array_names(text.str());
  }
  compiled.ptx = emit_ptx(job);
  return compiled;
}

// work(job) as a recoverable LlvmTask `what`: after an LLVM fatal error in it, the job's LLVM
// objects are leaked (PtxJob) and the error goes on as LlvmFatalError (or std::bad_alloc).
template <class Work> auto recoverably(const std::string &what, Work work) {
  auto job = std::make_unique<PtxJob>();
  codegen::LlvmTask task(what, /*recoverable=*/true);
  try {
    return work(*job);
  } catch (...) {
    if (task.failed())
      (void)job.release();
    throw;
  }
}

} // namespace

CompiledPtx compile_ptx(const ir::Module &module, const PtxOptions &options) {
  if (module.options.instrumentation != Instrumentation::None)
    throw std::runtime_error("simt: the debugger's instrumentation is not available on the GPU");
  check_names(module, options.abi);
  return recoverably(task_name(module, options),
                     [&](PtxJob &job) { return compile(job, module, options); });
}

std::string empty_function_ptx_for_tests(const std::string &name, const std::string &cc) {
  return recoverably("compiling kernel '" + name + "' for simt's tests", [&](PtxJob &job) {
    job.machine = target_machine(cc, false, DebugInfo::None);
    job.module = std::make_unique<llvm::Module>("simt_test", job.ctx);
    job.module->setDataLayout(job.machine->createDataLayout());
    job.module->setTargetTriple(triple);
    auto *fn =
        llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(job.ctx), false),
                               llvm::GlobalValue::ExternalLinkage, name, *job.module);
    llvm::ReturnInst::Create(job.ctx, llvm::BasicBlock::Create(job.ctx, "entry", fn));
    optimise(job, name, true);
    return emit_ptx(job);
  });
}

} // namespace simt::gpu
