#include "gpu/ptxas_workarounds.h"

#include <regex>

namespace simt::gpu {

std::string avoid_ptxas_miscompiles(const std::string &ptx) {
  if (ptx.find("neg.s16") == std::string::npos && ptx.find("abs.s16") == std::string::npos)
    return ptx;
  // "\tneg.s16 \t%rs2, %rs1;" as LLVM prints them: one instruction per line.
  static const std::regex negation(R"(neg\.s16(\s+)(%\w+),\s*(%\w+|-?\d+);)");
  static const std::regex absolute(R"(abs\.s16\s+(%\w+),\s*(%\w+|-?\d+);)");
  std::string rewritten = std::regex_replace(ptx, negation, "sub.u16$1$2, 0, $3;");
  // |a| = (a ^ s) - s with s = a >> 15 (0 or -1); the braces scope the temporary register.
  return std::regex_replace(rewritten, absolute,
                            "{ .reg .b16 %abs_sign; shr.s16 %abs_sign, $2, 15; "
                            "xor.b16 $1, $2, %abs_sign; sub.u16 $1, $1, %abs_sign; }");
}

} // namespace simt::gpu
