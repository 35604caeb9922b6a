// The limits on how deeply a kernel may nest, so that compiling it never needs more stack than
// the compile has: pybind/own_stack.cpp runs it on a 64 MiB stack of its own (tests on the main
// thread's 8 MiB take test::on_compile_stack).
//
// Nesting: expressions inside expressions, blocks inside blocks and device functions calling
// device functions. The parser counts it per function, the typer across the functions it is
// typing at once (a device function's on top of its caller's: two or three levels a call), each
// in one place; both recurse once per level, the typer about 1 KiB a level and 2 KiB more a
// device-function call (three to four times that under AddressSanitizer, still within the
// stack). CPython refuses deeper source first: 200 nested brackets, 100 indentation levels, about
// 3,000 levels of syntax tree under its default recursion limit and 6,000 under any.
//
// Chains written flat: the operators of a left-associative chain (a + b + c is (a + b) + c) and
// the elifs of an if. They nest only in the syntax tree and the IR; the parser and the typer take
// them in loops, so a chain counts as no nesting, but other walks over the tree and the IR (the
// lowering's too) still recurse once per level, a few hundred bytes a level: kMaxChainDepth bounds
// those. (Under AddressSanitizer the lowering takes about 8 KiB a level: chains past about 7,000
// overflow the compile stack there.) CPython compiles a chain of more than about 3,000 only under
// a raised recursion limit, and fails on an elif chain of 10,000.
#pragma once

#include <string>

namespace simt {

inline constexpr int kMaxNesting = 6000;
inline constexpr int kMaxChainDepth = 20000;

// The error for source nested deeper than kMaxNesting.
inline std::string too_deeply_nested() {
  return "simt: too deeply nested (more than " + std::to_string(kMaxNesting) +
         " levels of nested expressions, blocks and device-function calls)";
}

// The error for chains nesting the syntax tree deeper than kMaxChainDepth.
inline std::string chain_too_long() {
  return "simt: too long a chain (more than " + std::to_string(kMaxChainDepth) +
         " levels of operators and elifs, counting the chains around it)";
}

// The levels one step of a walk holds on `depth`, given back when it ends.
class Nesting {
public:
  explicit Nesting(int &depth, int limit = kMaxNesting) : depth_(depth), limit_(limit) {}
  Nesting(const Nesting &) = delete;
  Nesting &operator=(const Nesting &) = delete;
  ~Nesting() { depth_ -= levels_; }

  // One level deeper; `fail` (which throws) reports going past the limit.
  template <typename Fail> void enter(Fail &&fail) {
    if (depth_ >= limit_)
      fail();
    ++depth_;
    ++levels_;
  }

private:
  int &depth_;
  const int limit_;
  int levels_ = 0;
};

} // namespace simt
