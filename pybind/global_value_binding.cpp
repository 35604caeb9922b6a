#include "pybind/global_value_binding.h"

#include "frontend/compile.h"
#include "pybind/py_resolver.h"

#include <pybind11/stl.h>

#include <stdexcept>

namespace py = pybind11;

namespace simt::bindings {

namespace {

using Kind = GlobalValue::Kind;

Scalar scalar_named(const std::string &name) {
  Scalar scalar;
  if (!parse_scalar_name(name, scalar))
    throw std::invalid_argument("simt: unknown scalar type '" + name + "'");
  return scalar;
}

GlobalValue of_kind(Kind kind) {
  GlobalValue value;
  value.kind = kind;
  return value;
}

// A value of `kind` named by `member` (a string's text, an exception's or builtin's name, why an
// object is unsupported) or of `module` and `member`.
GlobalValue named(Kind kind, std::string member, std::string module = {}) {
  GlobalValue value = of_kind(kind);
  value.member = std::move(member);
  value.module_name = std::move(module);
  return value;
}

// A dtype's name into `value`: a scalar's ("float32"), or a structured dtype's ("Record(...)").
void set_dtype(GlobalValue &value, const std::string &name) {
  if (name.rfind("Record(", 0) == 0)
    value.record = parse_signature("(array(" + name + ", 1d, C),)").at(0).record;
  else
    value.scalar = scalar_named(name);
}

std::string dtype_name(const GlobalValue &value) {
  return value.record ? value.record->str() : scalar_name(value.scalar);
}

// --- Constructors, one per kind of value -------------------------------------------------------

GlobalValue integer(const std::string &dtype, const py::int_ &number) {
  GlobalValue value = of_kind(Kind::Int);
  value.scalar = scalar_named(dtype);
  value.int_value = value.scalar == Scalar::U64 ? static_cast<int64_t>(number.cast<uint64_t>())
                                                : number.cast<int64_t>();
  return value;
}

GlobalValue floating(const std::string &dtype, double real, double imag) {
  GlobalValue value = of_kind(Kind::Float);
  value.scalar = scalar_named(dtype);
  value.float_value = real;
  value.imag_value = imag;
  return value;
}

GlobalValue boolean(bool truth) {
  GlobalValue value = of_kind(Kind::Bool);
  value.scalar = Scalar::Bool;
  value.int_value = truth;
  return value;
}

GlobalValue tuple(std::vector<GlobalValue> elems) {
  GlobalValue value = of_kind(Kind::Tuple);
  value.elems = std::move(elems);
  return value;
}

// A NumPy array frozen as a constant: its dtype, shape and bytes in C order.
GlobalValue array(const std::string &dtype, std::vector<int64_t> shape, const py::bytes &data) {
  GlobalValue value = of_kind(Kind::Array);
  set_dtype(value, dtype);
  value.shape = std::move(shape);
  value.ndim = static_cast<int>(value.shape.size());
  value.layout = 'C';
  auto bytes = data.cast<std::string_view>();
  value.data.assign(bytes.begin(), bytes.end());
  return value;
}

GlobalValue dtype(const std::string &name) {
  GlobalValue value = of_kind(Kind::Dtype);
  set_dtype(value, name);
  return value;
}

GlobalValue array_type(const std::string &dtype, int ndim, char layout) {
  GlobalValue value = of_kind(Kind::ArrayType);
  value.scalar = scalar_named(dtype);
  value.ndim = ndim;
  value.layout = layout;
  return value;
}

// An enum member: `value` (a constant) of the class `name`, an Enum or (int_enum) an IntEnum.
GlobalValue enum_member(bool int_enum, std::string name, uint64_t identity, GlobalValue value) {
  auto cls = std::make_shared<NominalClass>();
  cls->kind = int_enum ? NominalClass::Kind::IntEnum : NominalClass::Kind::Enum;
  cls->name = std::move(name);
  cls->identity = identity;
  value.nominal = std::move(cls);
  return value;
}

// A namedtuple class: its field names and the defaults of its last fields.
GlobalValue namedtuple_class(std::string name, uint64_t identity, std::vector<std::string> fields,
                             std::vector<GlobalValue> defaults) {
  auto cls = std::make_shared<NominalClass>();
  cls->kind = NominalClass::Kind::NamedTuple;
  cls->name = std::move(name);
  cls->identity = identity;
  cls->fields = std::move(fields);
  GlobalValue value = of_kind(Kind::NamedTupleClass);
  value.elems = std::move(defaults);
  value.nominal = std::move(cls);
  return value;
}

// A NumPy datetime64 (or, not `datetime`, timedelta64) of `unit` ("": generic): its int64 count.
GlobalValue time(bool datetime, const std::string &unit, int64_t count) {
  GlobalValue value = of_kind(Kind::Int);
  value.scalar = Scalar::I64;
  value.int_value = count;
  const auto kind = datetime ? NominalClass::Kind::Datetime : NominalClass::Kind::Timedelta;
  value.nominal = Type::time_of(kind, unit).nominal;
  return value;
}

// Another jit function: its source, its own names' resolver and its declared signatures, each
// (signature text, whether its return type is inferred); none: typed from its arguments.
GlobalValue function(std::string name, std::string source, std::string file, int first_line,
                     uint64_t identity, py::object resolver,
                     const std::vector<std::pair<std::string, bool>> &signatures) {
  auto fn = std::make_shared<FunctionSource>(function_source(
      std::move(name), std::move(source), std::move(file), first_line, identity, resolver));
  for (const auto &[text, return_inferred] : signatures) {
    FunctionSignature sig;
    sig.params = parse_signature(text, &sig.return_type);
    sig.return_inferred = return_inferred;
    fn->signatures.push_back(std::move(sig));
  }
  GlobalValue value = of_kind(Kind::Function);
  value.function = std::move(fn);
  return value;
}

// A declared external device function (cuda.declare_device) and its signature's text.
GlobalValue extern_function(std::string name, const std::string &signature) {
  auto fn = std::make_shared<ExternFunction>();
  fn->name = std::move(name);
  fn->params = parse_signature(signature, &fn->return_type);
  GlobalValue value = of_kind(Kind::Extern);
  value.extern_function = std::move(fn);
  return value;
}

// --- What rebuilds a value: its constructor's name and arguments -------------------------------

std::string signature_text(const Type &return_type, const std::vector<Type> &params) {
  std::string text = return_type.str() + "(";
  for (size_t i = 0; i < params.size(); ++i) {
    if (i)
      text += ", ";
    text += params[i].str();
  }
  return text + ")";
}

py::list values_list(const std::vector<GlobalValue> &values) {
  py::list list;
  for (const GlobalValue &value : values)
    list.append(value);
  return list;
}

py::tuple function_arguments(const FunctionSource &fn) {
  py::list signatures;
  for (const FunctionSignature &sig : fn.signatures)
    signatures.append(
        py::make_tuple(signature_text(sig.return_type, sig.params), sig.return_inferred));
  const auto &resolver = dynamic_cast<const PyResolver &>(*fn.resolver);
  return py::make_tuple(fn.name, fn.source, fn.file, fn.first_line, fn.identity,
                        resolver.describe(), signatures);
}

// Values of a class: enum members, namedtuple classes, datetime64 and timedelta64.
std::pair<const char *, py::tuple> classed_constructor(const GlobalValue &value) {
  const NominalClass &cls = *value.nominal;
  switch (cls.kind) {
  case NominalClass::Kind::NamedTuple:
    return {"namedtuple_class",
            py::make_tuple(cls.name, cls.identity, cls.fields, values_list(value.elems))};
  case NominalClass::Kind::Datetime:
  case NominalClass::Kind::Timedelta:
    return {"time",
            py::make_tuple(cls.kind == NominalClass::Kind::Datetime, cls.name, value.int_value)};
  default: {
    GlobalValue plain = value;
    plain.nominal = nullptr;
    return {"enum_member",
            py::make_tuple(cls.kind == NominalClass::Kind::IntEnum, cls.name, cls.identity, plain)};
  }
  }
}

std::pair<const char *, py::tuple> constant_constructor(const GlobalValue &value) {
  switch (value.kind) {
  case Kind::Int:
    if (value.scalar == Scalar::U64)
      return {"integer", py::make_tuple("uint64", static_cast<uint64_t>(value.int_value))};
    return {"integer", py::make_tuple(scalar_name(value.scalar), value.int_value)};
  case Kind::Float:
    if (is_complex(value.scalar))
      return {"complex",
              py::make_tuple(scalar_name(value.scalar), value.float_value, value.imag_value)};
    return {"floating", py::make_tuple(scalar_name(value.scalar), value.float_value)};
  case Kind::Bool:
    return {"boolean", py::make_tuple(value.int_value != 0)};
  case Kind::String:
    return {"string", py::make_tuple(value.member)};
  case Kind::Tuple:
    return {"tuple", py::make_tuple(values_list(value.elems))};
  case Kind::Array:
    return {"array", py::make_tuple(dtype_name(value), py::tuple(py::cast(value.shape)),
                                    py::bytes(reinterpret_cast<const char *>(value.data.data()),
                                              value.data.size()))};
  default:
    return {"none", py::tuple()};
  }
}

std::pair<const char *, py::tuple> constructor_of(const GlobalValue &value) {
  if (value.nominal)
    return classed_constructor(value);
  switch (value.kind) {
  case Kind::Module:
    if (value.module_name.starts_with("<"))
      return {"namespace",
              py::make_tuple(value.module_name.substr(1, value.module_name.size() - 2))};
    return {"module", py::make_tuple(value.module_name)};
  case Kind::ModuleMember:
    return {"member", py::make_tuple(value.module_name, value.member)};
  case Kind::Dtype:
    return {"dtype", py::make_tuple(dtype_name(value))};
  case Kind::ArrayType:
    return {"array_type",
            py::make_tuple(scalar_name(value.scalar), value.ndim, std::string(1, value.layout))};
  case Kind::Function:
    return {"function", function_arguments(*value.function)};
  case Kind::Extern:
    return {"extern_function", py::make_tuple(value.extern_function->name,
                                              signature_text(value.extern_function->return_type,
                                                             value.extern_function->params))};
  case Kind::Overload:
    return {"overload", py::tuple()};
  case Kind::Exception:
    return {"exception", py::make_tuple(value.member)};
  case Kind::Builtin:
    return {"builtin", py::make_tuple(value.member)};
  case Kind::Unknown:
    return {"unsupported", py::make_tuple(value.member)};
  default:
    return constant_constructor(value);
  }
}

std::string representation(const GlobalValue &value) {
  auto [name, args] = constructor_of(value);
  std::string text = std::string("GlobalValue.") + name + "(";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i)
      text += ", ";
    text += py::repr(args[i]).cast<std::string>();
  }
  return text + ")";
}

