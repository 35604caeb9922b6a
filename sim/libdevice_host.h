// The host's libdevice: for every libdevice function (ir/libdevice.def) an extern "C"
// function simt_libdevice_<name> with libdevice's signature (outputs as pointers; int16 as
// int32_t), which HostTarget::libdevice calls and the JIT resolves. docs/user-guide.md
// ("libdevice on simt") says which are exact and which approximate CUDA's.
#pragma once

#include <span>

namespace simt::sim {

struct HostSymbol {
  const char *name;
  void *address;
};

// simt_libdevice_<name> of every libdevice function, in the table's order.
std::span<const HostSymbol> libdevice_host_symbols();

} // namespace simt::sim
