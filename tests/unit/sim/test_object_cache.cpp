// The keyed checksum that on-disk cache entries carry.
#include "sim/object_cache.h"

#include <doctest/doctest.h>

#include <llvm/ADT/StringExtras.h>

#include <string>
#include <vector>

namespace {

std::string hex_hmac(const std::vector<uint8_t> &secret,
                     std::initializer_list<llvm::StringRef> parts) {
  return llvm::toHex(simt::sim::hmac_sha256(secret, parts), /*LowerCase=*/true);
}

std::vector<uint8_t> bytes(llvm::StringRef text) { return {text.begin(), text.end()}; }

} // namespace

// RFC 4231's test vectors for HMAC-SHA256.
TEST_CASE("object cache: HMAC-SHA256 matches RFC 4231") {
  CHECK(hex_hmac(std::vector<uint8_t>(20, 0x0b), {"Hi There"}) ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  CHECK(hex_hmac(bytes("Jefe"), {"what do ya want ", "for nothing?"}) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // A key longer than SHA-256's block is hashed first.
  CHECK(hex_hmac(std::vector<uint8_t>(131, 0xaa),
                 {"Test Using Larger Than Block-Size Key - Hash Key First"}) ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST_CASE("object cache: the checksum covers every part and the secret") {
  const std::vector<uint8_t> secret(32, 7);
  const std::string whole = hex_hmac(secret, {"key", llvm::StringRef("\0", 1), "object"});
  CHECK(whole == hex_hmac(secret, {"ke", "y", llvm::StringRef("\0o", 2), "bject"}));
  CHECK(whole != hex_hmac(secret, {"key", llvm::StringRef("\0", 1), "objecu"}));
  CHECK(whole !=
        hex_hmac(std::vector<uint8_t>(32, 8), {"key", llvm::StringRef("\0", 1), "object"}));
}
