// Types of the kernel language, named and promoted as Numba names and promotes them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace simt {

// Scalar element types. The order is part of the pybind/runtime contract (dtype codes).
// C64/C128 (complex64/complex128) are {float, float} / {double, double}: real, then imaginary.
// F16 (float16) is IEEE half; Numba types arithmetic on it in float32 (it is no real_domain type).
// BF16 (bfloat16, numba-cuda's numba.cuda.types.bfloat16, printed "__nv_bfloat16") is float32's
// top 16 bits (8 exponent bits, 7 stored significand bits). Like numba-cuda's Bfloat16 it is a
// number but not a Float: is_float and is_integer are false for it. + - * / of two bfloat16s
// give a bfloat16 (rounded to nearest even, as the GPU's bf16 instructions round); other uses
// convert it to float32 first (Numba's safe conversion).
enum class Scalar : uint8_t {
  Bool,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  F32,
  F64,
  C64,
  C128,
  F16,
  BF16
};

// Where an array's data lives. Only the GPU backend gives these different address spaces.
enum class MemSpace : uint8_t { Global, Shared, Local, Const };

// A NumPy structured dtype (Numba's Record): named scalar fields at byte offsets.
struct Record;

struct RecordField {
  std::string name;
  Scalar scalar = Scalar::I64;
  int64_t offset = 0;
  // A nested array field (a NumPy sub-array, Numba's NestedArray): its C-order shape of
  // `scalar` elements; empty for a scalar field.
  std::vector<int64_t> shape = {};
  // A nested record field (a structured dtype inside one): its layout; then `scalar` is moot.
  // With a `shape` too, a nested array of such records.
  std::shared_ptr<const Record> record = nullptr;

  int64_t size() const; // bytes
  // Numba's spelling of its type: "uint8", or "nestedarray(uint8, (5,))".
  std::string type_str() const;

  bool operator==(const RecordField &other) const;
};

struct Record {
  // NumPy's fixed-length strings ('S12', '<U12': Numba's CharSeq [char x 12] and UnicodeCharSeq
  // [unichr x 12]) are held as records of one unnamed nested array of their characters (uint8
  // bytes or uint32 code points, zero-padded), so arrays and fields of them index and copy as
  // records do; kernels store str and bytes constants into them.
  enum class Chars : uint8_t { None, Bytes, Unicode };

  std::vector<RecordField> fields; // in offset order, as NumPy lists them
  int64_t size = 0;                // itemsize in bytes
  bool aligned = false;            // NumPy's align=True (isalignedstruct)
  Chars chars = Chars::None;

  bool operator==(const Record &other) const = default;
  // A character sequence of `count` characters.
  static std::shared_ptr<const Record> chars_of(Chars kind, int64_t count);
  int64_t char_count() const { return fields.at(0).shape.at(0); }
  // The field named `name`, or -1.
  int field_index(const std::string &name) const;
  // Numba's spelling: "Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)";
  // character sequences "[char x 12]", "[unichr x 12]".
  std::string str() const;
};

// The Python class of a value whose type is a plain type plus that class, as Numba types enum
// members (EnumMember / IntEnumMember: the member's value, tagged with its enum class) and
// namedtuples (NamedTuple / NamedUniTuple: a tuple with field names), and NumPy's datetime64 and
// timedelta64 (Numba's NPDatetime / NPTimedelta: an int64 count of `name` units, the unit code as
// NumPy spells it, "" for the generic unit; int64's minimum is NaT). Classes compare by identity;
// the two time classes by unit. Storage: a CUDA C++ value type held as its unsigned storage bits
// (cuda_fp8.h's __nv_fp8_e4m3 and kin, ir/fp8.def; cuda_bf16.h's __nv_bfloat16_raw), named
// as numba-cuda's bindings name it: only the constructors, conversions and fields its bindings
// define apply, never the operations of the integer holding it.
struct NominalClass {
  enum class Kind : uint8_t { Enum, IntEnum, NamedTuple, Datetime, Timedelta, Storage };
  Kind kind = Kind::Enum;
  std::string name;                // the class's __name__, or the time unit
  uint64_t identity = 0;           // distinguishes classes with equal names (pybind: id(cls))
  std::vector<std::string> fields; // namedtuples: the field names, in order

  bool operator==(const NominalClass &other) const {
    return kind == other.kind && identity == other.identity && name == other.name;
  }
};

