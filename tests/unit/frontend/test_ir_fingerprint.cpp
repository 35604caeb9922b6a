// ir::fingerprint (the simulator's code-cache key) tells apart every kernel whose code differs,
// and ir::clone copies a module whole: the clone's fingerprint is the original's.
#include "ir/ir.h"
#include "tests/unit/frontend/typer_support.h"

#include <doctest/doctest.h>

#include <cctype>
#include <string>

using namespace simt;

namespace {

ir::Module compile(const std::string &text, const std::string &signature = "(float64[::1])") {
  return test::compile_cuda_kernel(text, signature);
}

const char *const kScale = R"(def k(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = out[i] * 2.5 + 1
)";

// `text` with every `from` (a word, where it is one) replaced by `to`.
std::string replaced(std::string text, const std::string &from, const std::string &to) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    const size_t end = at + from.size();
    const bool whole = (at == 0 || !word(text[at - 1]) || !word(from.front())) &&
                       (end == text.size() || !word(text[end]) || !word(from.back()));
    if (whole) {
      text.replace(at, from.size(), to);
      at += to.size();
    } else {
      at = end;
    }
  }
  return text;
}

} // namespace

TEST_CASE("equal kernels have equal fingerprints; a clone has its original's") {
  const ir::Module module = compile(kScale);
  CHECK(ir::fingerprint(module) == ir::fingerprint(compile(kScale)));
  const ir::Module copy = ir::clone(module);
  CHECK(ir::fingerprint(copy) == ir::fingerprint(module));
  CHECK(ir::dump(copy) == ir::dump(module));
}

TEST_CASE("kernels that differ anywhere have different fingerprints") {
  const std::string base = ir::fingerprint(compile(kScale));
  SUBCASE("a constant") { CHECK(ir::fingerprint(compile(replaced(kScale, "+ 1", "+ 2"))) != base); }
  SUBCASE("the sign of a zero") {
    const std::string zero = replaced(kScale, "2.5 + 1", "0.0");
    CHECK(ir::fingerprint(compile(zero)) !=
          ir::fingerprint(compile(replaced(zero, "0.0", "-0.0"))));
  }
  SUBCASE("a line (fault reports name it)") {
    CHECK(ir::fingerprint(compile(std::string("\n") + kScale)) != base);
  }
  SUBCASE("an argument's type or layout") {
    CHECK(ir::fingerprint(compile(kScale, "(float32[::1])")) != base);
    CHECK(ir::fingerprint(compile(kScale, "(float64[:])")) != base);
  }
  SUBCASE("a compile option") {
    ir::Module module = compile(kScale);
    module.options.fastmath = true;
    CHECK(ir::fingerprint(module) != base);
  }
  SUBCASE("a local's name (the debugger reads locals by name)") {
    CHECK(ir::fingerprint(compile(replaced(kScale, "i", "j"))) != base);
  }
}