bool same_value(const GlobalValue &a, const GlobalValue &b) {
  auto [name_a, args_a] = constructor_of(a);
  auto [name_b, args_b] = constructor_of(b);
  return std::string_view(name_a) == name_b && args_a.equal(args_b);
}

} // namespace

void bind_global_value(py::module_ &m) {
  py::class_<GlobalValue>(m, "GlobalValue",
                          "What a kernel's global or closure name is: one constructor per kind.")
      .def_static("none", [] { return of_kind(Kind::None); })
      .def_static("boolean", &boolean)
      .def_static("integer", &integer, py::arg("dtype"), py::arg("value"))
      .def_static("floating",
                  [](const std::string &dtype, double v) { return floating(dtype, v, 0); })
      .def_static("complex", &floating, py::arg("dtype"), py::arg("real"), py::arg("imag"))
      .def_static("string", [](std::string text) { return named(Kind::String, std::move(text)); })
      .def_static("tuple", &tuple)
      .def_static("array", &array, py::arg("dtype"), py::arg("shape"), py::arg("data"))
      .def_static("enum_member", &enum_member)
      .def_static("namedtuple_class", &namedtuple_class)
      .def_static("time", &time, py::arg("datetime"), py::arg("unit"), py::arg("count"))
      .def_static("module", [](std::string name) { return named(Kind::Module, {}, name); })
      // a namespace whose attributes resolve as dotted names (an enum class): never a module the
      // frontend knows
      .def_static("namespace",
                  [](const std::string &name) { return named(Kind::Module, {}, "<" + name + ">"); })
      .def_static("member",
                  [](std::string module, std::string name) {
                    return named(Kind::ModuleMember, name, module);
                  })
      .def_static("dtype", &dtype)
      .def_static("array_type", &array_type, py::arg("dtype"), py::arg("ndim"), py::arg("layout"))
      .def_static("function", &function, py::arg("name"), py::arg("source"), py::arg("file"),
                  py::arg("first_line"), py::arg("identity"), py::arg("resolver"),
                  py::arg("signatures"))
      .def_static("extern_function", &extern_function)
      .def_static("overload", [] { return of_kind(Kind::Overload); })
      .def_static("exception", [](std::string name) { return named(Kind::Exception, name); })
      .def_static("builtin", [](std::string name) { return named(Kind::Builtin, name); })
      .def_static("unsupported", [](std::string why) { return named(Kind::Unknown, why); })
      .def_property_readonly("kind", [](const GlobalValue &v) { return constructor_of(v).first; })
      .def_property_readonly("args", [](const GlobalValue &v) { return constructor_of(v).second; })
      .def("__eq__", &same_value)
      .def("__repr__", &representation);
}

} // namespace simt::bindings