struct Type {
  // ThreadBlock: the group cuda.cg.this_thread_block() returns (a simt extension). It carries no
  // run-time state (its attributes read the special registers), so it lowers to an empty struct.
  // Record: one element of a record array (a reference to it, as in Numba).
  // GridGroup: the group cuda.cg.this_grid() returns (Numba's grid_group); stateless as well.
  // Vector: a CUDA vector type (Numba's vector_types.py: float32x3, alias float3): `ndim`
  // elements of `scalar`, read as .x .y .z .w.
  enum class Kind : uint8_t { None, Scalar, Array, Tuple, ThreadBlock, Record, GridGroup, Vector };

  Kind kind = Kind::None;
  Scalar scalar = Scalar::I64; // the scalar itself, or an array's dtype
  int ndim = 0;                // arrays only
  char layout = 'A';           // arrays only: 'C' (row-major contiguous), 'F', or 'A' (any)
  MemSpace space = MemSpace::Global;
  std::vector<Type> elems; // tuples only
  // Arrays of records (then `scalar` is meaningless) and record values: the record's layout.
  // A record value refers to an element of a record array, as Numba's records do: storing to
  // one of its fields stores to the array.
  std::shared_ptr<const Record> record;
  // Arrays, and records of record arrays: not writable (Numba's readonly array, from a NumPy
  // array whose flags.writeable is False). Views and elements keep it.
  bool readonly = false;
  // Tuples: Numba's OptionalType(elems[1]), a value that may be None, held as (valid, value).
  bool optional = false;
  // Scalars and tuples that are enum members or namedtuples: their class. Represented as the
  // plain type; operations other than those the class defines see the plain type. Time scalars
  // (datetime64, timedelta64), and arrays of them, carry their time class here too.
  std::shared_ptr<const NominalClass> nominal;

  static Type none() { return Type{}; }
  // datetime64[unit] (kind Datetime) or timedelta64[unit] (kind Timedelta): an int64.
  static Type time_of(NominalClass::Kind kind, const std::string &unit);
  static Type optional_of(const Type &value);
  // A Storage class `name` held as the unsigned integer `bits` (U8, U16 or U32).
  static Type storage_of(const std::string &name, Scalar bits);
  bool is_optional() const { return kind == Kind::Tuple && optional; }
  static Type scalar_of(Scalar s) {
    Type t;
    t.kind = Kind::Scalar;
    t.scalar = s;
    return t;
  }
  static Type array_of(Scalar dtype, int ndim, char layout, MemSpace space = MemSpace::Global) {
    Type t;
    t.kind = Kind::Array;
    t.scalar = dtype;
    t.ndim = ndim;
    t.layout = layout;
    t.space = space;
    return t;
  }
  static Type record_array_of(std::shared_ptr<const Record> record, int ndim, char layout,
                              MemSpace space = MemSpace::Global) {
    Type t = array_of(Scalar::U8, ndim, layout, space);
    t.record = std::move(record);
    return t;
  }
  static Type record_of(std::shared_ptr<const Record> record) {
    Type t;
    t.kind = Kind::Record;
    t.record = std::move(record);
    return t;
  }
  static Type tuple_of(std::vector<Type> elems) {
    Type t;
    t.kind = Kind::Tuple;
    t.elems = std::move(elems);
    return t;
  }

  static Type vector_of(Scalar base, int count) {
    Type t;
    t.kind = Kind::Vector;
    t.scalar = base;
    t.ndim = count;
    return t;
  }

  static Type thread_block() {
    Type t;
    t.kind = Kind::ThreadBlock;
    return t;
  }

  static Type grid_group() {
    Type t;
    t.kind = Kind::GridGroup;
    return t;
  }

