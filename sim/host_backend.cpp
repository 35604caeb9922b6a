#include "sim/host_backend.h"

#include "sim/jit.h"

namespace simt::sim {

std::unique_ptr<codegen::Executable> HostBackend::compile(const ir::Module &module) {
  return std::make_unique<HostExecutable>(jit_compile(module));
}

} // namespace simt::sim
