#include "pybind/py_resolver.h"

#include "frontend/compile.h"

#include <cstring>
#include <map>
#include <stdexcept>

namespace py = pybind11;

namespace simt::bindings {

PyResolver::PyResolver(py::object describe) : describe_(std::move(describe)) {}

PyResolver::~PyResolver() {
  // The frontend may drop a resolver while the GIL is released; dropping a Python reference
  // needs the GIL.
  py::gil_scoped_acquire gil;
  describe_ = py::object();
}

GlobalValue PyResolver::resolve(const std::string &name) {
  py::gil_scoped_acquire gil;
  return global_value_from(describe_(name));
}

GlobalValue PyResolver::overload(const std::string &name, const std::vector<std::string> &args) {
  py::gil_scoped_acquire gil;
  py::list types;
  for (const std::string &arg : args)
    types.append(arg);
  return global_value_from(describe_(name, types));
}

namespace {

Scalar scalar_named(py::handle name) {
  Scalar scalar;
  if (!parse_scalar_name(name.cast<std::string>(), scalar))
    throw std::invalid_argument("simt: unknown scalar type '" + name.cast<std::string>() + "'");
  return scalar;
}

// A dtype's name into `value`: a scalar's ("float32"), or a structured dtype's ("Record(...)").
void set_dtype(GlobalValue &value, py::handle name) {
  auto text = name.cast<std::string>();
  if (text.rfind("Record(", 0) == 0)
    value.record = parse_signature("(array(" + text + ", 1d, C),)").at(0).record;
  else
    value.scalar = scalar_named(name);
}

} // namespace

namespace {

using Kind = GlobalValue::Kind;
using Fields = py::tuple;

// Numbers, strings and None: their kind and value.
void decode_constant(const std::string &kind, const Fields &fields, GlobalValue &value) {
  if (kind == "none") {
    value.kind = Kind::None;
  } else if (kind == "str") {
    value.kind = Kind::String;
    value.member = fields[1].cast<std::string>();
  } else if (kind == "bool") {
    value.kind = Kind::Bool;
    value.scalar = Scalar::Bool;
    value.int_value = fields[1].cast<int64_t>();
  } else if (kind == "int") {
    value.kind = Kind::Int;
    value.scalar = scalar_named(fields[1]);
    value.int_value = value.scalar == Scalar::U64 ? static_cast<int64_t>(fields[2].cast<uint64_t>())
                                                  : fields[2].cast<int64_t>();
  } else { // "float", "complex"
    value.kind = Kind::Float;
    value.scalar = scalar_named(fields[1]);
    value.float_value = fields[2].cast<double>();
    if (kind == "complex")
      value.imag_value = fields[3].cast<double>();
  }
}

// Tuples and arrays (a global NumPy array's dtype, shape and bytes).
void decode_container(const std::string &kind, const Fields &fields, GlobalValue &value) {
  if (kind == "tuple") {
    value.kind = Kind::Tuple;
    for (auto elem : fields[1])
      value.elems.push_back(global_value_from(elem));
    return;
  }
  value.kind = Kind::Array;
  set_dtype(value, fields[1]);
  for (auto extent : fields[2])
    value.shape.push_back(extent.cast<int64_t>());
  value.ndim = static_cast<int>(value.shape.size());
  value.layout = 'C';
  auto bytes = fields[3].cast<std::string_view>();
  value.data.assign(bytes.begin(), bytes.end());
}

// Values of a class: enum members, namedtuple classes, datetime64 and timedelta64.
void decode_classed(const std::string &kind, const Fields &fields, GlobalValue &value) {
  auto cls = std::make_shared<NominalClass>();
  if (kind == "enum") { // ("enum", "Enum" or "IntEnum", class name, id(class), value)
    cls->kind = fields[1].cast<std::string>() == "IntEnum" ? NominalClass::Kind::IntEnum
                                                           : NominalClass::Kind::Enum;
    cls->name = fields[2].cast<std::string>();
    cls->identity = fields[3].cast<uint64_t>();
    value = global_value_from(fields[4]);
    value.nominal = std::move(cls);
  } else if (kind == "namedtuple") { // (class name, id(class), [fields], [defaults of the last])
    cls->kind = NominalClass::Kind::NamedTuple;
    cls->name = fields[1].cast<std::string>();
    cls->identity = fields[2].cast<uint64_t>();
    for (py::handle field : fields[3])
      cls->fields.push_back(field.cast<std::string>());
    value.kind = Kind::NamedTupleClass;
    for (py::handle value_default : fields[4])
      value.elems.push_back(global_value_from(value_default));
    value.nominal = std::move(cls);
  } else { // ("time", "datetime64" or "timedelta64", unit, count)
    value.kind = Kind::Int;
    value.scalar = Scalar::I64;
    value.int_value = fields[3].cast<int64_t>();
    value.nominal =
        Type::time_of(fields[1].cast<std::string>() == "datetime64" ? NominalClass::Kind::Datetime
                                                                    : NominalClass::Kind::Timedelta,
                      fields[2].cast<std::string>())
            .nominal;
  }
}

// Names: modules and their members, namespaces, dtypes and array types, exceptions, builtins,
// what kernels cannot use.
void decode_name(const std::string &kind, const Fields &fields, GlobalValue &value) {
  if (kind == "module") {
    value.kind = Kind::Module;
    value.module_name = fields[1].cast<std::string>();
  } else if (kind == "namespace") { // a class whose attributes resolve as dotted names
    value.kind = Kind::Module;
    value.module_name = "<" + fields[1].cast<std::string>() + ">"; // never a known module
  } else if (kind == "member") {
    value.kind = Kind::ModuleMember;
    value.module_name = fields[1].cast<std::string>();
    value.member = fields[2].cast<std::string>();
  } else if (kind == "dtype") {
    value.kind = Kind::Dtype;
    set_dtype(value, fields[1]);
  } else if (kind == "arraytype") {
    value.kind = Kind::ArrayType;
    value.scalar = scalar_named(fields[1]);
    value.ndim = fields[2].cast<int>();
    value.layout = fields[3].cast<std::string>().at(0);
  } else if (kind == "overload") {
    value.kind = Kind::Overload;
  } else { // "exception", "builtin", "unsupported" (an object kernels cannot use, and why)
    value.kind = kind == "exception" ? Kind::Exception
                 : kind == "builtin" ? Kind::Builtin
                                     : Kind::Unknown;
    value.member = fields[1].cast<std::string>();
  }
}

// Functions kernels call: Python functions (their source and resolver) and external ones.
void decode_function(const std::string &kind, const Fields &fields, GlobalValue &value) {
  if (kind == "extern") {
    value.kind = Kind::Extern;
    auto fn = std::make_shared<ExternFunction>();
    fn->name = fields[1].cast<std::string>();
    fn->params = parse_signature(fields[2].cast<std::string>(), &fn->return_type);
    value.extern_function = std::move(fn);
    return;
  }
  value.kind = Kind::Function;
  auto source = std::make_shared<FunctionSource>();
  source->name = fields[1].cast<std::string>();
  source->source = fields[2].cast<std::string>();
  source->file = fields[3].cast<std::string>();
  source->first_line = fields[4].cast<int>();
  source->identity = fields[5].cast<uint64_t>();
  source->resolver = std::make_shared<PyResolver>(py::reinterpret_borrow<py::object>(fields[6]));
  if (fields.size() > 7)
    for (py::handle declared : fields[7]) { // (signature text, whether its return is inferred)
      auto pair = declared.cast<py::tuple>();
      FunctionSignature sig;
      sig.params = parse_signature(pair[0].cast<std::string>(), &sig.return_type);
      sig.return_inferred = pair[1].cast<bool>();
      source->signatures.push_back(std::move(sig));
    }
  value.function = std::move(source);
}

using Decoder = void (*)(const std::string &, const Fields &, GlobalValue &);

// Each description's first field (simt/compiler/resolver.py writes them) and what decodes the rest.
const std::map<std::string, Decoder, std::less<>> kDecoders = {
    {"none", decode_constant},      {"str", decode_constant},     {"bool", decode_constant},
    {"int", decode_constant},       {"float", decode_constant},   {"complex", decode_constant},
    {"tuple", decode_container},    {"array", decode_container},  {"enum", decode_classed},
    {"namedtuple", decode_classed}, {"time", decode_classed},     {"module", decode_name},
    {"namespace", decode_name},     {"member", decode_name},      {"dtype", decode_name},
    {"arraytype", decode_name},     {"overload", decode_name},    {"exception", decode_name},
    {"builtin", decode_name},       {"unsupported", decode_name}, {"function", decode_function},
    {"extern", decode_function}};

} // namespace

GlobalValue global_value_from(py::handle description) {
  GlobalValue value;
  if (description.is_none())
    return value;
  auto fields = description.cast<py::tuple>();
  auto kind = fields[0].cast<std::string>();
  auto decoder = kDecoders.find(kind);
  if (decoder == kDecoders.end())
    throw std::invalid_argument("simt: unknown name description '" + kind + "'");
  decoder->second(kind, fields, value);
  return value;
}

} // namespace simt::bindings