  bool is_none() const { return kind == Kind::None; }
  bool is_scalar() const { return kind == Kind::Scalar; }
  bool is_array() const { return kind == Kind::Array; }
  bool is_tuple() const { return kind == Kind::Tuple; }
  bool is_thread_block() const { return kind == Kind::ThreadBlock; }
  bool is_record() const { return kind == Kind::Record; }
  bool is_grid_group() const { return kind == Kind::GridGroup; }
  bool is_vector() const { return kind == Kind::Vector; }
  bool is_record_array() const { return kind == Kind::Array && record != nullptr; }
  bool is_nominal(NominalClass::Kind k) const { return nominal && nominal->kind == k; }
  bool is_datetime() const { return is_nominal(NominalClass::Kind::Datetime); }
  bool is_timedelta() const { return is_nominal(NominalClass::Kind::Timedelta); }
  bool is_time() const { return is_datetime() || is_timedelta(); }
  // Enum members of an Enum (not an IntEnum): only ==, !=, is, is not and .value apply.
  bool is_plain_enum() const { return is_nominal(NominalClass::Kind::Enum); }
  bool is_storage() const { return is_nominal(NominalClass::Kind::Storage); }
  // Values no operator applies to: Enum members (not IntEnum) and Storage values.
  bool has_no_operators() const { return is_plain_enum() || is_storage(); }
  // The type without its class (an enum member's value, a namedtuple's tuple).
  Type plain() const {
    Type t = *this;
    t.nominal = nullptr;
    return t;
  }
  // The type of one element of an array: its scalar, or its record.
  Type element() const {
    if (!record) {
      Type t = scalar_of(scalar);
      t.nominal = nominal; // datetime64 and timedelta64 arrays
      return t;
    }
    Type t = record_of(record);
    t.readonly = readonly;
    t.space = space; // where the record lives, for the checkers' reports
    return t;
  }
  // An array (view) of this array's elements and memory space with other dimensions.
  Type view_of(int view_ndim, char view_layout) const {
    Type t = *this;
    t.ndim = view_ndim;
    t.layout = view_layout;
    return t;
  }

  // Records compare by layout, not by identity.
  bool operator==(const Type &other) const;

  // Numba's spelling: "int32", "float32[:, ::1]" style is used for arrays
  // ("array(float32, 2d, C)", "readonly array(float32, 2d, C)"), "UniTuple(int32 x 2)" /
  // "Tuple(int64, float64)" for tuples, "ThreadBlock" for the thread block group, "GridGroup" for
  // the grid group, Record::str() for records ("array(Record(...), 1d, C)" for arrays of them).
  std::string str() const;
};

bool is_integer(Scalar s);
bool is_signed(Scalar s);
bool is_float(Scalar s);
// A floating-point type, bfloat16 included: a constant of it holds its value in float_value.
bool is_real(Scalar s);
bool is_complex(Scalar s);
// The type of a complex's parts (complex64 -> float32), or the scalar itself when not complex.
Scalar component_of(Scalar s);
// The complex type whose parts are the float `s` (float32 -> complex64).
Scalar complex_of(Scalar s);
int bit_width(Scalar s); // Bool is 1; a complex's is its parts' total
int byte_size(Scalar s); // Bool is 1
// `value` rounded to the nearest float16 (ties to even; beyond float16's range, infinity).
double round_to_float16(double value);
// The IEEE half bit pattern of a value float16 holds exactly (round_to_float16's results).
uint16_t float16_bits(double value);
// `value` rounded to the nearest bfloat16 (ties to even; 8 significant bits, subnormals below
// 2**-126; beyond bfloat16's range, infinity). NaN stays NaN.
double round_to_bfloat16(double value);
// The bit pattern of a value bfloat16 holds exactly (round_to_bfloat16's results); NaN is the
// GPU's canonical 0x7fff.
uint16_t bfloat16_bits(double value);
// The value of a bfloat16 bit pattern.
double bfloat16_value(uint16_t bits);
std::string scalar_name(Scalar s); // "bool", "int8", ... "float64", "complex128" (Numba's)
// Parses Numba/NumPy names ("int32", "float", "f4", "uint8", "bool_", "intp", ...), NumPy's
// meaning where the two differ (byte is int8, float_ float64). False if unknown.
bool parse_scalar_name(const std::string &name, Scalar &out);
// The same for names in numba.types' namespace (numba.X, signature strings): Numba's C-style
// aliases too (size_t, ssize_t, char, uchar, long_, ulong), and its own meanings of byte (uint8)
// and float_ (float32).
bool parse_numba_type_name(const std::string &name, Scalar &out);

// Numba's rules for the result type of mixing two scalar operands in arithmetic:
// int op int -> at least int64 (uint64 when both unsigned; int64 with uint64 -> int64),
// float32 op float32 -> float32, float32 with float64 or an int of 32+ bits (or uint16) ->
// float64, float32 with bool/int8/int16/uint8 -> float32.
Scalar promote_arithmetic(Scalar a, Scalar b);
// Whether two arrays have the same element type (scalar or record).
bool same_dtype(const Type &a, const Type &b);
// The type two values unify to when they meet (e.g. a local assigned an int then a float).
// Returns false when they cannot unify (e.g. array with scalar).
bool unify(const Type &a, const Type &b, Type &out);

} // namespace simt
