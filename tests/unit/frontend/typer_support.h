// What the frontend's typer tests share: a table of global names, compiling a kernel from text,
// reading a slot's type, the text of the CompileError a kernel raises, and a stack as large as
// the one simt compiles on.
#pragma once

#include "frontend/compile.h"

#include <doctest/doctest.h>

#include <pthread.h>

#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace simt::test {

// The globals a test kernel sees; every other name is unknown.
class NameTable : public Resolver {
public:
  NameTable &module(const std::string &name, const std::string &module_name) {
    GlobalValue g;
    g.kind = GlobalValue::Kind::Module;
    g.module_name = module_name;
    names[name] = std::move(g);
    return *this;
  }
  GlobalValue resolve(const std::string &name) override {
    auto it = names.find(name);
    return it == names.end() ? GlobalValue{} : it->second;
  }
  std::map<std::string, GlobalValue> names;
};

// `text` ("def NAME(...):\n...") as a kernel source in k.py resolving names through `resolver`.
inline FunctionSource kernel_source(const std::string &text, std::shared_ptr<Resolver> resolver) {
  FunctionSource src;
  const size_t start = text.find("def ") + 4;
  src.name = text.substr(start, text.find('(', start) - start);
  src.source = text;
  src.file = "k.py";
  src.first_line = 1;
  src.resolver = std::move(resolver);
  src.identity = std::hash<std::string>()(text);
  return src;
}

inline ir::Module compile_text(const std::string &text, const std::string &signature,
                               std::shared_ptr<Resolver> resolver,
                               const CompileOptions &options = {}) {
  return compile_kernel(kernel_source(text, std::move(resolver)), parse_signature(signature),
                        options);
}

// The globals most test kernels see: `cuda` (numba.cuda) and `numba`.
inline std::shared_ptr<NameTable> cuda_names() {
  auto names = std::make_shared<NameTable>();
  names->module("cuda", "numba.cuda").module("numba", "numba");
  return names;
}

// `text` compiled for `signature` with cuda_names() as its globals.
inline ir::Module compile_cuda_kernel(const std::string &text,
                                      const std::string &signature = "(float64[::1])") {
  return compile_text(text, signature, cuda_names());
}

inline Type slot_type(const ir::Function &fn, const std::string &name) {
  for (const ir::Slot &s : fn.slots)
    if (s.name == name)
      return s.type;
  FAIL("no slot " << name);
  return {};
}

// "line:col: message" of the CompileError `compile` throws, or "no error".
template <typename Compile> std::string error_text(Compile &&compile) {
  try {
    compile();
  } catch (const CompileError &e) {
    return std::to_string(e.line) + ":" + std::to_string(e.col) + ": " + e.message;
  }
  return "no error";
}

// Runs `work` on a thread with a stack as large as the one pybind compiles on (64 MiB,
// pybind/own_stack.cpp), rethrowing what it throws: compiling the deepest programs simt takes
// needs more than the 8 MiB of a main thread (about 6 KiB a level of device-function calls).
template <typename Work> void on_compile_stack(Work &&work) {
  struct Call {
    Work &work;
    std::exception_ptr failure;
  } call{work, nullptr};
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, size_t(64) << 20);
  pthread_t thread;
  const int failed = pthread_create(
      &thread, &attributes,
      [](void *argument) -> void * {
        Call &c = *static_cast<Call *>(argument);
        try {
          c.work();
        } catch (...) {
          c.failure = std::current_exception();
        }
        return nullptr;
      },
      &call);
  pthread_attr_destroy(&attributes);
  if (failed)
    throw std::runtime_error("cannot start a thread for the compile");
  pthread_join(thread, nullptr);
  if (call.failure)
    std::rethrow_exception(call.failure);
}

} // namespace simt::test
