// parse_signature: Numba's string signatures and type reprs.
#include "frontend/compile.h"
#include "ir/time_units.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace simt {

namespace {

class SignatureParser {
public:
  explicit SignatureParser(const std::string &text) : text_(text) {}

  std::vector<Type> parse(Type *return_type) {
    skip_space();
    Type result = Type::none();
    if (peek() != '(') {
      result = parse_type(true);
      skip_space();
      if (peek() != '(')
        fail("expected '(' after the return type");
    }
    expect('(');
    std::vector<Type> args;
    skip_space();
    while (peek() != ')') {
      args.push_back(parse_type(false));
      skip_space();
      if (peek() == ',') {
        ++pos_;
        skip_space();
      } else if (peek() != ')') {
        fail("expected ',' or ')'");
      }
    }
    expect(')');
    skip_space();
    if (pos_ != text_.size())
      fail("unexpected text after the signature");
    if (return_type)
      *return_type = result;
    return args;
  }

private:
  [[noreturn]] void fail(const std::string &why) const {
    throw std::invalid_argument("bad signature '" + text_ + "': " + why + " at column " +
                                std::to_string(pos_ + 1));
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c)
      fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string word() {
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    return text_.substr(start, pos_ - start);
  }
  Scalar scalar(const std::string &name) {
    Scalar s;
    if (!parse_numba_type_name(name, s))
      fail("unknown type '" + name + "'");
    return s;
  }

  Type parse_type(bool allow_void) {
    size_t start = pos_;
    std::string name = word();
    if (name.empty())
      fail("expected a type");
    if (name == "void" || name == "none") {
      if (!allow_void)
        fail("'" + name + "' is only a return type");
      return Type::none();
    }
    // Numba's reprs of arrays whose data is not aligned, or not writable: "unaligned array(...)",
    // "readonly array(...)", "unaligned readonly array(...)".
    if (name == "unaligned" || name == "readonly") {
      bool readonly = name == "readonly";
      std::string next = word();
      if (next == "readonly" && !readonly) {
        readonly = true;
        next = word();
      }
      if (next != "array" || (skip_space(), peek() != '('))
        fail("expected 'array(' after '" + name + "'");
      Type array = parse_array_repr();
      array.readonly = array.readonly || readonly;
      return array;
    }
    if (name == "array") {
      skip_space();
      if (peek() == '(')
        return parse_array_repr();
    }
    if (name == "UniTuple" || name == "Tuple") {
      skip_space();
      if (peek() == '(')
        return name == "UniTuple" ? parse_unituple() : parse_tuple();
    }
    if (name == "EnumMember" || name == "IntEnumMember" || name == "NamedTuple") {
      skip_space();
      if (peek() == '(')
        return parse_nominal(name);
    }
    pos_ = start;
    Type dtype = parse_dtype();
    skip_space();
    if (peek() != '[')
      return dtype;
    return parse_array_dims(dtype);
  }

  // An array element type: a scalar name or a Record(...).
  Type parse_dtype() {
    size_t start = pos_;
    std::string name = word();
    skip_space();
    if (name == "Record" && peek() == '(')
      return Type::record_of(parse_record());
    if (name.empty() && peek() == '[')
      return Type::record_of(parse_chars());
    if (name == "datetime64" || name == "timedelta64") {
      // datetime64[D]; datetime64 alone is the generic unit, so datetime64[:] is an array of it
      std::string unit;
      size_t after_name = pos_;
      if (peek() == '[') {
        ++pos_;
        unit = word();
        if (unit.empty())
          pos_ = after_name;
        else
          expect(']');
      }
      if (!is_time_unit(unit))
        fail("unknown time unit '" + unit + "'");
      return Type::time_of(name == "datetime64" ? NominalClass::Kind::Datetime
                                                : NominalClass::Kind::Timedelta,
                           unit);
    }
    pos_ = start;
    return Type::scalar_of(scalar(word()));
  }

  // Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True), after "Record".
  std::shared_ptr<const Record> parse_record() {
    auto record = std::make_shared<Record>();
    expect('(');
    do {
      RecordField field;
      field.name = word();
      if (field.name.empty())
        fail("expected a record field name");
      expect('[');
      keyword("type");
      std::string type = word();
      skip_space();
      if (type == "nestedarray")
        parse_nested_array(field);
      else if (type == "Record" && peek() == '(')
        field.record = parse_record();
      else if (type.empty() && peek() == '[')
        field.record = parse_chars();
      else
        field.scalar = scalar(type);
      expect(';');
      keyword("offset");
      field.offset = number();
      expect(']');
      record->fields.push_back(std::move(field));
      skip_space();
    } while (peek() == ',' && ++pos_);
    expect(';');
    record->size = number();
    expect(';');
    std::string aligned = word();
    if (aligned != "True" && aligned != "False")
      fail("expected True or False (aligned)");
    record->aligned = aligned == "True";
    expect(')');
    for (const RecordField &field : record->fields)
      if (field.offset < 0 || field.offset + field.size() > record->size)
        fail("field '" + field.name + "' lies outside the record");
    return record;
  }
  // [char x 12] or [unichr x 12]: a fixed-length bytes or str (Record::chars_of).
  std::shared_ptr<const Record> parse_chars() {
    expect('[');
    std::string kind = word();
    if (kind != "char" && kind != "unichr")
      fail("expected [char x N] or [unichr x N]");
    if (word() != "x")
      fail("expected 'x' in [" + kind + " x N]");
    int64_t count = number();
    expect(']');
    if (count <= 0)
      fail("a character sequence needs a positive length");
    return Record::chars_of(kind == "char" ? Record::Chars::Bytes : Record::Chars::Unicode, count);
  }

