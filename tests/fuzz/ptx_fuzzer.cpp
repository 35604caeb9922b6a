// libFuzzer target for the PTX path (cuda.compile_ptx, inspect_asm, SIMT_TARGET=gpu): the typed
// IR of an input that compiles goes through the generic lowering, the NVPTX Target and LLVM 19's
// NVPTX backend (gpu/ptx.h) with the options and name the input picks. Each input either gives
// PTX or an error simt raises on purpose (CompileError, a refused name, what the GPU target does
// not support); an LLVM fatal error (LLVM's default handler: abort), another exception, a crash
// or a sanitizer report is a bug. No fatal-error handler is installed: every fatal error counts.
//
// An input: three bytes, a line naming the function (any bytes), a line of argument types
// ("float32[:], int64"; empty: types from palette() below), then sources as the frontend
// fuzzer's (tests/fuzz/fuzz_input.h):
//   byte 0: an offset into the argument types; 0x80 Python's error model;
//   byte 1: 0x01 fastmath, 0x06 none/lines/full debug info, 0x08 unoptimised, 0x10 a device
//           function, 0x20 its C ABI, 0x40 named by the name line (abi_name), 0x80 launch bounds;
//   byte 2: the compute capability (an index into ccs below).
// Without 0x40 the name line names the Python function (FunctionSource::name), as a __name__
// would. SIMT_FUZZ_VERBOSE=1 prints each input's outcome.
#include "tests/fuzz/fuzz_input.h"

#include "codegen/llvm_errors.h"
#include "gpu/ptx.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

namespace {

using namespace simt;

const std::vector<Type> &palette() {
  static const std::vector<Type> types = parse_signature(
      "(float32[:], int64, float16[:], float64[:, :], bfloat16[:], int32[::1], float64, uint8[:], "
      "complex128, bool, float16, int64[:, :, :], float32, complex64[:], int16, uint64[:], "
      "bfloat16, int8, UniTuple(float32, 2), uint32, Tuple(int64, float16))");
  return types;
}

const char *const ccs[] = {"sm_35", "sm_50", "sm_53", "sm_60", "sm_61", "sm_70",
                           "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};

// What simt raises on purpose; whatever else comes out of a compile is a bug.
bool intended(const std::exception &e) {
  if (dynamic_cast<const codegen::LlvmFatalError *>(&e) != nullptr ||
      (dynamic_cast<const std::logic_error *>(&e) != nullptr &&
       dynamic_cast<const std::invalid_argument *>(&e) == nullptr))
    return false;
  const std::string what = e.what();
  return what.starts_with("simt: ") && what.find("internal error") == std::string::npos &&
         what.find("LLVM rejected") == std::string::npos;
}

// The input's next line (without its newline), or nullopt when there is none.
std::optional<std::string> next_line(const std::string &input, size_t &at) {
  const size_t newline = input.find('\n', at);
  if (newline == std::string::npos)
    return std::nullopt;
  std::string line = input.substr(at, newline - at);
  at = newline + 1;
  return line;
}

void compile(const uint8_t *data, size_t size) {
  const std::string input(reinterpret_cast<const char *>(data) + 3, size - 3);
  size_t at = 0;
  const std::optional<std::string> name = next_line(input, at);
  const std::optional<std::string> signature = next_line(input, at);
  if (!signature)
    return;
  std::vector<Type> arg_types;
  try {
    arg_types = parse_signature("(" + *signature + ")");
  } catch (const std::invalid_argument &) {
    return;
  }
  fuzz::Compile how;
  how.palette = arg_types.empty() ? &palette() : &arg_types;
  how.palette_offset = data[0] & 0x7f;
  how.options.python_error_model = data[0] & 0x80;
  how.options.fastmath = data[1] & 0x01;
  how.options.debug_info = DebugInfo(((data[1] >> 1) & 3) % 3);
  how.device = data[1] & 0x10;
  gpu::PtxOptions options;
  options.opt = !(data[1] & 0x08);
  options.cc = ccs[data[2] % std::size(ccs)];
  options.abi.device = how.device;
  options.abi.c_abi = how.device && (data[1] & 0x20);
  if (data[1] & 0x40)
    options.abi.name = *name;
  else
    how.name = &*name;
  if (data[1] & 0x80 && !how.device) {
    options.abi.max_threads_per_block = 1 + data[2];
    options.abi.min_blocks_per_multiprocessor = data[0] & 7;
    options.abi.max_blocks_per_cluster = data[1] & 3;
  }
  static const bool verbose = std::getenv("SIMT_FUZZ_VERBOSE") != nullptr;
  ir::Module module;
  try {
    module = fuzz::compile_input(input.substr(at), how);
  } catch (const CompileError &e) {
    if (verbose)
      std::fprintf(stderr, "ptx_fuzzer: %s\n", e.what());
    return;
  }
  try {
    const size_t bytes = gpu::compile_ptx(module, options).ptx.size();
    if (verbose)
      std::fprintf(stderr, "ptx_fuzzer: %zu bytes of PTX for %s\n", bytes, options.cc.c_str());
  } catch (const std::exception &e) {
    if (verbose || !intended(e))
      std::fprintf(stderr, "ptx_fuzzer: %s\n", e.what());
    if (!intended(e))
      std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 3)
    simt::test::on_compile_stack([&] { compile(data, size); });
  return 0;
}
