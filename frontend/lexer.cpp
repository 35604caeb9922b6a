#include "frontend/lexer.h"

#include "frontend/compile.h"

#include <charconv>
#include <cstring>
#include <optional>
#include <string_view>

namespace simt {

SourceText::SourceText(const std::string &text, std::string file, int first_line)
    : file_(std::move(file)), first_line_(first_line) {
  text_.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      text_ += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n')
        ++i;
    } else {
      text_ += text[i];
    }
  }
  std::string_view all = text_;
  while (!all.empty()) {
    size_t end = all.find('\n');
    if (end == std::string_view::npos) {
      lines_.push_back(all);
      break;
    }
    lines_.push_back(all.substr(0, end));
    all.remove_prefix(end + 1);
  }
}

std::string_view SourceText::line(int line) const {
  int index = line - first_line_;
  if (index < 0 || index >= static_cast<int>(lines_.size()))
    return {};
  return lines_[index];
}

void SourceText::error(ir::Loc loc, const std::string &message) const {
  throw CompileError(file_, loc.line, loc.col, message, std::string(line(loc.line)));
}

namespace {

bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c, int base) {
  if (base == 16)
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  return c >= '0' && c < '0' + base;
}
int digit_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  return (c | 0x20) - 'a' + 10;
}

void append_utf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The symbol `text` starts with: the longest, as symbols.def lists them longest first.
std::optional<Symbol> symbol_starting(std::string_view text) {
  for (size_t i = 0; i < kSymbolSpellings.size(); ++i)
    if (text.starts_with(kSymbolSpellings[i]))
      return Symbol(i);
  return std::nullopt;
}

constexpr bool symbols_longest_first() {
  for (size_t i = 1; i < kSymbolSpellings.size(); ++i)
    if (std::string_view(kSymbolSpellings[i]).size() >
        std::string_view(kSymbolSpellings[i - 1]).size())
      return false;
  return true;
}
static_assert(symbols_longest_first(), "symbols.def must list the longest symbols first");

// The opening bracket that `closing` closes, if it is a closing bracket.
std::optional<Symbol> opened_by(Symbol closing) {
  switch (closing) {
  case Symbol::RightParen:
    return Symbol::LeftParen;
  case Symbol::RightBracket:
    return Symbol::LeftBracket;
  case Symbol::RightBrace:
    return Symbol::LeftBrace;
  default:
    return std::nullopt;
  }
}

// CPython's tokenizer limits (MAXLEVEL, MAXINDENT), with its messages.
constexpr size_t kMaxBrackets = 200;
constexpr size_t kMaxIndents = 100;

// The indentation of a line, measured as CPython does twice: tabs to multiples of 8, and tabs
// as one column; the two orders must agree or the indentation depends on the tab size.
struct Indentation {
  int col = 0;
  int alt_col = 0;
};

class Lexer {
public:
  explicit Lexer(const SourceText &source) : source_(source), text_(source.text()) {}

  std::vector<Token> run() {
    bool first_line = true;
    while (true) {
      if (at_line_start_ && brackets_.empty()) {
        Indentation indent = skip_indentation();
        if (pos_ >= text_.size())
          break;
        char c = text_[pos_];
        if (c == '#' || c == '\n') { // a blank or comment-only line
          skip_comment();
          if (pos_ < text_.size())
            advance_line();
          continue;
        }
        if (first_line) {
          indents_.push_back(indent);
          first_line = false;
        } else {
          handle_indentation(indent);
        }
        at_line_start_ = false;
      }
      if (pos_ >= text_.size())
        break;
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\f') {
        ++pos_;
      } else if (c == '#') {
        skip_comment();
      } else if (c == '\n') {
        if (brackets_.empty()) {
          push(TokenKind::Newline, last_end_);
          at_line_start_ = true;
        }
        advance_line();
      } else if (c == '\\') {
        if (pos_ + 1 >= text_.size())
          source_.error(here(), "unexpected EOF while parsing");
        if (text_[pos_ + 1] != '\n')
          source_.error(here(), "unexpected character after line continuation character");
        ++pos_;
        advance_line();
      } else {
        lex_token();
      }
    }
    if (!brackets_.empty()) {
      const Bracket &open = brackets_.back();
      source_.error(open.loc, std::string("'") + spelling(open.symbol) + "' was never closed");
    }
    if (!tokens_.empty() && tokens_.back().kind != TokenKind::Newline)
      push(TokenKind::Newline, last_end_);
    ir::Loc end = here();
    for (size_t i = 1; i < indents_.size(); ++i)
      push(TokenKind::Dedent, end);
    push(TokenKind::End, end);
    return std::move(tokens_);
  }

