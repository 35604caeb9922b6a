#include "frontend/compile.h"
#include "frontend/lexer.h"

#include <doctest/doctest.h>

#include <charconv>

using namespace simt;

namespace {

std::vector<Token> lex(const std::string &text, int first_line = 1) {
  return tokenize(SourceText(text, "k.py", first_line));
}

// Tokens as one line: names and operators as written, NL/IN/DE/END for layout tokens.
std::string render(const std::string &text) {
  std::string out;
  for (const Token &token : lex(text)) {
    if (!out.empty())
      out += ' ';
    switch (token.kind) {
    case TokenKind::Name:
      out += token.text;
      break;
    case TokenKind::Op:
      out += spelling(token.symbol);
      break;
    case TokenKind::Int:
      out += (token.int_overflow ? "int!:" : "int:") + std::to_string(token.int_value);
      break;
    case TokenKind::Float: {
      char buffer[64];
      auto end = std::to_chars(buffer, buffer + sizeof buffer, token.float_value).ptr;
      out += (token.imaginary ? "imag:" : "float:") + std::string(buffer, end);
      break;
    }
    case TokenKind::String:
      out += (token.is_bytes ? "bytes:[" : "str:[") + token.text + "]";
      break;
    case TokenKind::Newline:
      out += "NL";
      break;
    case TokenKind::Indent:
      out += "IN";
      break;
    case TokenKind::Dedent:
      out += "DE";
      break;
    case TokenKind::End:
      out += "END";
      break;
    }
  }
  return out;
}

std::string lex_error(const std::string &text) {
  try {
    lex(text);
  } catch (const CompileError &error) {
    return error.message + " @" + std::to_string(error.line) + ":" + std::to_string(error.col);
  }
  return "no error";
}

} // namespace

TEST_CASE("lexer: token table") {
  struct Case {
    const char *source;
    const char *tokens;
  };
  const Case cases[] = {
      {"x = a+b\n", "x = a + b NL END"},
      {"x=a**-b//c", "x = a ** - b // c NL END"},
      {"a <<= 1; b >>= 2", "a <<= int:1 ; b >>= int:2 NL END"},
      {"a != b <= c >= d == e", "a != b <= c >= d == e NL END"},
      {"f(x, y=1) -> z", "f ( x , y = int:1 ) -> z NL END"},
      {"a[1:2, ::3]", "a [ int:1 : int:2 , : : int:3 ] NL END"},
      {"x.y @ z", "x . y @ z NL END"},
      {"x # comment\n\n# only a comment\ny\n", "x NL y NL END"},
      // numbers
      {"0 1 1_000 0x1F 0XfF 0o17 0b101 0b_1", "int:0 int:1 int:1000 int:31 int:255 int:15 int:5 "
                                              "int:1 NL END"},
      {"00 9223372036854775807", "int:0 int:9223372036854775807 NL END"},
      {"9223372036854775808", "int!:-9223372036854775808 NL END"},
      {"1.5 1. .5 1e3 1.5E-2 2e+1 1_0.2_5", "float:1.5 float:1 float:0.5 float:1000 float:0.015 "
                                            "float:20 float:10.25 NL END"},
      {"1j 2.5j 1e3J .5j 01j", "imag:1 imag:2.5 imag:1000 imag:0.5 imag:1 NL END"},
      {"inf", "inf NL END"},
      {"a.b 1 .real", "a . b int:1 . real NL END"},
      // strings
      {"'a' \"b\" '''c''' \"\"\"d\"\"\"", "str:[a] str:[b] str:[c] str:[d] NL END"},
      {"'a\\tb\\n\\\\\\'\\x41\\101\\u00e9'", "str:[a\tb\n\\'AAé] NL END"},
      {"r'a\\nb' R\"\\\"\" b'x\\x41' rb'\\d'",
       "str:[a\\nb] str:[\\\"] bytes:[xA] bytes:[\\d] NL END"},
      {"'\\d\\q'", "str:[\\d\\q] NL END"},
      {"'''line1\nline2'''", "str:[line1\nline2] NL END"},
      {"'a\\\nb'", "str:[ab] NL END"},
      // continuation
      {"x = (1 +\n   2)\ny", "x = ( int:1 + int:2 ) NL y NL END"},
      {"x = [1,\n\n  # comment\n 2]", "x = [ int:1 , int:2 ] NL END"},
      {"x = 1 + \\\n    2\ny", "x = int:1 + int:2 NL y NL END"},
      // indentation
      {"def f():\n    x\n    if y:\n        z\n    w\n",
       "def f ( ) : NL IN x NL if y : NL IN z NL DE w NL DE END"},
      {"def f():\n  if y:\n      z\n", "def f ( ) : NL IN if y : NL IN z NL DE DE END"},
      {"    def f():\n        x\n\n    \n", "def f ( ) : NL IN x NL DE END"},
      {"def f():\n\tif y:\n\t\tz\n\tw", "def f ( ) : NL IN if y : NL IN z NL DE w NL DE END"},
      {"", "END"},
  };
  for (const Case &c : cases) {
    CAPTURE(std::string(c.source));
    CHECK(render(c.source) == c.tokens);
  }
}

