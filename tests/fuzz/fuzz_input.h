// What the fuzz targets share: an input's functions (sources separated by lines "#---": the first
// is compiled, the others are device functions it may call by their names) and the typed IR of
// its first, for argument types a byte picks.
#pragma once

#define DOCTEST_CONFIG_DISABLE // only the name table of the unit tests' support header
#include "tests/unit/frontend/typer_support.h"

#include "frontend/ast.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace simt::fuzz {

inline std::vector<std::string> split_functions(const std::string &text) {
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

// Argument types the parameters take in turn, from an offset the input picks (Compile::palette).
inline const std::vector<Type> &argument_palette() {
  static const std::vector<Type> palette = parse_signature(
      "(float32[:], int64, float64[:, :], int32[::1], float64, uint8[:], complex128, bool, "
      "int64[:, :, :], float32, complex64[:], int16)");
  return palette;
}

inline std::shared_ptr<FunctionSource> function_source(const std::string &text, int index,
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

// How to compile an input's first function.
struct Compile {
  const std::vector<Type> *palette = &argument_palette(); // its parameters' types, in turn
  uint8_t palette_offset = 0;                             // from this one on
  CompileOptions options;
  bool device = false;               // compile_device_function, else compile_kernel
  const std::string *name = nullptr; // its name (FunctionSource::name), else the def's
};

// The typed IR of `text`'s first function; throws CompileError.
inline ir::Module compile_input(const std::string &text, const Compile &how) {
  auto names = std::make_shared<test::NameTable>();
  struct BreakCycle { // device sources hold the table
    test::NameTable &table;
    ~BreakCycle() { table.names.clear(); }
  } break_cycle{*names};
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
  std::shared_ptr<FunctionSource> kernel = function_source(parts[0], 0, names);
  if (how.name != nullptr)
    kernel->name = *how.name;
  const std::vector<Type> &palette = *how.palette;
  std::vector<Type> arg_types;
  size_t params = parse_function(kernel->source, kernel->file, 1).params.size();
  for (size_t i = 0; i < params; ++i)
    arg_types.push_back(palette[(how.palette_offset + i) % palette.size()]);
  return how.device ? compile_device_function(*kernel, arg_types, how.options)
                    : compile_kernel(*kernel, arg_types, how.options);
}

} // namespace simt::fuzz
