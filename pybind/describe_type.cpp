#include "pybind/describe_type.h"

#include <stdexcept>
#include <string>

namespace py = pybind11;

namespace simt::bindings {

namespace {

// A record as ("record", [(name, type, offset, shape)], size, aligned): type a scalar name, or a
// nested record's description; shape is () but for nested array fields.
py::object describe_record(const Record &record) {
  if (record.chars != Record::Chars::None) // ("chars", "bytes" or "unicode", length)
    return py::make_tuple("chars", record.chars == Record::Chars::Bytes ? "bytes" : "unicode",
                          record.char_count());
  py::list fields;
  for (const RecordField &field : record.fields) {
    py::list shape;
    for (int64_t extent : field.shape)
      shape.append(extent);
    py::object type = field.record ? describe_record(*field.record)
                                   : py::object(py::str(scalar_name(field.scalar)));
    fields.append(py::make_tuple(field.name, type, field.offset, py::tuple(shape)));
  }
  return py::make_tuple("record", fields, record.size, record.aligned);
}

} // namespace

py::object describe_type(const Type &type, bool opaque) {
  switch (type.kind) {
  case Type::Kind::None:
    return py::none();
  case Type::Kind::Scalar: // datetime64[D] and timedelta64[ns] by their NumPy names
    return py::make_tuple("scalar", type.is_time() ? type.str() : scalar_name(type.scalar));
  case Type::Kind::Record:
    return describe_record(*type.record);
  case Type::Kind::Array:
    return py::make_tuple(
        "array",
        type.record
            ? describe_record(*type.record)
            : py::object(py::str(describe_type(type.element(), opaque).cast<py::tuple>()[1])),
        type.ndim, std::string(1, type.layout), type.readonly);
  case Type::Kind::Tuple: {
    py::list elems;
    for (const Type &elem : type.elems)
      elems.append(describe_type(elem, opaque));
    return py::make_tuple("tuple", elems);
  }
  case Type::Kind::ThreadBlock:
  case Type::Kind::GridGroup:
  case Type::Kind::Vector:
    if (opaque)
      return py::make_tuple("opaque", type.str());
    throw std::invalid_argument("simt: a " + type.str() + " is not a kernel argument type");
  }
  return py::none();
}

} // namespace simt::bindings
