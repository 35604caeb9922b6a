// The fission plan (analysis/fission.h): which kernels with barriers run region by region,
// which locals are block-level, which a thread keeps across regions, and why others keep fibers.
#include "analysis/fission.h"
#include "tests/unit/frontend/typer_support.h"

#include <doctest/doctest.h>

using namespace simt;

namespace {

ir::Module compile(const std::string &text, const std::string &signature) {
  return test::compile_cuda_kernel(text, signature);
}

int slot(const ir::Function &fn, const std::string &name) {
  for (size_t i = 0; i < fn.slots.size(); ++i)
    if (fn.slots[i].name == name)
      return int(i);
  FAIL("no slot " << name);
  return -1;
}

const char *const kTreeSum = R"(def k(values, partials):
    sh = cuda.shared.array(64, values.dtype)
    tid = cuda.threadIdx.x
    sh[tid] = values[cuda.grid(1)]
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        partials[cuda.blockIdx.x] = sh[0]
)";

} // namespace

TEST_CASE("a tree reduction fissions: its stride is block-level, its thread index recomputed") {
  ir::Module m = compile(kTreeSum, "(float32[:], float32[:])");
  ir::FissionPlan plan = ir::plan_fission(m);
  REQUIRE(plan.fissionable());
  const ir::Function &k = m.kernel();
  CHECK(plan.block_level_slots[size_t(slot(k, "s"))]);
  CHECK(plan.block_level_slots[size_t(slot(k, "sh"))]);
  CHECK_FALSE(plan.block_level_slots[size_t(slot(k, "tid"))]);
  CHECK(plan.recomputed[size_t(slot(k, "tid"))] != nullptr);
  CHECK_FALSE(plan.per_thread_slots[size_t(slot(k, "tid"))]);
  CHECK_FALSE(plan.threads_return);
  // The kernel's top level: store, barrier, stride, loop, store; the while runs once per block.
  CHECK(plan.block_level.count(&k.body[3]) == 1); // syncthreads
  size_t loops = 0;
  for (const ir::Stmt &s : k.body)
    loops += s.kind == ir::StmtKind::While && plan.block_level.count(&s);
  CHECK(loops == 1);
}

TEST_CASE("a thread's value read after a barrier lives in a per-thread array") {
  ir::Module m = compile(R"(def k(a):
    sh = cuda.shared.array(32, a.dtype)
    v = a[cuda.threadIdx.x] * 2
    sh[cuda.threadIdx.x] = v
    cuda.syncthreads()
    if cuda.threadIdx.x > 30:
        return
    a[cuda.threadIdx.x] = sh[31 - cuda.threadIdx.x] + v
)",
                         "(float64[:],)");
  ir::FissionPlan plan = ir::plan_fission(m);
  REQUIRE(plan.fissionable());
  CHECK(plan.per_thread_slots[size_t(slot(m.kernel(), "v"))]);
  CHECK(plan.threads_return);
}

TEST_CASE("barriers under thread-dependent control flow keep fibers, with the reason") {
  struct Case {
    const char *body, *obstacle;
  };
  const Case cases[] = {
      {"    if cuda.threadIdx.x < 4:\n        cuda.syncthreads()\n",
       "a barrier under a thread-dependent branch (line 2)"},
      {"    for i in range(cuda.threadIdx.x):\n        cuda.syncthreads()\n",
       "a barrier under a thread-dependent loop (line 2)"},
      {"    n = a[0]\n    while n > 0:\n        cuda.syncthreads()\n        n -= 1\n",
       "a barrier under a thread-dependent loop (line 3)"},
      {"    x = cuda.threadIdx.x > 2 and cuda.syncthreads_or(1) > 0\n",
       "cuda.syncthreads_count/and/or evaluated conditionally (line 2)"},
      {"    v = cuda.shfl_sync(-1, 1, 0)\n    cuda.syncthreads()\n", "a warp collective"},
      {"    big = cuda.local.array(9000, numba.float64)\n    big[0] = 1\n    cuda.syncthreads()\n",
       "local arrays of 72000 bytes per thread (fission keeps at most 65536)"},
  };
  for (const Case &c : cases) {
    CAPTURE(c.body);
    ir::Module m = compile(std::string("def k(a):\n") + c.body, "(int64[:],)");
    CHECK(ir::plan_fission(m).obstacle == c.obstacle);
  }
}

TEST_CASE("a block-uniform loop with break and a barrier reduction fissions") {
  ir::Module m = compile(R"(def k(a):
    n = a.shape[0]
    for i in range(n):
        if i == 3:
            break
        c = cuda.syncthreads_count(a[cuda.threadIdx.x] > i)
        a[cuda.threadIdx.x] += c
)",
                         "(int64[:],)");
  ir::FissionPlan plan = ir::plan_fission(m);
  REQUIRE(plan.fissionable());
  CHECK(plan.block_level_slots[size_t(slot(m.kernel(), "i"))]);
  CHECK(plan.block_level_slots[size_t(slot(m.kernel(), "c"))]);
}

TEST_CASE("a barrier in a device function keeps fibers, naming the function") {
  auto names = std::make_shared<test::NameTable>();
  names->module("cuda", "numba.cuda");
  GlobalValue fn;
  fn.kind = GlobalValue::Kind::Function;
  fn.function = std::make_shared<FunctionSource>(
      test::kernel_source("def wait(x):\n    cuda.syncthreads()\n    return x\n", names));
  names->names["wait"] = fn;
  ir::Module m = test::compile_text("def k(a):\n    a[0] = wait(a[0])\n", "(int64[:],)", names);
  CHECK(ir::plan_fission(m).obstacle == "a barrier in device function wait (line 2)");
}
