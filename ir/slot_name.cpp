// Slot names' Python names (ir/slot_name.h).
#include "ir/slot_name.h"

#include <algorithm>
#include <cctype>

namespace simt {

std::string python_name(const std::string &name) {
  // "$p": a redefined parameter (a temporary's "$1" starts with a digit)
  if (name.size() > 1 && name[0] == '$' && !std::isdigit(static_cast<unsigned char>(name[1])))
    return name.substr(1);
  const size_t dot = name.rfind(kSlotVersion);
  if (dot != std::string::npos && dot > 0 && dot + 1 < name.size() &&
      std::all_of(name.begin() + long(dot) + 1, name.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return name.substr(0, dot);
  return name;
}

} // namespace simt
