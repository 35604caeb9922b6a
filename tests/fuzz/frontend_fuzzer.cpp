// libFuzzer target for the frontend: the lexer, parser and typer on arbitrary bytes either compile
// or throw CompileError; anything else (a crash, a sanitizer report, another exception, a hang)
// is a bug. An input is one or more function sources separated by lines "#---": the first is
// the kernel, the others device functions it may call by their names. The input's first byte
// picks the kernel's argument types and the error model.
#define DOCTEST_CONFIG_DISABLE // only the name table of the unit tests' support header
#include "tests/unit/frontend/typer_support.h"

#include "frontend/ast.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace simt;

std::vector<std::string> split_functions(const std::string &text) {
  const std::string separator = "\n#---\n";
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos)
      return parts;
    start = end + separator.size();
  }
}

// Argument types the kernel's parameters take in turn, from an offset the first byte picks.
const std::vector<Type> &argument_palette() {
  static const std::vector<Type> palette = parse_signature(
      "(float32[:], int64, float64[:, :], int32[::1], float64, uint8[:], complex128, bool, "
      "int64[:, :, :], float32, complex64[:], int16)");
  return palette;
}

std::shared_ptr<FunctionSource> function_source(const std::string &text, int index,
                                                std::shared_ptr<Resolver> resolver) {
  auto source = std::make_shared<FunctionSource>();
  source->source = text;
  source->file = "fuzz" + std::to_string(index) + ".py";
  source->first_line = 1;
  source->name = parse_function(text, source->file, 1).name;
  source->resolver = std::move(resolver);
  source->identity = static_cast<uint64_t>(index) + 1;
  return source;
}

void compile(uint8_t choice, const std::string &text) {
  auto names = std::make_shared<test::NameTable>();
  names->module("cuda", "cuda").module("np", "numpy").module("numpy", "numpy");
  names->module("math", "math").module("cmath", "cmath").module("numba", "numba");
  std::vector<std::string> parts = split_functions(text);
  for (size_t i = 1; i < parts.size(); ++i) {
    try {
      GlobalValue device;
      device.kind = GlobalValue::Kind::Function;
      device.function = function_source(parts[i], static_cast<int>(i), names);
      names->names[device.function->name] = device;
    } catch (const CompileError &) {
      // a device function that does not parse is an unknown name to the kernel
    }
  }
  try {
    std::shared_ptr<FunctionSource> kernel = function_source(parts[0], 0, names);
    const std::vector<Type> &palette = argument_palette();
    std::vector<Type> arg_types;
    size_t params = parse_function(kernel->source, kernel->file, 1).params.size();
    for (size_t i = 0; i < params; ++i)
      arg_types.push_back(palette[(choice + i) % palette.size()]);
    CompileOptions options;
    options.python_error_model = choice & 0x80;
    ir::dump(compile_kernel(*kernel, arg_types, options));
  } catch (const CompileError &) {
  }
  names->names.clear(); // device sources hold the table: break the cycle
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 0)
    compile(data[0], std::string(reinterpret_cast<const char *>(data) + 1, size - 1));
  return 0;
}
