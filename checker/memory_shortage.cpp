#include "checker/memory_shortage.h"

#include <cstdio>

namespace simt::checker {

std::string size_text(uint64_t bytes) {
  char text[32];
  if (bytes < (uint64_t(1) << 20))
    std::snprintf(text, sizeof text, "%.1f KiB", double(bytes) / 1024);
  else if (bytes < (uint64_t(1) << 30))
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1 << 20));
  else
    std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / double(1 << 30));
  return text;
}

std::string out_of_memory_text(Tool tool, const std::string &doing, uint64_t needed, uint64_t held,
                               const char *then) {
  std::string text = std::string("simt check: ") + tool_name(tool) + " ran out of memory " + doing;
  if (needed != 0)
    text += ", which needs " + size_text(needed) + " of shadow memory (" +
            (tool == Tool::Race ? "4 bytes per byte of memory kernels access"
                                : "a byte per byte of memory it tracks") +
            ")";
  return text + "; it held " + size_text(held) + " when an allocation failed." + then +
         " Give the process more memory, check smaller arrays, or fewer tools at once (--tool).";
}

void MemoryShortage::ran_out(Tool tool) noexcept {
  if (stopped_.exchange(true))
    return;
  const uint64_t arrays = launch_.spanned_bytes();
  const bool race = tool == Tool::Race;
  // Racecheck keeps Shadow::kCells 8-byte cells per 8-byte granule of memory.
  shortage_ = {tool, race ? Shadow::kCells * arrays : 0,
               race ? (races_ != nullptr ? races_->shadow_bytes() : 0) : tracked_.bytes(), arrays};
}

void MemoryShortage::throw_if_out_of_memory(const std::string &kernel) {
  if (!stopped_.exchange(false))
    return;
  std::string doing = "in kernel `" + kernel + "`";
  if (shortage_.needed != 0)
    doing += " (its arrays: " + size_text(shortage_.arrays) + ")";
  throw ShadowOutOfMemory(out_of_memory_text(shortage_.tool, doing, shortage_.needed,
                                             shortage_.held,
                                             " The kernel ran to its end, unchecked from there."));
}

} // namespace simt::checker