  // (uint8, (5,)) or (float32, (3, 2)), after "nestedarray".
  void parse_nested_array(RecordField &field) {
    expect('(');
    std::string element = word();
    skip_space();
    if (element == "Record" && peek() == '(')
      field.record = parse_record();
    else if (element.empty() && peek() == '[')
      field.record = parse_chars();
    else
      field.scalar = scalar(element);
    expect(',');
    expect('(');
    do {
      skip_space();
      if (peek() == ')')
        break;
      field.shape.push_back(number());
      skip_space();
    } while (peek() == ',' && ++pos_);
    expect(')');
    expect(')');
    if (field.shape.empty())
      fail("expected a nested array shape");
  }
  void keyword(const char *name) {
    if (word() != name)
      fail(std::string("expected '") + name + "='");
    expect('=');
  }
  int64_t number() {
    std::string digits = word();
    if (digits.empty() ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(c); }))
      fail("expected a number");
    return std::stoll(digits);
  }

  // UniTuple(int64, 2) (the constructor Numba's signature strings call) or UniTuple(int64 x 2)
  // (the repr), after "UniTuple".
  Type parse_unituple() {
    expect('(');
    skip_space();
    Type elem = parse_type(false);
    skip_space();
    if (peek() == ',')
      ++pos_;
    else if (word() != "x")
      fail("expected ', count' or ' x count' in UniTuple");
    int64_t count = number();
    expect(')');
    return Type::tuple_of(std::vector<Type>(count, elem));
  }

  // Tuple((int64, float64)) or Tuple([int64, float64]) (the constructor), Tuple(int64, float64)
  // or Tuple() (the repr), after "Tuple".
  Type parse_tuple() {
    expect('(');
    skip_space();
    bool wrapped = peek() == '(' || peek() == '[';
    char close = peek() == '[' ? ']' : ')';
    if (wrapped)
      ++pos_;
    std::vector<Type> elems;
    skip_space();
    while (peek() != close) {
      elems.push_back(parse_type(false));
      skip_space();
      if (peek() == ',') {
        ++pos_;
        skip_space();
      } else if (peek() != close) {
        fail(std::string("expected ',' or '") + close + "' in Tuple");
      }
    }
    ++pos_;
    if (wrapped)
      expect(')');
    return Type::tuple_of(std::move(elems));
  }

  // Type::str()'s spellings of classed types, after their name: EnumMember(Color#123, int64),
  // IntEnumMember(Shape#124, int64), NamedTuple(Point#125, x: int64, y: float64).
  Type parse_nominal(const std::string &name) {
    auto cls = std::make_shared<NominalClass>();
    cls->kind = name == "EnumMember"      ? NominalClass::Kind::Enum
                : name == "IntEnumMember" ? NominalClass::Kind::IntEnum
                                          : NominalClass::Kind::NamedTuple;
    expect('(');
    cls->name = word();
    expect('#');
    cls->identity = static_cast<uint64_t>(number());
    Type type;
    if (cls->kind == NominalClass::Kind::NamedTuple) {
      std::vector<Type> elems;
      skip_space();
      while (peek() == ',') {
        ++pos_;
        cls->fields.push_back(word());
        expect(':');
        elems.push_back(parse_type(false));
        skip_space();
      }
      type = Type::tuple_of(std::move(elems));
    } else {
      expect(',');
      type = parse_type(false);
    }
    expect(')');
    if (type.nominal || (!type.is_scalar() && !type.is_tuple()))
      fail(name + " of " + type.str());
    type.nominal = std::move(cls);
    return type;
  }

  // array(float32, 2d, C)
  Type parse_array_repr() {
    expect('(');
    skip_space();
    Type dtype = parse_dtype();
    expect(',');
    std::string dims = word();
    if (dims.size() < 2 || dims.back() != 'd' || !std::isdigit(static_cast<unsigned char>(dims[0])))
      fail("expected the number of dimensions as '2d'");
    int ndim = std::stoi(dims.substr(0, dims.size() - 1));
    expect(',');
    std::string layout = word();
    if (layout != "C" && layout != "F" && layout != "A")
      fail("expected layout C, F or A");
    skip_space();
    bool readonly = false;
    while (peek() == ',') { // the constructor's keywords: ", readonly=True", ", aligned=True"
      ++pos_;
      std::string keyword = word();
      expect('=');
      std::string value = word();
      readonly = readonly || (keyword == "readonly" && value == "True");
      skip_space();
    }
    expect(')');
    Type array = array_of(dtype, ndim, layout[0]);
    array.readonly = readonly;
    return array;
  }

  static Type array_of(const Type &dtype, int ndim, char layout) {
    if (dtype.is_record())
      return Type::record_array_of(dtype.record, ndim, layout);
    Type array = Type::array_of(dtype.scalar, ndim, layout);
    array.nominal = dtype.nominal; // datetime64 and timedelta64 arrays
    return array;
  }

  // float32[:, ::1]: each dimension ':' or '::1'; '::1' last means C, first means F.
  Type parse_array_dims(const Type &dtype) {
    expect('[');
    std::vector<bool> contiguous;
    while (true) {
      expect(':');
      skip_space();
      bool unit = false;
      if (peek() == ':') {
        ++pos_;
        skip_space();
        if (peek() != '1')
          fail("expected '::1'");
        ++pos_;
        unit = true;
      }
      contiguous.push_back(unit);
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(']');
      break;
    }
    int ndim = static_cast<int>(contiguous.size());
    int units = 0;
    for (bool u : contiguous)
      units += u;
    char layout = 'A';
    if (units == 1 && contiguous.back())
      layout = 'C';
    else if (units == 1 && contiguous.front())
      layout = 'F';
    else if (units > 0)
      fail("'::1' may only mark the first or the last dimension");
    return array_of(dtype, ndim, layout);
  }

  const std::string &text_;
  size_t pos_ = 0;
};

} // namespace

std::vector<Type> parse_signature(const std::string &signature, Type *return_type) {
  return SignatureParser(signature).parse(return_type);
}

} // namespace simt
