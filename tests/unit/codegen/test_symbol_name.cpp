// codegen/symbol_name.h: the one place emitted symbols get their names.
#include "codegen/symbol_name.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

using simt::codegen::is_symbol_name;
using simt::codegen::symbol_name;

TEST_CASE("symbol names: PTX identifiers stay as they are") {
  for (const char *name : {"k", "vector_add", "_k", "__k", "$k", "k$1", "dev$12", "a1", "K_9$z"}) {
    CHECK(is_symbol_name(name));
    CHECK(symbol_name(name) == name);
  }
  for (const char *name : {"", "_", "$", "1k", "a b", "a.b", "k\xc3\xb1", "<lambda>", "a-b"})
    CHECK_FALSE(is_symbol_name(name));
}

TEST_CASE("symbol names: other bytes are written $XX") {
  CHECK(symbol_name("<lambda>") == "$3clambda$3e");
  CHECK(symbol_name("k\xc3\xb1") == "k$c3$b1");     // kñ
  CHECK(symbol_name("\xcf\x80") == "$cf$80");       // π
  CHECK(symbol_name("\xcf\x80$1") == "$cf$80$241"); // a device function π's first signature
  CHECK(symbol_name("_") == "$5f");
  CHECK(symbol_name("1k") == "$31k");
  CHECK(symbol_name("a b") == "a$20b");
  CHECK(symbol_name(std::string("a\0b", 3)) == "a$00b");
  CHECK(symbol_name("") == "$_");
  for (const char *name : {"<lambda>", "k\xc3\xb1", "_", "1k", "", "a.b$c"})
    CHECK(is_symbol_name(symbol_name(name)));
}

TEST_CASE("symbol names: Python's names never share one") {
  // Numba's `_3c` escape would give `<lambda>` and the identifier `_3clambda_3e` one name.
  const char *names[] = {
      "<lambda>", "_3clambda_3e", "$3clambda$3e", "k\xc3\xb1", "k_c3_b1", "k$c3$b1", "_",   "$5f",
      "__",       "1k",           "$31k",         "a b",       "a$20b",   "a\x01",   "a$01"};
  std::set<std::string> distinct;
  size_t dollar_free = 0;
  for (const char *name : names)
    if (std::string(name).find('$') == std::string::npos) {
      ++dollar_free;
      distinct.insert(symbol_name(name));
    }
  CHECK(distinct.size() == dollar_free);
}