TEST_CASE("lexer: each symbol lexes as itself") {
  for (size_t i = 0; i < kSymbolSpellings.size(); ++i) {
    const Symbol symbol = Symbol(i);
    const std::string text = spelling(symbol);
    CAPTURE(text);
    if (text == "(" || text == ")" || text == "[" || text == "]" || text == "{" || text == "}")
      continue; // brackets must pair: the table above lexes them
    std::vector<Token> tokens = lex("x " + text + " y");
    REQUIRE(tokens.size() == 5);
    CHECK(tokens[1].kind == TokenKind::Op);
    CHECK(tokens[1].symbol == symbol);
  }
}

TEST_CASE("lexer: locations are file positions in the original lines") {
  std::vector<Token> tokens = lex("    @cuda.jit\n    def f(a):\n        a[0] = 1\n", 10);
  REQUIRE(tokens.size() > 12);
  CHECK(tokens[0].symbol == Symbol::At);
  CHECK(tokens[0].loc.line == 10);
  CHECK(tokens[0].loc.col == 5);
  CHECK(tokens[5].text == "def");
  CHECK(tokens[5].loc.line == 11);
  CHECK(tokens[5].loc.col == 5);
  const Token &indent = tokens[12];
  CHECK(indent.kind == TokenKind::Indent);
  CHECK(tokens[13].text == "a");
  CHECK(tokens[13].loc.line == 12);
  CHECK(tokens[13].loc.col == 9);
  // A newline points just past the line's last token, not at its comment.
  std::vector<Token> with_comment = lex("x = 1  # one\n");
  CHECK(with_comment[3].kind == TokenKind::Newline);
  CHECK(with_comment[3].loc.col == 6);
  // Line endings \r\n count as one line.
  std::vector<Token> crlf = lex("a\r\nb\r\n");
  CHECK(crlf[2].text == "b");
  CHECK(crlf[2].loc.line == 2);
}

TEST_CASE("lexer: errors") {
  struct Case {
    const char *source;
    const char *error;
  };
  const Case cases[] = {
      {"def f():\n    x\n  y\n", "unindent does not match any outer indentation level @3:3"},
      {"    def f():\n        x\n  y\n",
       "unindent does not match any outer indentation level @3:3"},
      {"def f():\n        x\n\ty\n", "inconsistent use of tabs and spaces in indentation @3:2"},
      {"x = f'{a}'", "simt: f-strings are not supported yet @1:5"},
      {"x = 'abc", "unterminated string literal (detected at line 1) @1:5"},
      {"x = '''abc\n", "unterminated triple-quoted string literal (detected at line 2) @1:5"},
      {"x = (1,\n 2", "'(' was never closed @1:5"},
      {"x = 1)", "unmatched ')' @1:6"},
      {"x = (1]", "closing parenthesis ']' does not match opening parenthesis '(' @1:7"},
      {"x = 012", "leading zeros in decimal integer literals are not permitted; use an 0o prefix "
                  "for octal integers @1:5"},
      {"x = 1__0", "invalid decimal literal @1:6"},
      {"x = 0x", "invalid hexadecimal literal @1:7"},
      {"x = 0b102", "invalid binary literal @1:9"},
      {"x = 1abc", "invalid decimal literal @1:6"},
      {"x = 1 \\ 2", "unexpected character after line continuation character @1:7"},
      {"x = $", "invalid syntax @1:5"},
      {"x = '\\x4'", "truncated \\x escape @1:6"},
  };
  for (const Case &c : cases) {
    CAPTURE(std::string(c.source));
    CHECK(lex_error(c.source) == c.error);
  }
}

TEST_CASE("lexer: integer literal overflow keeps the low 64 bits") {
  std::vector<Token> tokens = lex("0xFFFFFFFFFFFFFFFF 18446744073709551616");
  CHECK(tokens[0].int_overflow);
  CHECK(tokens[0].int_value == -1);
  CHECK(tokens[1].int_overflow);
}
