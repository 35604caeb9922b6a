// ir::fingerprint: every field of a typed IR module (ir.h's fields()), written as bytes. A
// backend's code is a function of the module (and of the backend's own build), so equal
// fingerprints may share code: the simulator keys its code caches by it and skips lowering a kernel
// it has compiled before.
#include "ir/ir.h"

#include <cstring>

namespace simt::ir {
namespace {

class Writer {
public:
  std::string bytes;

  void number(int64_t value) { raw(&value, sizeof value); }
  void real(double value) { raw(&value, sizeof value); } // its bits: -0.0 and NaNs stay apart
  void text(const std::string &value) {
    number(int64_t(value.size()));
    bytes += value;
  }
  void numbers(const std::vector<int64_t> &values) {
    number(int64_t(values.size()));
    for (int64_t value : values)
      number(value);
  }

  void type(const Type &t) {
    number(int64_t(t.kind));
    number(int64_t(t.scalar));
    number(t.ndim);
    number(t.layout);
    number(int64_t(t.space));
    number(t.readonly);
    number(int64_t(t.elems.size()));
    for (const Type &elem : t.elems)
      type(elem);
    number(t.record != nullptr);
    if (t.record != nullptr) {
      number(t.record->size);
      number(t.record->aligned);
      number(int64_t(t.record->chars));
      number(int64_t(t.record->fields.size()));
      for (const RecordField &field : t.record->fields) {
        text(field.name);
        number(int64_t(field.scalar));
        number(field.offset);
        numbers(field.shape);
        text(field.record ? field.record->str() : std::string()); // a nested record's layout
      }
    }
    number(t.nominal != nullptr);
    if (t.nominal != nullptr) {
      number(int64_t(t.nominal->kind));
      number(int64_t(t.nominal->identity));
      text(t.nominal->name);
      for (const std::string &field : t.nominal->fields)
        text(field);
    }
  }

  // Any IR value: its fields (ir.h's fields()) in order, a vector's size before its elements.
  template <typename T> void write(const T &value) {
    if constexpr (std::is_same_v<T, double>)
      real(value);
    else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>)
      number(int64_t(value));
    else if constexpr (std::is_same_v<T, std::string>)
      text(value);
    else if constexpr (std::is_same_v<T, Type>)
      type(value);
    else if constexpr (std::is_same_v<T, ExprPtr>)
      write(*value);
    else if constexpr (std::is_same_v<T, ArrayElements>)
      text(value.str());
    else if constexpr (std::is_same_v<T, CompileOptions>)
      text(value.key());
    else if constexpr (std::is_same_v<T, std::vector<uint8_t>>)
      text(std::string(value.begin(), value.end()));
    else if constexpr (requires {
                         value.size();
                         value.begin();
                       }) {
      number(int64_t(value.size()));
      for (const auto &element : value)
        write(element);
    } else
      std::apply([&](const auto &...field) { (write(field), ...); }, fields(value));
  }

private:
  void raw(const void *data, size_t size) { bytes.append(static_cast<const char *>(data), size); }
};

} // namespace

std::string fingerprint(const Module &module) {
  Writer out;
  out.write(module);
  return std::move(out.bytes);
}

} // namespace simt::ir
