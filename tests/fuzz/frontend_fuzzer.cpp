// libFuzzer target for the frontend: the lexer, parser and typer on arbitrary bytes either compile
// or throw CompileError; anything else (a crash, a sanitizer report, another exception, a hang)
// is a bug. An input is one or more function sources separated by lines "#---": the first is
// the kernel, the others device functions it may call by their names. The input's first byte
// picks the kernel's argument types and the error model.
#include "tests/fuzz/fuzz_input.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  simt::fuzz::Compile how;
  how.palette_offset = data[0];
  how.options.python_error_model = data[0] & 0x80;
  try {
    simt::test::on_compile_stack([&] {
      simt::ir::dump(simt::fuzz::compile_input(
          std::string(reinterpret_cast<const char *>(data) + 1, size - 1), how));
    });
  } catch (const simt::CompileError &) {
  }
  return 0;
}
