// The error a kernel's compile raises (the typer's, and the lowering's where it refuses what a
// backend cannot express): its own header, so that the layers below the typer need nothing else
// of the frontend's entry points.
#pragma once

#include <stdexcept>
#include <string>

namespace simt {

// A compile-time error in a kernel: unsupported syntax, an unknown name, a type error.
// what() is the full user-facing text:
//   file.py:12:9: error: unknown name 'foo'
//       x = foo(1)
//           ^
class CompileError : public std::runtime_error {
public:
  CompileError(std::string file, int line, int col, std::string message, std::string source_line);
  const std::string file;
  const int line;
  const int col;
  const std::string message;
  const std::string source_line;
};

} // namespace simt
