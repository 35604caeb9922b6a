#include "sim/host_backend.h"

#include "sim/jit.h"

#include <dlfcn.h>

#include <stdexcept>

namespace simt::sim {

std::unique_ptr<codegen::Executable> HostBackend::compile(const ir::Module &module,
                                                          const std::vector<std::string> &link) {
  for (const std::string &library : link)
    if (dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr)
      throw std::runtime_error("simt: cannot load " + library + ": " + dlerror());
  return std::make_unique<HostExecutable>(jit_compile(module));
}

} // namespace simt::sim
