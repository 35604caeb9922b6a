#include "pybind/fatal_error.h"

#include "codegen/llvm_errors.h"
#include "gpu/ptx.h"

#include <llvm/Support/ErrorHandling.h>

#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

namespace py = pybind11;

namespace simt::bindings {

namespace {

// LLVM calls these on any thread; what they do depends on the thread's LlvmTask.
void on_fatal_error(void *, const char *reason, bool) { codegen::on_llvm_fatal_error(reason); }
void on_bad_alloc(void *, const char *reason, bool) { codegen::on_llvm_bad_alloc(reason); }

// The test hook: LLVM's fatal errors as simt meets them. `how`:
//   "ptx": an empty function named `text` through the NVPTX backend, as compile_ptx compiles (a
//          name PTX cannot spell is LLVM's fatal error, recovered from): its PTX;
//   "recoverable", "task", "none": report_fatal_error(text) in a recoverable task, in a task
//          that is not, in none (the last two end the process);
//   "bad_alloc", "bad_alloc_recoverable": report_bad_alloc_error(text) outside / in a recoverable
//          task.
std::string fatal_error_for_tests(const std::string &how, const std::string &text) {
  if (how == "ptx")
    return gpu::empty_function_ptx_for_tests(text, "sm_75");
  const bool recoverable = how == "recoverable" || how == "bad_alloc_recoverable";
  const bool in_task = recoverable || how == "task";
  if (!in_task && how != "none" && how != "bad_alloc")
    throw std::invalid_argument("simt: unknown fatal error '" + how + "'");
  std::optional<codegen::LlvmTask> task;
  if (in_task)
    task.emplace("compiling kernel 'k' (k.py:1) for simt's tests", recoverable);
  if (how.starts_with("bad_alloc"))
    llvm::report_bad_alloc_error(text.c_str());
  llvm::report_fatal_error(llvm::Twine(text), /*gen_crash_diag=*/false);
}

} // namespace

void install_fatal_error_handler(py::module_ &m) {
  static std::once_flag installed;
  std::call_once(installed, [] {
    llvm::install_fatal_error_handler(on_fatal_error);
    llvm::install_bad_alloc_error_handler(on_bad_alloc);
  });
  m.def("_llvm_fatal_error_for_tests", &fatal_error_for_tests, py::arg("how"), py::arg("text"),
        "Tests only: provokes an LLVM fatal error (pybind/fatal_error.cpp says how).");
}

} // namespace simt::bindings
