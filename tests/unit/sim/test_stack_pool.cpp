// Fiber stacks (sim/stack_pool.*): slabs, guard pages, the budget, and a stack overflow turned
// into a message naming the thread.
#include "sim/abi.h"
#include "sim/launch.h"
#include "sim/local_frame.h"
#include "sim/stack_pool.h"

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace simt::sim;
namespace ir = simt::ir;
using simt::Scalar;

namespace {

// True when reading `address` faults (checked in a child process).
bool read_faults(const char *address) {
  const pid_t child = fork();
  if (child == 0) {
    std::signal(SIGSEGV, SIG_DFL); // not doctest's handler, which reports a crashed test case
    volatile char value = *address;
    (void)value;
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

} // namespace

TEST_CASE("stacks come in slabs, each stack with a guard page below it") {
  StackPool &pool = StackPool::instance();
  const size_t size = StackPool::stack_size_for(0);
  const size_t slabs = pool.slab_count();
  std::vector<Stack> stacks = pool.take(200, size);
  CHECK(pool.slab_count() <= slabs + 1); // 200 stacks: at most one new mapping
  for (const Stack &stack : stacks) {
    CHECK(stack.size == size);
    stack.top()[-1] = 1; // usable up to the top
    stack.bottom[0] = 1; // and down to the bottom
  }
  CHECK(read_faults(stacks.front().bottom - 1));
  CHECK(read_faults(stacks.back().bottom - 1));
  pool.give_back(stacks);
  CHECK(stacks.empty());
}

TEST_CASE("stack sizes grow with the local frame in 64 KiB steps") {
  CHECK(StackPool::stack_size_for(0) == StackPool::base_stack_size);
  CHECK(StackPool::stack_size_for(1) == StackPool::base_stack_size + 64 * 1024);
  CHECK(StackPool::stack_size_for(512 * 1024) == StackPool::base_stack_size + 512 * 1024);
}

TEST_CASE("a launch takes as many workers as the budget allows, and one that cannot fit is "
          "refused") {
  StackPool &pool = StackPool::instance();
  const size_t size = StackPool::stack_size_for(0);
  {
    StackPool::Reservation all = pool.reserve(1024, size, 1, 1000, "a test");
    CHECK(all.workers() == StackPool::budget_stacks() / 1024);
  }
  const size_t huge = size_t(16) << 20;
  try {
    pool.reserve(1024, huge, 1, 4, "a launch of kernel k");
    FAIL("expected std::invalid_argument");
  } catch (const std::invalid_argument &e) {
    CHECK(
        std::string(e.what()) ==
        "simt: a launch of kernel k needs 1024 fiber stacks of 16384 KiB at once (16384 MiB), "
        "more than the " +
            std::to_string(StackPool::budget_stacks()) +
            " stacks and 8192 MiB simt allows (see Limits in docs/user-guide.md: fewer threads or "
            "smaller local arrays)");
  }
}

TEST_CASE("the local frame is a kernel's arrays plus its deepest call chain's") {
  ir::Module module;
  module.functions.resize(3);
  module.functions[0].local_arrays.push_back({Scalar::F64, {10}});   // 80 bytes
  module.functions[1].local_arrays.push_back({Scalar::I32, {4, 5}}); // 80 bytes
  module.functions[2].local_arrays.push_back({Scalar::I8, {1000}});  // 1000 bytes
  auto call = [](int callee) {
    ir::ExprPtr e = std::make_unique<ir::Expr>();
    e->kind = ir::ExprKind::Call;
    e->index = callee;
    ir::Stmt s;
    s.kind = ir::StmtKind::Eval;
    s.exprs.push_back(std::move(e));
    return s;
  };
  // 0 calls 1 and 2; 1 calls 2 inside an if: the chain 0 -> 1 -> 2 is the deepest.
  module.functions[0].body.push_back(call(1));
  module.functions[0].body.push_back(call(2));
  ir::Stmt branch;
  branch.kind = ir::StmtKind::If;
  branch.body.push_back(call(2));
  module.functions[1].body.push_back(std::move(branch));
  CHECK(local_frame_bytes(module) == 80 + 80 + 1000);
}

namespace {

// Deeper than any stack: recurse() runs until the fiber's stack runs out.
volatile int64_t depth_limit = int64_t(1) << 40;

[[gnu::noinline]] int64_t recurse(volatile char *previous, int64_t depth) {
  if (depth > depth_limit)
    return 0;
  volatile char frame[512];
  frame[0] = char(depth);
  frame[511] = previous != nullptr ? previous[0] : 0;
  return recurse(frame, depth + 1) + frame[511];
}

void overflowing_thread(void **, ThreadContext *ctx) {
  if (ctx->tid[0] == 5)
    recurse(nullptr, 0);
  simt_rt_syncthreads(ctx, 0);
}

} // namespace

TEST_CASE("a stack overflow hits the guard page and is a fault of its thread") {
  // In a child: were the overflow not caught, it would end the process.
  const pid_t child = fork();
  if (child == 0) {
    std::signal(SIGSEGV, SIG_DFL); // simt's handler chains to this, not to doctest's
    KernelCode code;
    code.name = "deep";
    code.thread_entry = overflowing_thread;
    for (int launch_number = 0; launch_number < 3; ++launch_number) {
      const std::optional<Fault> fault =
          launch(code, LaunchConfig{{3, 1, 1}, {8, 1, 1}, 0}, nullptr);
      if (!fault || fault->exception != "RecursionError" || fault->tid.x != 5 ||
          fault->message.find("stack overflow in kernel deep") == std::string::npos ||
          fault->message.find("stack of 256 KiB is exhausted") == std::string::npos)
        _exit(1);
    }
    // The process goes on: the next launch, with no overflow, runs to the end.
    depth_limit = 10;
    _exit(launch(code, LaunchConfig{{3, 1, 1}, {8, 1, 1}, 0}, nullptr) ? 2 : 0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
