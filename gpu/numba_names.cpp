#include "gpu/numba_names.h"

#include <llvm/IR/Instructions.h>

#include <cctype>

namespace simt::gpu {

namespace {

constexpr const char *local_array_name = "_cudapy_lmem";

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' ||
         c == '-';
}

} // namespace

void restore_local_array_names(llvm::Module &module) {
  for (llvm::Function &fn : module)
    for (llvm::BasicBlock &block : fn)
      for (llvm::Instruction &inst : block)
        if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst))
          if (alloca->getName().starts_with(local_array_name) &&
              alloca->getName() != local_array_name)
            alloca->setName(local_array_name);
}

std::string quote_array_names(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const bool global = text.compare(i, 14, "@_cudapy_smem_") == 0;
    const bool local = text.compare(i, 13, "%_cudapy_lmem") == 0;
    if (!global && !local) {
      out += text[i++];
      continue;
    }
    size_t end = i + 1;
    while (end < text.size() && name_char(text[end]))
      ++end;
    out += text[i];
    out += '"';
    out.append(text, i + 1, end - i - 1);
    out += '"';
    i = end;
  }
  return out;
}

} // namespace simt::gpu
