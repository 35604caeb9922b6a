#include "ir/types.h"
#include "ir/time_units.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace simt {

bool is_integer(Scalar s) {
  return s != Scalar::Bool && s != Scalar::BF16 && !is_float(s) && !is_complex(s);
}

bool is_signed(Scalar s) {
  switch (s) {
  case Scalar::I8:
  case Scalar::I16:
  case Scalar::I32:
  case Scalar::I64:
  case Scalar::F32:
  case Scalar::F64:
  case Scalar::C64:
  case Scalar::C128:
  case Scalar::F16:
  case Scalar::BF16:
    return true;
  default:
    return false;
  }
}

bool is_float(Scalar s) { return s == Scalar::F16 || s == Scalar::F32 || s == Scalar::F64; }

bool is_real(Scalar s) { return is_float(s) || s == Scalar::BF16; }

bool is_complex(Scalar s) { return s == Scalar::C64 || s == Scalar::C128; }

Scalar component_of(Scalar s) {
  return s == Scalar::C64 ? Scalar::F32 : s == Scalar::C128 ? Scalar::F64 : s;
}

Scalar complex_of(Scalar s) { return s == Scalar::F32 ? Scalar::C64 : Scalar::C128; }

int bit_width(Scalar s) {
  switch (s) {
  case Scalar::Bool:
    return 1;
  case Scalar::I8:
  case Scalar::U8:
    return 8;
  case Scalar::I16:
  case Scalar::U16:
  case Scalar::F16:
  case Scalar::BF16:
    return 16;
  case Scalar::I32:
  case Scalar::U32:
  case Scalar::F32:
    return 32;
  case Scalar::C128:
    return 128;
  default:
    return 64;
  }
}

int byte_size(Scalar s) { return s == Scalar::Bool ? 1 : bit_width(s) / 8; }

double round_to_float16(double value) {
  if (!std::isfinite(value) || value == 0)
    return value;
  int exponent;
  std::frexp(value, &exponent); // |value| in [2**(exponent-1), 2**exponent)
  // float16 keeps 11 significant bits; below 2**-14 (subnormals) its spacing is 2**-24
  int quantum = std::max(exponent - 11, -24);
  double rounded = std::ldexp(std::nearbyint(std::ldexp(value, -quantum)), quantum);
  return std::fabs(rounded) > 65504 ? std::copysign(INFINITY, value) : rounded;
}

uint16_t float16_bits(double value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  double magnitude = std::fabs(value);
  if (std::isnan(value))
    return sign | 0x7e00;
  if (std::isinf(value))
    return sign | 0x7c00;
  if (magnitude < 0x1p-14) // subnormal (or zero): the count of 2**-24 steps
    return sign | static_cast<uint16_t>(std::ldexp(magnitude, 24));
  int exponent;
  double fraction = std::frexp(magnitude, &exponent); // [0.5, 1) * 2**exponent
  auto mantissa = static_cast<uint16_t>(std::ldexp(fraction * 2 - 1, 10));
  return sign | static_cast<uint16_t>((exponent - 1 + 15) << 10) | mantissa;
}

double round_to_bfloat16(double value) {
  if (!std::isfinite(value) || value == 0)
    return value;
  int exponent;
  std::frexp(value, &exponent);
  // bfloat16 keeps 8 significant bits; below 2**-126 (subnormals) its spacing is 2**-133
  int quantum = std::max(exponent - 8, -133);
  double rounded = std::ldexp(std::nearbyint(std::ldexp(value, -quantum)), quantum);
  return std::fabs(rounded) > 0x1.fep127 ? std::copysign(INFINITY, value) : rounded;
}

uint16_t bfloat16_bits(double value) {
  if (std::isnan(value))
    return 0x7fff;
  // a value bfloat16 holds is exact in float32, whose top half its bits are
  float narrow = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &narrow, sizeof bits);
  return static_cast<uint16_t>(bits >> 16);
}

