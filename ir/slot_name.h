// How the typed IR names slots that are not simply a Python variable: compiler temporaries
// ("$1"), a parameter redefined at the top of its function ("$p") and a loop's own version of a
// variable ("v.2"; frontend/param_versions.h makes these).
#pragma once

#include <string>

namespace simt {

// Between a variable's name and its version number: "v" + kSlotVersion + "2".
inline constexpr char kSlotVersion = '.';

// The Python name of a slot: "p" for "$p", "v" for "v.2"; any other name (a compiler
// temporary's "$1" too) as it is.
std::string python_name(const std::string &slot_name);

} // namespace simt
