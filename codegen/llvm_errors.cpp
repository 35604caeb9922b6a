#include "codegen/llvm_errors.h"

#include <llvm/Support/PrettyStackTrace.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <unistd.h>

namespace simt::codegen {

namespace {

thread_local LlvmTask *innermost = nullptr;

void write_stderr(const char *text) {
  size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t written = ::write(2, text, left);
    if (written <= 0)
      return;
    text += written;
    left -= size_t(written);
  }
}

} // namespace

LlvmTask::LlvmTask(std::string what, bool recoverable)
    : what_(std::move(what)), recoverable_(recoverable),
      pretty_stack_(llvm::SavePrettyStackState()), outer_(innermost) {
  innermost = this;
}

LlvmTask::~LlvmTask() { innermost = outer_; }

LlvmTask *LlvmTask::current() { return innermost; }

void on_llvm_fatal_error(const char *reason) {
  LlvmTask *task = innermost;
  if (task != nullptr && task->recoverable_) {
    task->failed_ = true;
    // The entries of the frames the exception skips would dangle (CrashRecoveryContext does so).
    llvm::RestorePrettyStackState(task->pretty_stack_);
    throw LlvmFatalError("simt: LLVM failed while " + task->what_ + ": " + reason);
  }
  std::string message = "simt: LLVM fatal error";
  if (task != nullptr)
    message += " while " + task->what_;
  message += std::string(": ") + reason + "; the process cannot continue\n";
  write_stderr(message.c_str());
}

void on_llvm_bad_alloc(const char *reason) {
  LlvmTask *task = innermost;
  if (task != nullptr && task->recoverable_) {
    task->failed_ = true;
    llvm::RestorePrettyStackState(task->pretty_stack_);
    throw std::bad_alloc(); // its exception object comes from the runtime's emergency pool
  }
  write_stderr("simt: LLVM ran out of memory (");
  write_stderr(reason);
  if (task != nullptr) {
    write_stderr(") while ");
    write_stderr(task->what_.c_str());
  } else {
    write_stderr(")");
  }
  write_stderr("; the process cannot continue\n");
  std::abort();
}

} // namespace simt::codegen
