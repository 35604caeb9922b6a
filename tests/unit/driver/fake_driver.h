// Shared by the driver-layer tests: the fake driver (tests/unit/fake_libcuda.cpp), chosen as the
// process's driver before any test asks for one, and its test-only entry points.
#pragma once

#include "fake_libcuda.h"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace fake {

inline void *library() {
  static void *handle = [] {
    // The driver layer opens the same file, so both share the fake's state.
    setenv("SIMT_LIBCUDA", SIMT_FAKE_LIBCUDA, 1);
    void *h = dlopen(SIMT_FAKE_LIBCUDA, RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr)
      throw std::runtime_error(std::string("cannot load the fake driver: ") + dlerror());
    return h;
  }();
  return handle;
}

template <class F> F entry(const char *name) {
  void *address = dlsym(library(), name);
  if (address == nullptr)
    throw std::runtime_error(std::string("the fake driver lacks ") + name);
  return reinterpret_cast<F>(address);
}

inline const FakeLaunch *last_launch() { return entry<FakeLastLaunch>("fake_cuda_last_launch")(); }
inline long live_allocations() {
  return entry<FakeLiveAllocations>("fake_cuda_live_allocations")();
}
inline void reset() { entry<FakeReset>("fake_cuda_reset")(); }
inline bool allocation_of(uint64_t address, uint64_t *base, uint64_t *size) {
  return entry<FakeAllocationOf>("fake_cuda_allocation_of")(address, base, size);
}
inline int shared_opt_ins(int *last_value) {
  return entry<FakeSharedOptIn>("fake_cuda_shared_opt_in")(last_value);
}

// PTX text with one `.entry name(...)` taking parameters of these PTX types (".u64", ".u8" ...),
// and the simt_exception global when `exception_record`.
inline std::string ptx(const std::string &name, const std::vector<std::string> &types,
                       bool exception_record = true) {
  std::string text = ".version 8.5\n.target sm_90\n.address_size 64\n";
  if (exception_record)
    text += ".visible .global .align 4 .b8 simt_exception[32];\n";
  text += ".visible .entry " + name + "(\n";
  for (size_t i = 0; i < types.size(); ++i)
    text += "\t.param " + types[i] + " " + name + "_param_" + std::to_string(i) +
            (i + 1 < types.size() ? ",\n" : "\n");
  text += ")\n{\n\tret;\n}\n";
  return text;
}

// The PTX parameter types of an ndim-dimensional array in Numba's ABI.
inline std::vector<std::string> array_params(int ndim) {
  return std::vector<std::string>(size_t(5 + 2 * ndim), ".u64");
}

} // namespace fake