private:
  struct Bracket {
    Symbol symbol;
    ir::Loc loc;
  };

  ir::Loc loc_at(size_t pos) const {
    return {source_.first_line() + line_index_, static_cast<int>(pos - line_start_) + 1};
  }
  ir::Loc here() const { return loc_at(pos_); }

  void advance_line() {
    ++pos_; // the '\n'
    ++line_index_;
    line_start_ = pos_;
  }

  void skip_comment() {
    while (pos_ < text_.size() && text_[pos_] != '\n')
      ++pos_;
  }

  Indentation skip_indentation() {
    Indentation indent;
    for (; pos_ < text_.size(); ++pos_) {
      char c = text_[pos_];
      if (c == ' ') {
        ++indent.col;
        ++indent.alt_col;
      } else if (c == '\t') {
        indent.col = (indent.col / 8 + 1) * 8;
        ++indent.alt_col;
      } else if (c == '\f') {
        indent = {};
      } else {
        break;
      }
    }
    return indent;
  }

  void handle_indentation(Indentation indent) {
    const char *inconsistent = "inconsistent use of tabs and spaces in indentation";
    Indentation top = indents_.back();
    if (indent.col == top.col) {
      if (indent.alt_col != top.alt_col)
        source_.error(here(), inconsistent);
    } else if (indent.col > top.col) {
      if (indent.alt_col <= top.alt_col)
        source_.error(here(), inconsistent);
      if (indents_.size() >= kMaxIndents)
        source_.error(here(), "too many levels of indentation");
      indents_.push_back(indent);
      push(TokenKind::Indent, here());
    } else {
      while (indents_.size() > 1 && indent.col < indents_.back().col) {
        indents_.pop_back();
        push(TokenKind::Dedent, here());
      }
      if (indent.col != indents_.back().col)
        source_.error(here(), "unindent does not match any outer indentation level");
      if (indent.alt_col != indents_.back().alt_col)
        source_.error(here(), inconsistent);
    }
  }

  Token &push(TokenKind kind, ir::Loc loc) {
    Token token;
    token.kind = kind;
    token.loc = loc;
    tokens_.push_back(std::move(token));
    return tokens_.back();
  }

  void lex_token() {
    char c = text_[pos_];
    if (is_digit(c, 10) || (c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1], 10))) {
      lex_number();
    } else if (is_name_start(c)) {
      size_t end = pos_;
      while (end < text_.size() && is_name_char(text_[end]))
        ++end;
      if (end < text_.size() && (text_[end] == '\'' || text_[end] == '"') &&
          is_string_prefix(text_.substr(pos_, end - pos_))) {
        lex_string(end);
      } else {
        push(TokenKind::Name, here()).text = text_.substr(pos_, end - pos_);
        pos_ = end;
      }
    } else if (c == '\'' || c == '"') {
      lex_string(pos_);
    } else {
      lex_operator();
    }
    last_end_ = here(); // where a Newline right after this token points
  }

  static bool is_string_prefix(const std::string &prefix) {
    static const char *const prefixes[] = {"r", "u", "b", "f", "br", "rb", "fr", "rf"};
    std::string lower;
    for (char c : prefix)
      lower += static_cast<char>(c | 0x20);
    for (const char *p : prefixes)
      if (lower == p)
        return true;
    return false;
  }

  void lex_number() {
    ir::Loc loc = here();
    size_t start = pos_;
    const char *invalid = "invalid decimal literal";
    int base = 10;
    if (text_[pos_] == '0' && pos_ + 1 < text_.size()) {
      char p = static_cast<char>(text_[pos_ + 1] | 0x20);
      if (p == 'x')
        base = 16, invalid = "invalid hexadecimal literal";
      else if (p == 'o')
        base = 8, invalid = "invalid octal literal";
      else if (p == 'b')
        base = 2, invalid = "invalid binary literal";
    }
    if (base != 10) {
      pos_ += 2;
      if (pos_ < text_.size() && text_[pos_] == '_')
        ++pos_;
      std::string digits = scan_digits(base, invalid);
      if (digits.empty())
        source_.error(here(), invalid);
      reject_trailing_name(invalid);
      push_int(loc, digits, base);
      return;
    }
    std::string digits = scan_digits(10, invalid);
    bool is_float = false;
    std::string literal = digits;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_float = true;
      ++pos_;
      literal += '.';
      if (pos_ < text_.size() && is_digit(text_[pos_], 10))
        literal += scan_digits(10, invalid);
    }
    if (pos_ < text_.size() && (text_[pos_] | 0x20) == 'e') {
      size_t exp = pos_ + 1;
      if (exp < text_.size() && (text_[exp] == '+' || text_[exp] == '-'))
        ++exp;
      if (exp < text_.size() && is_digit(text_[exp], 10)) {
        is_float = true;
        literal += text_.substr(pos_, exp - pos_);
        pos_ = exp;
        literal += scan_digits(10, invalid);
      }
    }
    bool imaginary = pos_ < text_.size() && (text_[pos_] | 0x20) == 'j';
    if (imaginary)
      ++pos_;
    reject_trailing_name(invalid);
    if (is_float || imaginary) {
      if (literal[0] == '.')
        literal.insert(literal.begin(), '0');
      double value = 0;
      std::from_chars(literal.data(), literal.data() + literal.size(), value);
      Token &token = push(TokenKind::Float, loc);
      token.float_value = value;
      token.imaginary = imaginary;
      return;
    }
    if (digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of('0') != std::string::npos)
      source_.error(loc_at(start), "leading zeros in decimal integer literals are not permitted; "
                                   "use an 0o prefix for octal integers");
    push_int(loc, digits, 10);
  }

  // Digits of `base` with single underscores between them; the underscores are dropped.
  std::string scan_digits(int base, const char *invalid) {
    std::string digits;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (is_digit(c, base)) {
        digits += c;
        ++pos_;
      } else if (c == '_') {
        if (pos_ + 1 >= text_.size() || !is_digit(text_[pos_ + 1], base))
          source_.error(here(), invalid);
        ++pos_;
      } else {
        break;
      }
    }
    return digits;
  }

  void reject_trailing_name(const char *invalid) {
    if (pos_ < text_.size() && is_name_char(text_[pos_]))
      source_.error(here(), invalid);
  }

  void push_int(ir::Loc loc, const std::string &digits, int base) {
    uint64_t value = 0;
    bool overflow = false;
    for (char c : digits) {
      uint64_t next = value * static_cast<uint64_t>(base) + static_cast<uint64_t>(digit_value(c));
      if (value >
          (UINT64_MAX - static_cast<uint64_t>(digit_value(c))) / static_cast<uint64_t>(base))
        overflow = true;
      value = next;
    }
    Token &token = push(TokenKind::Int, loc);
    token.int_value = static_cast<int64_t>(value);
    token.int_overflow = overflow || value > static_cast<uint64_t>(INT64_MAX);
    token.int_uint64 = !overflow && value > static_cast<uint64_t>(INT64_MAX);
    if (overflow) // its value, for CPython's folding and messages (frontend/python_int.h)
      token.text = (base == 16 ? "0x" : base == 8 ? "0o" : base == 2 ? "0b" : "") + digits;
  }

  // Lexes a string literal whose prefix starts at pos_ and whose opening quote is at `quote_pos`.
  void lex_string(size_t quote_pos) {
    ir::Loc loc = here();
    bool raw = false, bytes = false;
    for (size_t i = pos_; i < quote_pos; ++i) {
      char c = static_cast<char>(text_[i] | 0x20);
      raw |= c == 'r';
      bytes |= c == 'b';
      if (c == 'f')
        source_.error(loc, "simt: f-strings are not supported yet");
    }
    char quote = text_[quote_pos];
    bool triple = text_.compare(quote_pos, 3, std::string(3, quote)) == 0;
    pos_ = quote_pos + (triple ? 3 : 1);
    std::string value;
    while (true) {
      if (pos_ >= text_.size() || (!triple && text_[pos_] == '\n'))
        source_.error(loc, std::string(triple ? "unterminated triple-quoted string literal"
                                              : "unterminated string literal") +
                               " (detected at line " + std::to_string(here().line) + ")");
      char c = text_[pos_];
      if (c == quote && (!triple || text_.compare(pos_, 3, std::string(3, quote)) == 0)) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (c == '\n') {
        value += c;
        advance_line();
      } else if (c == '\\') {
        lex_escape(value, raw, bytes);
      } else {
        if (bytes && static_cast<unsigned char>(c) >= 0x80)
          source_.error(loc, "bytes can only contain ASCII literal characters");
        value += c;
        ++pos_;
      }
    }
    Token &token = push(TokenKind::String, loc);
    token.text = std::move(value);
    token.is_bytes = bytes;
  }

  // Lexes the escape sequence at pos_ (a backslash) into `value`.
  void lex_escape(std::string &value, bool raw, bool bytes) {
    ir::Loc loc = here();
    if (pos_ + 1 >= text_.size()) {
      value += '\\';
      ++pos_;
      return;
    }
    char c = text_[pos_ + 1];
    if (raw) { // the backslash stays, but still keeps the next character from ending the string
      value += '\\';
      pos_ += 1;
      if (c == '\n') {
        value += c;
        advance_line();
      } else {
        value += c;
        ++pos_;
      }
      return;
    }
    pos_ += 2;
    switch (c) {
    case '\n':
      --pos_;
      advance_line();
      return;
    case '\\':
    case '\'':
    case '"':
      value += c;
      return;
    case 'a':
      value += '\a';
      return;
    case 'b':
      value += '\b';
      return;
    case 'f':
      value += '\f';
      return;
    case 'n':
      value += '\n';
      return;
    case 'r':
      value += '\r';
      return;
    case 't':
      value += '\t';
      return;
    case 'v':
      value += '\v';
      return;
    default:
      break;
    }
    if (is_digit(c, 8)) {
      uint32_t code = static_cast<uint32_t>(c - '0');
      for (int i = 0; i < 2 && pos_ < text_.size() && is_digit(text_[pos_], 8); ++i, ++pos_)
        code = code * 8 + static_cast<uint32_t>(text_[pos_] - '0');
      append_code(value, code, bytes);
      return;
    }
    int hex_digits = c == 'x' ? 2 : (!bytes && c == 'u') ? 4 : (!bytes && c == 'U') ? 8 : 0;
    if (hex_digits > 0) {
      uint32_t code = 0;
      for (int i = 0; i < hex_digits; ++i, ++pos_) {
        if (pos_ >= text_.size() || !is_digit(text_[pos_], 16))
          source_.error(loc, std::string("truncated \\") + c + " escape");
        code = code * 16 + static_cast<uint32_t>(digit_value(text_[pos_]));
      }
      if (code > 0x10FFFF)
        source_.error(loc, "illegal Unicode character");
      append_code(value, code, bytes);
      return;
    }
    if (!bytes && c == 'N')
      source_.error(loc, "simt: \\N{...} escapes are not supported");
    value += '\\'; // an unknown escape keeps its backslash
    value += c;
  }

  static void append_code(std::string &value, uint32_t code, bool bytes) {
    if (bytes)
      value += static_cast<char>(code & 0xFF);
    else
      append_utf8(value, code);
  }

  void lex_operator() {
    ir::Loc loc = here();
    if (std::optional<Symbol> symbol = symbol_starting(std::string_view(text_).substr(pos_))) {
      pos_ += std::strlen(spelling(*symbol));
      track_bracket(*symbol, loc);
      push(TokenKind::Op, loc).symbol = *symbol;
      return;
    }
    char c = text_[pos_];
    if (c == '!' || c == '$' || c == '?' || c == '`')
      source_.error(loc, "invalid syntax");
    source_.error(loc, std::string("invalid character '") + c + "'");
  }

  void track_bracket(Symbol symbol, ir::Loc loc) {
    if (symbol == Symbol::LeftParen || symbol == Symbol::LeftBracket ||
        symbol == Symbol::LeftBrace) {
      if (brackets_.size() == kMaxBrackets)
        source_.error(loc, "too many nested parentheses");
      brackets_.push_back({symbol, loc});
      return;
    }
    std::optional<Symbol> open = opened_by(symbol);
    if (!open)
      return;
    if (brackets_.empty())
      source_.error(loc, std::string("unmatched '") + spelling(symbol) + "'");
    if (brackets_.back().symbol != *open)
      source_.error(loc, std::string("closing parenthesis '") + spelling(symbol) +
                             "' does not match opening parenthesis '" +
                             spelling(brackets_.back().symbol) + "'");
    brackets_.pop_back();
  }

  const SourceText &source_;
  const std::string &text_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_index_ = 0;
  bool at_line_start_ = true;
  ir::Loc last_end_;
  std::vector<Indentation> indents_;
  std::vector<Bracket> brackets_;
  std::vector<Token> tokens_;
};

} // namespace

std::vector<Token> tokenize(const SourceText &source) { return Lexer(source).run(); }

} // namespace simt
