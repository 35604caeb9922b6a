// The tokenizer of the kernel subset of Python: text -> tokens with real file positions.
#pragma once

#include "frontend/symbols.h"
#include "ir/ir.h" // Loc

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace simt {

// A function's source text as it sits in its file: maps Locs back to source lines for errors.
class SourceText {
public:
  // `first_line` is the file line of the text's first line.
  SourceText(const std::string &text, std::string file, int first_line);
  SourceText(const SourceText &) = delete; // lines_ point into text_
  SourceText &operator=(const SourceText &) = delete;

  const std::string &file() const { return file_; }
  int first_line() const { return first_line_; }
  // The text with line endings normalised to '\n'.
  const std::string &text() const { return text_; }
  // The source line at file line `line` (without its newline); empty when out of range.
  std::string_view line(int line) const;
  // Throws CompileError at `loc` with the source line under it.
  [[noreturn]] void error(ir::Loc loc, const std::string &message) const;

private:
  std::string text_;
  std::string file_;
  int first_line_;
  std::vector<std::string_view> lines_;
};

enum class TokenKind : uint8_t {
  Name,    // identifiers and keywords: text
  Int,     // int_value, int_overflow
  Float,   // float_value (an imaginary literal such as 2j when imaginary)
  String,  // text holds the decoded value (adjacent literals are separate tokens)
  Op,      // operators and delimiters: symbol
  Newline, // end of a logical line
  Indent,
  Dedent,
  End,
};

struct Token {
  TokenKind kind = TokenKind::End;
  ir::Loc loc;
  Symbol symbol{}; // an Op's
  std::string text;
  int64_t int_value = 0;     // the literal's low 64 bits when int_overflow
                             // (past uint64, `text` holds its digits with their base's prefix)
  bool int_overflow = false; // the literal does not fit int64
  bool int_uint64 = false;   // it does fit uint64 (Numba types such a literal uint64)
  double float_value = 0;
  bool imaginary = false; // a Float that is an imaginary literal (2j, 1.5e3j)
  bool is_bytes = false;  // a b'' literal
};

// Tokenizes one function's source. The first line's indentation is the base level, so uniformly
// indented source (a method, a nested function) needs no dedenting and columns stay those of the
// file. Throws CompileError.
std::vector<Token> tokenize(const SourceText &source);

} // namespace simt
