#include "gpu/ptx.h"

#include "codegen/lower.h"
#include "gpu/nvptx_target.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace simt::gpu {

namespace {

constexpr const char *triple = "nvptx64-nvidia-cuda";

std::unique_ptr<llvm::TargetMachine> target_machine(const PtxOptions &options) {
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
  if (options.fastmath) {
    target_options.UnsafeFPMath = true;
    target_options.NoInfsFPMath = true;
    target_options.NoNaNsFPMath = true;
  }
  std::unique_ptr<llvm::TargetMachine> machine(
      target->createTargetMachine(triple, options.cc, "", target_options, std::nullopt));
  if (machine == nullptr)
    throw std::runtime_error("simt: LLVM cannot compile for " + options.cc);
  return machine;
}

std::string libdevice_path() {
  if (const char *path = std::getenv("SIMT_LIBDEVICE"))
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
  auto libdevice = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), module.getContext());
  if (!libdevice)
    throw std::runtime_error("simt: " + path +
                             " is not LLVM bitcode: " + llvm::toString(libdevice.takeError()));
  (*libdevice)->setTargetTriple(module.getTargetTriple());
  (*libdevice)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(*libdevice), llvm::Linker::LinkOnlyNeeded))
    throw std::runtime_error("simt: linking libdevice failed");
}

void optimise(llvm::Module &module, llvm::TargetMachine &machine, const std::string &entry) {
  // Everything but the kernel's entry is internal, so unused libdevice code goes away.
  for (llvm::Function &fn : module)
    if (!fn.isDeclaration() && fn.getName() != entry)
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder passes(&machine); // NVPTX adds NVVMReflect and its address-space passes
  passes.registerModuleAnalyses(mam);
  passes.registerCGSCCAnalyses(cgam);
  passes.registerFunctionAnalyses(fam);
  passes.registerLoopAnalyses(lam);
  passes.crossRegisterProxies(lam, fam, cgam, mam);
  passes.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
}

std::string emit_ptx(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream out(text);
  llvm::legacy::PassManager emit;
  if (machine.addPassesToEmitFile(emit, out, nullptr, llvm::CodeGenFileType::AssemblyFile))
    throw std::runtime_error("simt: LLVM cannot emit PTX");
  emit.run(module);
  return std::string(text.str());
}

} // namespace

std::string compile_ptx(const ir::Module &module, const PtxOptions &options,
                        std::string *entry_name) {
  if (module.options.instrumentation != Instrumentation::None)
    throw std::runtime_error("simt: the debugger's instrumentation is not available on the GPU");
  std::unique_ptr<llvm::TargetMachine> machine = target_machine(options);
  llvm::LLVMContext ctx;
  NvptxTarget target(machine->createDataLayout().getStringRepresentation(),
                     module.static_shared_bytes);
  codegen::LoweredModule lowered = codegen::lower(module, target, ctx, "simt_");
  llvm::Module &m = *lowered.module;
  m.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", options.fastmath ? 1 : 0);
  if (calls_libdevice(m))
    link_libdevice(m);
  std::string problems;
  llvm::raw_string_ostream errors(problems);
  if (llvm::verifyModule(m, &errors))
    throw std::runtime_error("simt: LLVM rejected the NVPTX kernel: " + problems);
  const std::string entry = module.kernel().python_name;
  optimise(m, *machine, entry);
  if (entry_name != nullptr)
    *entry_name = entry;
  return emit_ptx(m, *machine);
}

} // namespace simt::gpu
