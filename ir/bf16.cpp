// numba.cuda.bf16's signatures (ir/bf16.def), for messages.
#include "ir/bf16.h"

namespace simt::ir {

std::string bf16_signature(Bf16Fn fn) {
  static const char *const names[] = {"a", "b", "c"};
  const Bf16Info &info = bf16_info(fn);
  std::string text = std::string("bf16.") + info.name + "(";
  for (int i = 0; i < info.arity; ++i)
    text += (i ? ", " : "") + std::string(names[i]) + ": " + scalar_name(info.param);
  return text + ") -> " + scalar_name(info.result);
}

} // namespace simt::ir
