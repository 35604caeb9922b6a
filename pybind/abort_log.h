// A native backtrace of a crash for the record: test runners capture standard error, and a
// process that aborts loses what was printed there (an escaping C++ exception's "terminate
// called after ...", an LLVM fatal error); a segmentation fault prints nothing at all. Where
// SIMT_CRASH_LOG names a file, a SIGABRT or a SIGSEGV appends the thread's backtrace to it, then
// the signal goes on as before (Python's faulthandler, then the default action). CI prints the file
// when it fails (.ci/run).
#pragma once

namespace simt::bindings {

// At the module's import; nothing without SIMT_CRASH_LOG.
void install_abort_log();

} // namespace simt::bindings
