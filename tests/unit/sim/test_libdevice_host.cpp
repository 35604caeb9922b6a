// The host's libdevice (sim/libdevice_host.h): one C function per table entry, for the JIT.
#include "ir/libdevice.h"
#include "sim/libdevice_host.h"

#include <doctest/doctest.h>

#include <string>

using namespace simt;

TEST_CASE("every libdevice function has a host function of its name") {
  auto symbols = sim::libdevice_host_symbols();
  REQUIRE(int(symbols.size()) == ir::kLibdeviceCount);
  for (int i = 0; i < ir::kLibdeviceCount; ++i) {
    CAPTURE(symbols[i].name);
    CHECK(std::string(symbols[i].name) ==
          std::string("simt_libdevice_") + ir::libdevice_name(ir::Libdevice(i)));
    CHECK(symbols[i].address != nullptr);
  }
}

TEST_CASE("rounding modes are named and restored") {
  auto fn = [](const char *name) {
    for (const sim::HostSymbol &s : sim::libdevice_host_symbols())
      if (std::string(s.name) == name)
        return s.address;
    return static_cast<void *>(nullptr);
  };
  auto fadd = [&](const char *name, float x, float y) {
    return reinterpret_cast<float (*)(float, float)>(fn(name))(x, y);
  };
  volatile float one = 1.0f, tiny = 1e-8f;
  CHECK(fadd("simt_libdevice_fadd_rn", one, tiny) == 1.0f);
  CHECK(fadd("simt_libdevice_fadd_rz", one, tiny) == 1.0f);
  CHECK(fadd("simt_libdevice_fadd_ru", one, tiny) == 1.0f + 0x1p-23f);
  CHECK(fadd("simt_libdevice_fadd_rd", -one, -tiny) == -1.0f - 0x1p-23f);
  CHECK(one + tiny == 1.0f); // back to round-to-nearest
}