double bfloat16_value(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

std::string scalar_name(Scalar s) {
  static const char *const names[] = {"bool",       "int8",    "int16",        "int32",
                                      "int64",      "uint8",   "uint16",       "uint32",
                                      "uint64",     "float32", "float64",      "complex64",
                                      "complex128", "float16", "__nv_bfloat16"};
  return names[static_cast<int>(s)];
}

bool parse_scalar_name(const std::string &name, Scalar &out) {
  static const std::map<std::string, Scalar> names = {
      {"bool", Scalar::Bool},
      {"bool_", Scalar::Bool},
      {"boolean", Scalar::Bool},
      {"b1", Scalar::Bool},
      {"?", Scalar::Bool},
      {"int8", Scalar::I8},
      {"i1", Scalar::I8},
      {"byte", Scalar::I8},
      {"int16", Scalar::I16},
      {"i2", Scalar::I16},
      {"short", Scalar::I16},
      {"int32", Scalar::I32},
      {"i4", Scalar::I32},
      {"intc", Scalar::I32},
      {"int64", Scalar::I64},
      {"i8", Scalar::I64},
      {"int", Scalar::I64},
      {"intp", Scalar::I64},
      {"int_", Scalar::I64},
      {"long", Scalar::I64},
      {"longlong", Scalar::I64},
      {"uint8", Scalar::U8},
      {"u1", Scalar::U8},
      {"ubyte", Scalar::U8},
      {"uint16", Scalar::U16},
      {"u2", Scalar::U16},
      {"ushort", Scalar::U16},
      {"uint32", Scalar::U32},
      {"u4", Scalar::U32},
      {"uintc", Scalar::U32},
      {"uint64", Scalar::U64},
      {"u8", Scalar::U64},
      {"uint", Scalar::U64},
      {"uintp", Scalar::U64},
      {"ulonglong", Scalar::U64},
      {"float32", Scalar::F32},
      {"f4", Scalar::F32},
      {"single", Scalar::F32},
      {"float64", Scalar::F64},
      {"f8", Scalar::F64},
      {"float", Scalar::F64},
      {"double", Scalar::F64},
      {"float_", Scalar::F64},
      {"complex64", Scalar::C64},
      {"c8", Scalar::C64},
      {"csingle", Scalar::C64},
      {"complex128", Scalar::C128},
      {"c16", Scalar::C128},
      {"complex", Scalar::C128},
      {"cdouble", Scalar::C128},
      {"complex_", Scalar::C128},
      {"float16", Scalar::F16},
      {"f2", Scalar::F16},
      {"half", Scalar::F16},
      {"__nv_bfloat16", Scalar::BF16},
      {"nv_bfloat16", Scalar::BF16},
      {"bfloat16", Scalar::BF16},
  };
  auto it = names.find(name);
  if (it == names.end())
    return false;
  out = it->second;
  return true;
}

bool parse_numba_type_name(const std::string &name, Scalar &out) {
  static const std::map<std::string, Scalar> numba_only = {
      {"byte", Scalar::U8},     {"float_", Scalar::F32}, {"size_t", Scalar::U64},
      {"ssize_t", Scalar::I64}, {"char", Scalar::I8},    {"uchar", Scalar::U8},
      {"long_", Scalar::I64},   {"ulong", Scalar::U64},
  };
  if (auto it = numba_only.find(name); it != numba_only.end()) {
    out = it->second;
    return true;
  }
  return parse_scalar_name(name, out);
}

int Record::field_index(const std::string &name) const {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == name)
      return static_cast<int>(i);
  return -1;
}

bool RecordField::operator==(const RecordField &other) const {
  const bool same_record =
      record == other.record || (record && other.record && *record == *other.record);
  return name == other.name && scalar == other.scalar && offset == other.offset &&
         shape == other.shape && same_record;
}

int64_t RecordField::size() const {
  int64_t bytes = record ? record->size : byte_size(scalar);
  for (int64_t extent : shape)
    bytes *= extent;
  return bytes;
}

std::string RecordField::type_str() const {
  const std::string element = record ? record->str() : scalar_name(scalar);
  if (shape.empty())
    return element;
  std::string out = "nestedarray(" + element + ", (";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",))" : "))");
}

std::shared_ptr<const Record> Record::chars_of(Chars kind, int64_t count) {
  auto record = std::make_shared<Record>();
  record->chars = kind;
  const Scalar code = kind == Chars::Bytes ? Scalar::U8 : Scalar::U32;
  record->fields.push_back({"", code, 0, {count}});
  record->size = count * byte_size(code);
  return record;
}

std::string Record::str() const {
  if (chars != Chars::None)
    return std::string(chars == Chars::Bytes ? "[char x " : "[unichr x ") +
           std::to_string(char_count()) + "]";
  std::string out = "Record(";
  for (size_t i = 0; i < fields.size(); ++i)
    out += (i ? "," : "") + fields[i].name + "[type=" + fields[i].type_str() +
           ";offset=" + std::to_string(fields[i].offset) + "]";
  return out + ";" + std::to_string(size) + ";" + (aligned ? "True" : "False") + ")";
}

