// The one limit on how deeply a kernel may nest: expressions inside expressions, blocks inside
// blocks (an elif is a block inside its if) and device functions calling device functions. The
// parser and the typer each count their recursion against it in one place, so neither (nor the
// lowering, whose IR depth follows the typer's) needs more C++ stack than the limit allows, and
// a compile on a Python thread with a small stack cannot overflow it. CPython's own limits are of
// the same order: 200 nested brackets, 100 indentation levels, about 3,000 levels of syntax tree
// under its default recursion limit.
#pragma once

#include <string>

namespace simt {

inline constexpr int kMaxNesting = 1000;

// The error for source nested deeper than kMaxNesting.
inline std::string too_deeply_nested() {
  return "simt: too deeply nested (more than " + std::to_string(kMaxNesting) +
         " levels of nested expressions, blocks and device-function calls)";
}

// The levels one recursive step of a walk holds on `depth`, given back when it ends.
class Nesting {
public:
  explicit Nesting(int &depth) : depth_(depth) {}
  Nesting(const Nesting &) = delete;
  Nesting &operator=(const Nesting &) = delete;
  ~Nesting() { depth_ -= levels_; }

  // One level deeper; `fail` (which throws) reports a level past kMaxNesting.
  template <typename Fail> void enter(Fail &&fail) {
    if (depth_ >= kMaxNesting)
      fail();
    ++depth_;
    ++levels_;
  }

private:
  int &depth_;
  int levels_ = 0;
};

} // namespace simt
