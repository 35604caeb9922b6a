#include "pybind/abort_log.h"

#include "config/settings.h"
#include "sim/chained_signal.h"

#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

namespace simt::bindings {

namespace {

char log_path[4096];

void log_crash(int signal, siginfo_t *info, void *context);

// The signals logged. SIGSEGV's: installed at import, so that the fiber stacks' handler
// (sim/stack_pool.cpp), installed at the first launch, chains to it only for faults it does not
// recover from.
sim::ChainedSignalHandler crash_handlers[] = {
    {SIGABRT, log_crash, /*replace_default=*/true, std::chrono::milliseconds(0)},
    {SIGSEGV, log_crash, /*replace_default=*/true, std::chrono::milliseconds(0)},
};

// What follows runs in a signal handler: write(2) and digits by hand, no allocation.
void write_text(int fd, const char *text) {
  const ssize_t written = write(fd, text, std::strlen(text));
  (void)written;
}

void write_number(int fd, long value) {
  char digits[24];
  char *end = digits + sizeof digits - 1;
  *end = '\0';
  char *at = end;
  do {
    *--at = char('0' + value % 10);
    value /= 10;
  } while (value > 0 && at > digits);
  write_text(fd, at);
}

void log_crash(int signal, siginfo_t *info, void *context) {
  const int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd >= 0) {
    write_text(fd, signal == SIGABRT ? "simt: SIGABRT in process " : "simt: SIGSEGV in process ");
    write_number(fd, long(getpid()));
    write_text(fd, ", thread ");
    write_number(fd, long(syscall(SYS_gettid)));
    write_text(fd, "; its native backtrace:\n");
    void *frames[128];
    backtrace_symbols_fd(frames, backtrace(frames, 128), fd);
    close(fd);
  }
  const sim::ChainedSignalHandler &handler = crash_handlers[signal == SIGABRT ? 0 : 1];
  if (!handler.call_replaced(signal, info, context)) {
    ::signal(signal, SIG_DFL);
    raise(signal);
  }
}

} // namespace

void install_abort_log() {
  const char *path = config::raw(config::Setting::SIMT_CRASH_LOG);
  if (path == nullptr || *path == '\0' || std::strlen(path) >= sizeof log_path)
    return;
  std::strcpy(log_path, path);
  void *frame[1];
  backtrace(frame, 1); // loads the unwinder now, not in the handler
  for (sim::ChainedSignalHandler &handler : crash_handlers)
    handler.ensure_installed();
}

} // namespace simt::bindings