Type Type::time_of(NominalClass::Kind kind, const std::string &unit) {
  auto cls = std::make_shared<NominalClass>();
  cls->kind = kind;
  cls->name = unit;
  Type t = scalar_of(Scalar::I64);
  t.nominal = std::move(cls);
  return t;
}

Type Type::optional_of(const Type &value) {
  Type t = tuple_of({scalar_of(Scalar::Bool), value});
  t.optional = true;
  return t;
}

Type Type::storage_of(const std::string &name, Scalar bits) {
  auto cls = std::make_shared<NominalClass>();
  cls->kind = NominalClass::Kind::Storage;
  cls->name = name;
  Type t = scalar_of(bits);
  t.nominal = std::move(cls);
  return t;
}

bool Type::operator==(const Type &other) const {
  bool same_record = record == other.record || (record && other.record && *record == *other.record);
  bool same_nominal =
      nominal == other.nominal || (nominal && other.nominal && *nominal == *other.nominal);
  return kind == other.kind && scalar == other.scalar && ndim == other.ndim &&
         layout == other.layout && space == other.space && elems == other.elems && same_record &&
         readonly == other.readonly && optional == other.optional && same_nominal;
}

bool same_dtype(const Type &a, const Type &b) {
  if (a.record || b.record)
    return a.record && b.record && *a.record == *b.record;
  return a.scalar == b.scalar;
}

std::string Type::str() const {
  if (is_time()) { // datetime64[D], array(timedelta64[ns], 1d, C); generic: datetime64
    std::string name = is_datetime() ? "datetime64" : "timedelta64";
    if (!nominal->name.empty())
      name += "[" + nominal->name + "]";
    if (!is_array())
      return name;
    return (readonly ? "readonly array(" : "array(") + name + ", " + std::to_string(ndim) + "d, " +
           std::string(1, layout) + ")";
  }
  if (nominal) {
    // Parsed back by parse_signature; the identity tells classes of equal names apart.
    const std::string cls = nominal->name + "#" + std::to_string(nominal->identity);
    switch (nominal->kind) {
    case NominalClass::Kind::Enum:
      return "EnumMember(" + cls + ", " + plain().str() + ")";
    case NominalClass::Kind::IntEnum:
      return "IntEnumMember(" + cls + ", " + plain().str() + ")";
    case NominalClass::Kind::NamedTuple: {
      std::string out = "NamedTuple(" + cls;
      for (size_t i = 0; i < elems.size(); ++i)
        out += ", " + nominal->fields.at(i) + ": " + elems[i].str();
      return out + ")";
    }
    case NominalClass::Kind::Storage: // fp8_e4m3, bfloat16_raw
      return nominal->name;
    case NominalClass::Kind::Datetime:
    case NominalClass::Kind::Timedelta:
      break; // spelt above
    }
  }
  switch (kind) {
  case Kind::None:
    return "none";
  case Kind::Scalar:
    return scalar_name(scalar);
  case Kind::Record: // a record of a read-only array: a simt spelling (Numba has none)
    return (readonly ? "readonly " : "") + record->str();
  case Kind::Array:
    return (readonly ? "readonly array(" : "array(") +
           (record ? record->str() : scalar_name(scalar)) + ", " + std::to_string(ndim) + "d, " +
           std::string(1, layout) + ")";
  case Kind::Tuple: {
    if (optional)
      return "OptionalType(" + elems[1].str() + ")";
    bool uniform = !elems.empty() && std::all_of(elems.begin(), elems.end(),
                                                 [&](const Type &t) { return t == elems[0]; });
    if (uniform)
      return "UniTuple(" + elems[0].str() + " x " + std::to_string(elems.size()) + ")";
    std::string out = "Tuple(";
    for (size_t i = 0; i < elems.size(); ++i)
      out += (i ? ", " : "") + elems[i].str();
    return out + ")";
  }
  case Kind::ThreadBlock:
    return "ThreadBlock";
  case Kind::GridGroup:
    return "GridGroup";
  case Kind::Vector:
    return scalar_name(scalar) + "x" + std::to_string(ndim);
  }
  return "?";
}

