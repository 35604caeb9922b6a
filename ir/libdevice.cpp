// Numba's typing of the libdevice functions (ir/libdevice.def).
#include "ir/libdevice.h"

#include <vector>

namespace simt::ir {

Type libdevice_result_type(Libdevice fn) {
  const LibdeviceInfo &info = libdevice_info(fn);
  std::vector<Type> values;
  if (info.result != LibdeviceType::Void)
    values.push_back(Type::scalar_of(libdevice_scalar(info.result)));
  for (const LibdeviceParam &p : info)
    if (p.output)
      values.push_back(Type::scalar_of(libdevice_scalar(p.type)));
  return values.size() == 1 ? values.front() : Type::tuple_of(std::move(values));
}

std::string libdevice_signature(Libdevice fn) {
  const LibdeviceInfo &info = libdevice_info(fn);
  std::string text = std::string("libdevice.") + info.name + "(";
  bool first = true;
  for (const LibdeviceParam &p : info) {
    if (p.output)
      continue;
    text +=
        (first ? "" : ", ") + std::string(p.name) + ": " + scalar_name(libdevice_scalar(p.type));
    first = false;
  }
  return text + ") -> " + libdevice_result_type(fn).str();
}

} // namespace simt::ir
