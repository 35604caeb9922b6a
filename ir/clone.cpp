// ir::clone: a deep copy of a typed IR module, field by field as ir.h's fields() lists them (its
// expressions are owned through unique_ptr, so a module cannot simply be copied).
#include "ir/ir.h"

namespace simt::ir {
namespace {

template <typename T> struct is_vector : std::false_type {};
template <typename T> struct is_vector<std::vector<T>> : std::true_type {};

template <typename T> void copy(T &to, const T &from) {
  if constexpr (std::is_same_v<T, ExprPtr>) {
    to = std::make_unique<Expr>();
    copy(*to, *from);
  } else if constexpr (is_vector<T>::value) {
    to.resize(from.size());
    for (size_t i = 0; i < from.size(); ++i)
      copy(to[i], from[i]);
  } else if constexpr (requires { fields(to); }) {
    std::apply(
        [&](auto &...to_fields) {
          std::apply([&](const auto &...from_fields) { (copy(to_fields, from_fields), ...); },
                     fields(from));
        },
        fields(to));
  } else {
    to = from;
  }
}

} // namespace

Module clone(const Module &module) {
  Module copied;
  copy(copied, module);
  return copied;
}

ExprPtr clone(const Expr &e) {
  auto copied = std::make_unique<Expr>();
  copy(*copied, e);
  return copied;
}

} // namespace simt::ir