namespace {

Scalar signed_of_bits(int bits) {
  switch (bits) {
  case 8:
    return Scalar::I8;
  case 16:
    return Scalar::I16;
  case 32:
    return Scalar::I32;
  default:
    return Scalar::I64;
  }
}

// numpy.promote_types, which Numba uses to unify two numbers (Number.unify).
Scalar numpy_promote(Scalar a, Scalar b) {
  if (a == b || b == Scalar::Bool)
    return a;
  if (a == Scalar::Bool)
    return b;
  if (a == Scalar::BF16 || b == Scalar::BF16) {
    // numba-cuda's Bfloat16.unify: with bfloat16's safe conversions (8-bit ints) a bfloat16,
    // else as float32 (bfloat16's safe conversion) unifies
    Scalar other = a == Scalar::BF16 ? b : a;
    if (other == Scalar::I8 || other == Scalar::U8)
      return Scalar::BF16;
    return numpy_promote(Scalar::F32, other);
  }
  if (is_complex(a) || is_complex(b)) {
    // the complex type holding both: complex64 only when the other fits float32 exactly
    Scalar other = is_complex(a) ? b : a;
    Scalar c = is_complex(a) ? a : b;
    if (c == Scalar::C128 || other == Scalar::C128)
      return Scalar::C128;
    return numpy_promote(Scalar::F32, component_of(other)) == Scalar::F32 ? Scalar::C64
                                                                          : Scalar::C128;
  }
  if (is_float(a) || is_float(b)) {
    if (is_float(a) && is_float(b))
      return bit_width(a) >= bit_width(b) ? a : b;
    Scalar integer = is_float(a) ? b : a;
    Scalar real = is_float(a) ? a : b;
    if (real == Scalar::F16 && bit_width(integer) <= 8)
      return Scalar::F16;
    if (real != Scalar::F64 && bit_width(integer) <= 16)
      return Scalar::F32;
    return Scalar::F64;
  }
  if (is_signed(a) == is_signed(b))
    return bit_width(a) >= bit_width(b) ? a : b;
  Scalar s = is_signed(a) ? a : b;
  Scalar u = is_signed(a) ? b : a;
  if (bit_width(s) > bit_width(u))
    return s;
  if (bit_width(u) == 64)
    return Scalar::F64;
  return signed_of_bits(bit_width(u) * 2);
}

} // namespace

bool unify(const Type &a, const Type &b, Type &out) {
  if (a == b) {
    out = a;
    return true;
  }
  if (a.is_time() && b.is_time() && a.nominal->kind == b.nominal->kind && a.kind == b.kind) {
    // Times of one kind unify in the unit both convert to (NPDatetime / NPTimedelta unify).
    auto unit = common_time_unit(a.nominal->name, b.nominal->name);
    if (!unit || a.kind != Type::Kind::Scalar)
      return false;
    out = Type::time_of(a.nominal->kind, *unit);
    return true;
  }
  if (a.nominal || b.nominal) {
    // Members of one Enum class are equal types above; IntEnum members unify as integers.
    // Namedtuples and other enum members unify with nothing else, as in Numba.
    auto as_int = [](const Type &t) {
      return !t.nominal || t.is_nominal(NominalClass::Kind::IntEnum);
    };
    return as_int(a) && as_int(b) && unify(a.plain(), b.plain(), out);
  }
  if (a.is_optional() || b.is_optional()) { // OptionalType(T) with T, None or another Optional
    const Type &x = a.is_optional() ? a.elems[1] : a, &y = b.is_optional() ? b.elems[1] : b;
    Type value;
    if (x.is_none() || y.is_none())
      value = x.is_none() ? y : x;
    else if (!unify(x, y, value))
      return false;
    out = Type::optional_of(value);
    return true;
  }
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case Type::Kind::None:
  case Type::Kind::ThreadBlock:
  case Type::Kind::GridGroup:
    out = a;
    return true;
  case Type::Kind::Record: // records of one layout in different arrays
    if (*a.record != *b.record)
      return false;
    out = a;
    out.readonly = a.readonly || b.readonly;
    out.space = a.space == b.space ? a.space : MemSpace::Global;
    return true;
  case Type::Kind::Vector:
    return false; // equal ones returned above
  case Type::Kind::Scalar:
    out = Type::scalar_of(numpy_promote(a.scalar, b.scalar));
    return true;
  case Type::Kind::Array:
    if (!same_dtype(a, b) || a.ndim != b.ndim || a.space != b.space)
      return false;
    out = a;
    out.layout = a.layout == b.layout ? a.layout : 'A';
    out.readonly = a.readonly || b.readonly; // as Numba's Array.unify
    return true;
  case Type::Kind::Tuple: {
    if (a.elems.size() != b.elems.size())
      return false;
    std::vector<Type> elems(a.elems.size());
    for (size_t i = 0; i < elems.size(); ++i)
      if (!unify(a.elems[i], b.elems[i], elems[i]))
        return false;
    out = Type::tuple_of(std::move(elems));
    return true;
  }
  }
  return false;
}

} // namespace simt
