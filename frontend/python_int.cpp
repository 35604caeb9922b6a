#include "frontend/python_int.h"

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <limits>

namespace simt {

namespace {

using Int = boost::multiprecision::cpp_int;
using ast::Operator;

// CPython's MAX_INT_SIZE: it does not fold a product, power or left shift past this many bits.
constexpr size_t kMaxFoldedBits = 128;
// Past this many bits an exact value is only "too large" (2 ** 10 ** 9 is not computed).
constexpr size_t kMaxExactBits = 4096;

// _PyLong_NumBits: the bits of |v| (0 for 0).
size_t bit_count(const Int &v) { return v == 0 ? 0 : size_t(msb(abs(v))) + 1; }

Int from_digits(const std::string &text) {
  int base = 10;
  std::string_view digits = text;
  if (digits.size() > 2 && digits[0] == '0') {
    const char prefix = char(digits[1] | 0x20);
    base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : prefix == 'b' ? 2 : 10;
    if (base != 10)
      digits.remove_prefix(2);
  }
  Int value = 0;
  for (char c : digits) {
    const int digit = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
    value = value * base + digit;
  }
  return value;
}

std::optional<Int> literal_value(const ast::Expr &e) {
  if (!e.int_overflow)
    return Int(e.int_value);
  if (e.int_uint64)
    return Int(uint64_t(e.int_value));
  return from_digits(e.text); // the lexer keeps a literal past uint64 as its digits
}

// a >> n (floor, as Python), n >= 0 of any size.
Int shifted_right(const Int &a, const Int &n) {
  if (n >= Int(bit_count(a)))
    return a < 0 ? Int(-1) : Int(0);
  return a >> unsigned(n);
}

// Python's `x // y` and `x % y` (floor division), y != 0.
Int floor_divided(const Int &x, const Int &y, bool remainder) {
  Int q = x / y, r = x % y;
  if (r != 0 && (r < 0) != (y < 0)) {
    q -= 1;
    r += y;
  }
  return remainder ? r : q;
}

// `x op y` as CPython's fold_binop computes it (safe_multiply, safe_power, safe_lshift), or
// nothing where it leaves the operation to run time.
std::optional<Int> folded_binary(Operator op, const Int &x, const Int &y) {
  if (op == Operator::Add)
    return x + y;
  if (op == Operator::Sub)
    return x - y;
  if (op == Operator::BitAnd)
    return x & y;
  if (op == Operator::BitOr)
    return x | y;
  if (op == Operator::BitXor)
    return x ^ y;
  if (op == Operator::Mul) {
    if (x != 0 && y != 0 && bit_count(x) + bit_count(y) > kMaxFoldedBits)
      return std::nullopt;
    return x * y;
  }
  if (op == Operator::FloorDiv || op == Operator::Mod)
    return y == 0 ? std::nullopt : std::optional<Int>(floor_divided(x, y, op == Operator::Mod));
  if (op == Operator::Pow) {
    if (y < 0) // a float, or ZeroDivisionError
      return std::nullopt;
    if (x != 0 && y > 0 && (y > Int(kMaxFoldedBits) || bit_count(x) > kMaxFoldedBits / size_t(y)))
      return std::nullopt;
    return y == 0 ? Int(1) : Int(pow(x, unsigned(y)));
  }
  if (op == Operator::LShift) {
    if (y < 0) // ValueError
      return std::nullopt;
    if (x == 0 || y == 0)
      return x;
    if (y > Int(kMaxFoldedBits) || bit_count(x) > kMaxFoldedBits - size_t(y))
      return std::nullopt;
    return Int(x << unsigned(y));
  }
  if (op == Operator::RShift)
    return y < 0 ? std::nullopt : std::optional<Int>(shifted_right(x, y));
  return std::nullopt; // '/' (a float) and '@'
}

std::optional<Int> folded_value(const ast::Expr &e);

// The folded value of the chain spine[0] when every link of it folds.
std::optional<Int> folded_chain_value(const std::vector<const ast::Expr *> &spine, size_t &links) {
  links = 0;
  std::optional<Int> value = folded_value(*spine.back()->elts[0]);
  while (value && links < spine.size()) {
    const ast::Expr &link = *spine[spine.size() - 1 - links];
    const std::optional<Int> rhs = folded_value(*link.elts[1]);
    const std::optional<Int> next = rhs ? folded_binary(link.op, *value, *rhs) : std::nullopt;
    if (!next)
      break;
    value = next;
    ++links;
  }
  return value;
}

// `e` folded as CPython folds it (see python_folded_int).
std::optional<Int> folded_value(const ast::Expr &e) {
  switch (e.kind) {
  case ast::ExprKind::Int:
    return literal_value(e);
  case ast::ExprKind::UnaryOp: {
    if (e.op == Operator::Not)
      return std::nullopt; // a bool
    std::optional<Int> x = folded_value(*e.elts[0]);
    if (!x)
      return std::nullopt;
    return e.op == Operator::Neg ? Int(-*x) : e.op == Operator::Invert ? Int(-*x - 1) : *x;
  }
  case ast::ExprKind::BinOp: {
    const std::vector<const ast::Expr *> spine = left_spine(e);
    size_t links = 0;
    std::optional<Int> value = folded_chain_value(spine, links);
    return links == spine.size() ? value : std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

FoldedInt folded_int(const Int &v) {
  FoldedInt f;
  f.decimal = v.str();
  f.negative = v < 0;
  f.approx = v.convert_to<double>();
  f.fits = v >= Int(std::numeric_limits<int64_t>::min()) &&
           v <= Int(std::numeric_limits<uint64_t>::max());
  if (f.fits) {
    f.is_uint64 = v > Int(std::numeric_limits<int64_t>::max());
    f.bits = f.is_uint64 ? int64_t(uint64_t(v)) : int64_t(v);
  }
  return f;
}

// The exact value of a typed constant tree; nothing when it is not one, "too large" (past
// kMaxExactBits) as a value of kMaxExactBits + 1 bits.
std::optional<Int> exact_value(const ir::Expr &x) {
  if (!x.type.is_scalar() || !is_integer(x.type.scalar))
    return std::nullopt;
  const Int too_large = Int(1) << (kMaxExactBits + 1);
  switch (x.kind) {
  case ir::ExprKind::Const:
    return is_signed(x.type.scalar) ? Int(x.int_value) : Int(uint64_t(x.int_value));
  case ir::ExprKind::Cast:
    return exact_value(*x.args[0]);
  case ir::ExprKind::Unary: {
    std::optional<Int> a = exact_value(*x.args[0]);
    if (!a)
      return std::nullopt;
    return x.op == ir::Op::Neg ? Int(-*a) : x.op == ir::Op::Invert ? Int(-*a - 1) : *a;
  }
  case ir::ExprKind::Binary: {
    const std::optional<Int> a = exact_value(*x.args[0]), b = exact_value(*x.args[1]);
    if (!a || !b)
      return std::nullopt;
    const size_t bits = bit_count(*a);
    switch (x.op) {
    case ir::Op::Add:
      return *a + *b;
    case ir::Op::Sub:
      return *a - *b;
    case ir::Op::Mul:
      return bits + bit_count(*b) > kMaxExactBits ? too_large : Int(*a * *b);
    case ir::Op::Pow:
      if (*b < 0)
        return std::nullopt;
      if (*a == 0 || *a == 1 || *b == 0)
        return *b == 0 ? Int(1) : *a;
      return *b > Int(kMaxExactBits) || bits * size_t(*b) > kMaxExactBits
                 ? too_large
                 : Int(pow(*a, unsigned(*b)));
    case ir::Op::LShift:
      if (*b < 0)
        return std::nullopt;
      return *a != 0 && *b > Int(kMaxExactBits) ? too_large : Int(*a << unsigned(*b));
    default:
      return std::nullopt; // the others cannot leave int64 from int64 operands
    }
  }
  default:
    return std::nullopt;
  }
}

} // namespace

std::vector<const ast::Expr *> left_spine(const ast::Expr &e) {
  std::vector<const ast::Expr *> spine;
  for (const ast::Expr *link = &e; link->kind == ast::ExprKind::BinOp; link = link->elts[0].get())
    spine.push_back(link);
  return spine;
}

std::optional<FoldedInt> python_folded_int(const ast::Expr &e) {
  std::optional<Int> value = folded_value(e);
  return value ? std::optional<FoldedInt>(folded_int(*value)) : std::nullopt;
}

FoldedChain python_folded_chain(const std::vector<const ast::Expr *> &spine) {
  FoldedChain chain;
  if (std::optional<Int> value = folded_chain_value(spine, chain.links))
    chain.value = folded_int(*value);
  return chain;
}

std::optional<std::string> overflowing_constant(const ir::Expr &x) {
  const std::optional<Int> value = exact_value(x);
  if (!value || (*value >= Int(std::numeric_limits<int64_t>::min()) &&
                 *value <= Int(std::numeric_limits<int64_t>::max())))
    return std::nullopt;
  return bit_count(*value) > kMaxExactBits ? std::string() : value->str();
}

namespace {

// Python's binding strength of an operator expression (higher binds tighter).
int precedence(const ast::Expr &x) {
  if (x.kind == ast::ExprKind::UnaryOp)
    return 7;
  return x.kind == ast::ExprKind::BinOp ? binding(x.op) : 9;
}

void write_int_expression(const ast::Expr &x, std::string &text, size_t limit) {
  auto operand = [&](const ast::Expr &part, bool parenthesized) {
    text += parenthesized ? "(" : "";
    write_int_expression(part, text, limit);
    text += parenthesized ? ")" : "";
  };
  if (x.kind == ast::ExprKind::Int) {
    text += literal_value(x)->str();
  } else if (x.kind == ast::ExprKind::UnaryOp) {
    text += x.op == Operator::Not ? "not " : spelling(x.op);
    operand(*x.elts[0], precedence(*x.elts[0]) < 7);
  } else if (x.kind != ast::ExprKind::BinOp) {
    text += "...";
  } else { // a left-associative chain, from its innermost operand out (no recursion per link)
    const std::vector<const ast::Expr *> spine = left_spine(x);
    const size_t start = text.size();
    write_int_expression(*spine.back()->elts[0], text, limit);
    int inner = precedence(*spine.back()->elts[0]);
    for (size_t i = spine.size(); i-- > 0 && text.size() <= start + limit;) {
      const int outer = precedence(*spine[i]);
      if (outer == 8 ? inner <= 8 : inner < outer) // (a + b) * c, (-2) ** 2, (2 ** 3) ** 2
        text = text.substr(0, start) + "(" + text.substr(start) + ")";
      text += " " + spelling(spine[i]->op) + " ";
      const int right = precedence(*spine[i]->elts[1]);
      operand(*spine[i]->elts[1], outer == 8 ? right < 7 : right <= outer);
      inner = outer;
    }
  }
}

} // namespace

std::string int_expression_text(const ast::Expr &e, size_t limit) {
  std::string text;
  write_int_expression(e, text, limit);
  if (text.size() > limit)
    text = text.substr(0, limit) + "...";
  return text;
}

} // namespace simt
