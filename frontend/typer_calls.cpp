// The call registry (typer_calls.h): the families' routes assembled once, and the dispatch of a
// call of a path through them.
#include "frontend/typer_calls.h"

#include <algorithm>
#include <stdexcept>

namespace simt {

CallRegistry::CallRegistry(std::vector<CallFamily> families) : families_(std::move(families)) {
  for (const CallFamily &family : families_)
    for (const CallRoute &route : family.routes) {
      const Match match{&family, &route};
      if (route.is_prefix()) {
        prefixes_.push_back(match);
        continue;
      }
      auto [it, added] = exact_.emplace(route.path, match);
      if (!added)
        throw std::logic_error("the call '" + route.path + "' is registered by both " +
                               it->second.family->name + " and " + family.name);
    }
  std::stable_sort(prefixes_.begin(), prefixes_.end(), [](const Match &a, const Match &b) {
    if (a.route->path.size() != b.route->path.size())
      return a.route->path.size() > b.route->path.size();
    return a.route->claims && !b.route->claims;
  });
}

CallRegistry::Match CallRegistry::find(const std::string &path, std::string &name) const {
  if (auto it = exact_.find(path); it != exact_.end()) {
    name = path;
    return it->second;
  }
  for (const Match &match : prefixes_) {
    const std::string &prefix = match.route->path;
    if (path.compare(0, prefix.size(), prefix) != 0)
      continue;
    std::string rest = path.substr(prefix.size());
    if (match.route->claims && !match.route->claims(rest))
      continue;
    name = std::move(rest);
    return match;
  }
  return {};
}

// The families in one place, in the order the typer tried them before the registry (it decides
// between tables of one prefix that know one name).
const CallRegistry &call_registry() {
  using T = FunctionTyper;
  static const CallRegistry registry({
      T::builtin_calls(),
      T::print_calls(),
      T::complex_calls(),
      T::operator_calls(),
      T::cuda_calls(),
      T::atomic_calls(),
      T::cuda_intrinsic_calls(),
      T::warp_calls(),
      T::libdevice_calls(),
      T::bf16_calls(),
      T::fp8_calls(),
      T::reduction_calls(),
      T::allocation_calls(),
      T::ufunc_calls(),
      T::math_calls(),
  });
  return registry;
}

Value FunctionTyper::not_callable(FunctionTyper &typer, const std::string &, const ast::Expr &e) {
  typer.error(e.loc, "'module' object is not callable");
}

Value FunctionTyper::call_path(const std::string &path, const ast::Expr &e) {
  std::string name;
  const CallRegistry::Match match = call_registry().find(path, name);
  if (!match.route)
    error(e.loc, "simt: calling '" + path + "' is not supported yet");
  return match.route->type(*this, name, e);
}

} // namespace simt
