#include "pybind/marshal.h"

#include "pybind/numpy_descr.h"
#include "sim/abi.h"

#include <pybind11/numpy.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace py = pybind11;

namespace simt::bindings {

namespace {

std::string describe_argument(size_t index, const Type &type) {
  return "argument " + std::to_string(index + 1) + " (" + type.str() + ")";
}

// NumPy's dtype.kind of a scalar type (ml_dtypes' bfloat16 is a 'V' dtype).
char dtype_kind(Scalar s) {
  if (is_complex(s))
    return 'c';
  if (s == Scalar::BF16)
    return 'V';
  return is_float(s) ? 'f' : s == Scalar::Bool ? 'b' : is_signed(s) ? 'i' : 'u';
}

// `value` as float32, rounded to nearest-even as the hardware conversion does, without the
// undefined behaviour of casting a double beyond float's range: those round to +-FLT_MAX or
// +-infinity (from half an ulp above FLT_MAX on, as IEEE 754 rounds).
float to_float32(double value) {
  constexpr double overflow_threshold = 0x1.ffffffp127; // FLT_MAX + half an ulp
  if (std::isnan(value) || std::fabs(value) <= std::numeric_limits<float>::max())
    return static_cast<float>(value);
  float magnitude = std::fabs(value) < overflow_threshold ? std::numeric_limits<float>::max()
                                                          : std::numeric_limits<float>::infinity();
  return std::signbit(value) ? -magnitude : magnitude;
}

// A real argument as a double: Python ints beyond double's range raise OverflowError ("int too
// large to convert to float"), as Numba's unboxing does.
double real_value(PyObject *object) {
  double value = PyLong_Check(object) ? PyLong_AsDouble(object) : PyFloat_AsDouble(object);
  if (value == -1.0 && PyErr_Occurred())
    throw py::error_already_set();
  return value;
}

// A complex argument: its parts, as NumPy's complex64/complex128 lay them out (real first).
void store_complex(PyObject *object, Scalar scalar, int64_t *slot) {
  Py_complex value = PyComplex_AsCComplex(object);
  if (value.real == -1.0 && PyErr_Occurred())
    throw py::error_already_set();
  if (scalar == Scalar::C64) {
    float parts[2] = {to_float32(value.real), to_float32(value.imag)};
    std::memcpy(slot, parts, sizeof parts);
  } else {
    double parts[2] = {value.real, value.imag};
    std::memcpy(slot, parts, sizeof parts);
  }
}

void store_float(PyObject *object, Scalar scalar, int64_t *slot) {
  double value = real_value(object);
  if (scalar == Scalar::F16) { // as NumPy's float16() rounds it
    uint16_t half = float16_bits(round_to_float16(value));
    std::memcpy(slot, &half, sizeof half);
  } else if (scalar == Scalar::BF16) { // rounded once to nearest even
    uint16_t bits = bfloat16_bits(round_to_bfloat16(value));
    std::memcpy(slot, &bits, sizeof bits);
  } else if (scalar == Scalar::F32) {
    float narrow = to_float32(value);
    std::memcpy(slot, &narrow, sizeof narrow);
  } else {
    std::memcpy(slot, &value, sizeof value);
  }
}

// The Python int an argument for an integer parameter stands for: integers as they are, reals
// truncated toward zero as Python's int() (and Numba's unboxing) does: ValueError for NaN,
// OverflowError for infinities.
py::object integer_value(PyObject *object) {
  // NumPy's bool as an index is deprecated (a warning, an error under -W error): its truth.
  // Not a function-local static: importing numpy may release the GIL, and a thread waiting on
  // the static's guard while holding the GIL would deadlock (numba-cuda's test_multithreads);
  // threads racing here store the same type.
  static std::atomic<PyObject *> numpy_bool{nullptr};
  PyObject *bool_type = numpy_bool.load(std::memory_order_acquire);
  if (bool_type == nullptr) {
    bool_type = py::object(py::module_::import("numpy").attr("bool_")).release().ptr();
    numpy_bool.store(bool_type, std::memory_order_release);
  }
  if (Py_TYPE(object) == reinterpret_cast<PyTypeObject *>(bool_type))
    return py::int_(static_cast<long>(PyObject_IsTrue(object) == 1));
  if (PyIndex_Check(object)) {
    py::object integer = py::reinterpret_steal<py::object>(PyNumber_Index(object));
    if (!integer)
      throw py::error_already_set();
    return integer;
  }
  double value = real_value(object);
  if (std::isnan(value))
    throw py::value_error("cannot convert float NaN to integer");
  if (std::isinf(value))
    throw std::overflow_error("cannot convert float infinity to integer");
  py::object integer = py::reinterpret_steal<py::object>(PyLong_FromDouble(std::trunc(value)));
  if (!integer)
    throw py::error_already_set();
  return integer;
}

// Whether `value` fits the width of `scalar` as a signed or an unsigned integer: its bits are
// then the parameter's (0x80000000 for an int32 is INT32_MIN, -1 for a uint8 255), as Numba's
// ctypes conversion of kernel arguments gives them.
bool fits_width(long long value, Scalar scalar) {
  const int bits = 8 * byte_size(scalar);
  if (bits == 64)
    return true;
  return value >= -(1LL << (bits - 1)) && value < (1LL << bits);
}

// An integer argument's two's-complement bits (the slot's low bytes hold a narrow type's);
// OverflowError for a value that does not fit the parameter's width at all (ctypes would keep
// its low bits: a silently wrong value).
uint64_t integer_bits(PyObject *object, const Type &type, size_t index) {
  py::object integer = integer_value(object);
  int overflow = 0;
  long long value = PyLong_AsLongLongAndOverflow(integer.ptr(), &overflow);
  if (value == -1 && PyErr_Occurred())
    throw py::error_already_set();
  if (overflow == 0 && fits_width(value, type.scalar))
    return static_cast<uint64_t>(value);
  if (overflow > 0 && byte_size(type.scalar) == 8) { // 2**63 .. 2**64 - 1: an int64's bits too
    unsigned long long wide = PyLong_AsUnsignedLongLong(integer.ptr());
    if (!PyErr_Occurred())
      return wide;
    PyErr_Clear();
  }
  throw std::overflow_error(describe_argument(index, type) + ": " +
                            py::repr(py::handle(object)).cast<std::string>() +
                            " is out of the range of " + type.str());
}

// The host array over the memory of an object exposing __cuda_array_interface__ (another
// library's device array: device memory is host memory here), or None.
py::object interface_array(PyObject *object) {
  if (!PyObject_HasAttrString(object, "__cuda_array_interface__"))
    return py::none();
  return py::module_::import("simt.memory.devicearray")
      .attr("as_cuda_array")(py::handle(object))
      .attr("_host");
}

// The NumPy array an argument stands for, or null.
PyObject *array_of(PyObject *object, py::object &holder) {
  auto &api = py::detail::npy_api::get();
  if (api.PyArray_Check_(object))
    return object;
  if (!PyObject_HasAttrString(object, "_host"))
    holder = interface_array(object);
  else
    holder = py::reinterpret_steal<py::object>(PyObject_GetAttrString(object, "_host"));
  if (!holder || !api.PyArray_Check_(holder.ptr())) {
    PyErr_Clear();
    return nullptr;
  }
  return holder.ptr();
}

// Whether a NumPy dtype is the character sequence `chars` ('S12' for [char x 12], '<U12' for
// [unichr x 12]).
bool chars_dtype_is(py::handle dtype, const Record &chars) {
  const char kind = chars.chars == Record::Chars::Bytes ? 'S' : 'U';
  return dtype.attr("kind").cast<char>() == kind &&
         dtype.attr("itemsize").cast<int64_t>() == chars.size &&
         dtype.attr("isnative").cast<bool>();
}

// Whether a structured dtype's fields are `record`'s (names, scalar types, offsets).
bool record_fields_are(py::handle dtype, const Record &record) {
  if (record.chars != Record::Chars::None)
    return chars_dtype_is(dtype, record);
  py::object names = dtype.attr("names");
  if (names.is_none() || py::len(names) != record.fields.size())
    return false;
  py::dict fields = dtype.attr("fields");
  for (size_t i = 0; i < record.fields.size(); ++i) {
    const RecordField &expected = record.fields[i];
    if (py::str(names[py::int_(i)]).cast<std::string>() != expected.name)
      return false;
    py::tuple field = fields[py::str(expected.name)];
    py::handle type = field[0];
    py::object subdtype = type.attr("subdtype");
    std::vector<int64_t> shape;
    if (!subdtype.is_none()) {
      type = subdtype[py::int_(0)];
      for (auto extent : subdtype[py::int_(1)])
        shape.push_back(extent.cast<int64_t>());
    }
    if (shape != expected.shape)
      return false;
    if (expected.record) { // a nested record or string: its own fields, at this offset
      if (type.attr("itemsize").cast<int64_t>() != expected.record->size ||
          field[1].cast<int64_t>() != expected.offset || !record_fields_are(type, *expected.record))
        return false;
      continue;
    }
    char kind = type.attr("kind").cast<char>();
    Scalar s = expected.scalar;
    char want = dtype_kind(s);
    if (kind != want || type.attr("itemsize").cast<int>() != byte_size(s) ||
        !type.attr("isnative").cast<bool>() || field[1].cast<int64_t>() != expected.offset)
      return false;
  }
  return true;
}

bool record_dtype_is(PyObject *array, const Record &record) {
  if (array_descr(array).elsize != record.size)
    return false;
  return record_fields_are(py::handle(array).attr("dtype"), record);
}

bool dtype_is(PyObject *array, Scalar scalar) {
  const ArrayDescr descr = array_descr(array);
  if (descr.byteorder == '>')
    return false;
  if (scalar == Scalar::BF16) // ml_dtypes' bfloat16, or its storage: int16 / uint16 bits
    return descr.elsize == 2 &&
           (descr.kind == 'i' || descr.kind == 'u' ||
            (descr.kind == 'V' &&
             py::str(py::handle(array).attr("dtype").attr("name")).cast<std::string>() ==
                 "bfloat16"));
  return descr.kind == dtype_kind(scalar) && descr.elsize == byte_size(scalar);
}

// datetime64/timedelta64 arrays and scalars: NumPy spells their dtypes as simt spells the types
// (datetime64[D], timedelta64 for the generic unit).
bool time_dtype_is(py::handle dtype, const Type &time) {
  return py::str(dtype).cast<std::string>() == time.element().str() &&
         dtype.attr("isnative").cast<bool>();
}

std::string array_text(PyObject *array) {
  return py::str(py::handle(array).attr("dtype")).cast<std::string>() + " array of " +
         std::to_string(py::detail::array_proxy(array)->nd) + " dimension(s)";
}

void store_array(PyObject *array, const Type &type, size_t index, int64_t *slot) {
  auto *proxy = py::detail::array_proxy(array);
  using api = py::detail::npy_api;
  bool c_order = proxy->flags & api::NPY_ARRAY_C_CONTIGUOUS_;
  bool f_order = proxy->flags & api::NPY_ARRAY_F_CONTIGUOUS_;
  bool same_dtype = type.record      ? record_dtype_is(array, *type.record)
                    : type.is_time() ? time_dtype_is(py::handle(array).attr("dtype"), type)
                                     : dtype_is(array, type.scalar);
  if (!same_dtype || proxy->nd != type.ndim || (type.layout == 'C' && !c_order) ||
      (type.layout == 'F' && !f_order))
    throw py::type_error(describe_argument(index, type) + ": got a " +
                         (c_order || f_order ? "" : "non-contiguous ") + array_text(array));
  // The kernel may write a parameter that is not readonly: never hand it memory that must not
  // change (a read-only memmap would fault, a bytes object would be corrupted).
  if (!type.readonly && !(proxy->flags & api::NPY_ARRAY_WRITEABLE_))
    throw py::type_error(describe_argument(index, type) + ": got a read-only " + array_text(array) +
                         " (flags.writeable is False)");
  auto *header = reinterpret_cast<sim::ArrayHeader *>(slot);
  header->data = proxy->data;
  for (int axis = 0; axis < type.ndim; ++axis) {
    header->dims[axis] = proxy->dimensions[axis];
    header->dims[type.ndim + axis] = proxy->strides[axis];
  }
}

void store_scalar(PyObject *object, const Type &type, size_t index, int64_t *slot) {
  if (!PyNumber_Check(object) || py::detail::npy_api::get().PyArray_Check_(object))
    throw py::type_error(describe_argument(index, type) + ": expected a number, got " +
                         std::string(Py_TYPE(object)->tp_name));
  Scalar scalar = type.scalar;
  if (is_complex(scalar))
    return store_complex(object, scalar, slot);
  if (is_real(scalar))
    return store_float(object, scalar, slot);
  if (scalar == Scalar::Bool) { // truth, as Numba's unboxing: 3, 0.5 and NaN are True
    int truth = PyObject_IsTrue(object);
    if (truth < 0)
      throw py::error_already_set();
    *reinterpret_cast<uint8_t *>(slot) = static_cast<uint8_t>(truth);
    return;
  }
  uint64_t bits = integer_bits(object, type, index);
  // Little-endian: the low bytes of the slot hold the narrow value.
  std::memcpy(slot, &bits, sizeof bits);
}

// 8-byte slots of an argument (sim/abi.h): a complex128 takes two, a tuple its elements'.
int64_t slots_for(const Type &type) {
  if (type.is_tuple()) {
    int64_t slots = 0;
    for (const Type &elem : type.elems)
      slots += slots_for(elem);
    return slots;
  }
  if (type.is_scalar() && type.scalar == Scalar::C128)
    return 2;
  return type.is_array() ? 1 + 2 * type.ndim : 1;
}

bool is_argument_type(const Type &type) {
  if (type.is_tuple()) {
    for (const Type &elem : type.elems)
      if (!is_argument_type(elem))
        return false;
    return true;
  }
  return type.is_scalar() || type.is_array() || type.is_record();
}

} // namespace

// A record argument (a NumPy record scalar, arr[i] of a structured array): its address, which the
// kernel reads and writes in place as Numba's (which copies it to the device and back).
void KernelArguments::store_record(PyObject *object, const Type &type, size_t index,
                                   int64_t *slot) {
  py::handle value(object);
  bool is_record = py::isinstance(value, py::module_::import("numpy").attr("void"));
  // A device record (DeviceRecord) holds its record as a 0-d array.
  const bool device_record = !is_record && py::hasattr(value, "_is_device_record");
  if (is_record || device_record) {
    py::object array = device_record ? py::object(value.attr("_host"))
                                     : py::module_::import("numpy").attr("asarray")(value);
    auto *proxy = py::detail::array_proxy(array.ptr());
    if (proxy->nd == 0 && record_dtype_is(array.ptr(), *type.record)) {
      if (!(proxy->flags & py::detail::npy_api::NPY_ARRAY_WRITEABLE_)) {
        py::object copy = array.attr("copy")();
        read_only_records_.push_back({array, copy, index, type});
        array = copy;
        proxy = py::detail::array_proxy(array.ptr());
      }
      void *address = proxy->data;
      std::memcpy(slot, &address, sizeof address);
      keep_alive_.push_back(std::move(array));
      return;
    }
  }
  throw py::type_error(
      describe_argument(index, type) + ": expected a record of this dtype, got " +
      (is_record ? "a record of dtype " + py::str(value.attr("dtype")).cast<std::string>()
                 : std::string(Py_TYPE(object)->tp_name)));
}

void KernelArguments::store(PyObject *object, const Type &type, size_t index, int64_t *slot) {
  if (type.is_time() && type.is_scalar()) { // a numpy.datetime64/timedelta64 passes its int64
    py::handle value(object);
    if (!py::hasattr(value, "dtype") || !time_dtype_is(value.attr("dtype"), type) ||
        py::detail::npy_api::get().PyArray_Check_(object))
      throw py::type_error(describe_argument(index, type) + ": expected a " + type.str() +
                           ", got " + py::repr(value).cast<std::string>());
    *slot = value.attr("view")("int64").cast<int64_t>();
  } else if (type.nominal && type.nominal->kind != NominalClass::Kind::NamedTuple &&
             !type.is_time()) {
    // An enum member passes its value.
    py::object value = py::reinterpret_borrow<py::object>(object).attr("value");
    store(value.ptr(), type.plain(), index, slot);
    keep_alive_.push_back(std::move(value));
  } else if (type.is_array()) {
    py::object holder;
    PyObject *array = array_of(object, holder);
    if (!array)
      throw py::type_error(describe_argument(index, type) + ": expected an array, got " +
                           std::string(Py_TYPE(object)->tp_name));
    store_array(array, type, index, slot);
    if (holder)
      keep_alive_.push_back(std::move(holder));
  } else if (type.is_record()) {
    store_record(object, type, index, slot);
  } else if (type.is_tuple()) {
    if (!PyTuple_Check(object) || size_t(PyTuple_GET_SIZE(object)) != type.elems.size())
      throw py::type_error(describe_argument(index, type) + ": expected a tuple of " +
                           std::to_string(type.elems.size()) + " element(s), got " +
                           py::repr(object).cast<std::string>());
    for (size_t k = 0; k < type.elems.size(); ++k) {
      store(PyTuple_GET_ITEM(object, k), type.elems[k], index, slot);
      slot += slots_for(type.elems[k]);
    }
  } else {
    store_scalar(object, type, index, slot);
  }
}

void KernelArguments::check_read_only_records() const {
  for (const ReadOnlyRecord &record : read_only_records_)
    if (!record.original.attr("tobytes")().equal(record.copy.attr("tobytes")()))
      throw py::value_error(describe_argument(record.index, record.type) +
                            ": the kernel wrote to a record of read-only memory (its array's "
                            "flags.writeable is False); the write is discarded");
}

KernelArguments::KernelArguments(const std::vector<Type> &types, const py::tuple &args) {
  int64_t total = 0;
  for (const Type &type : types) {
    if (!is_argument_type(type))
      throw py::type_error("simt: " + type.str() + " kernel arguments are not supported yet");
    total += slots_for(type);
  }
  storage_.assign(total, 0);
  pointers_.resize(types.size());
  int64_t *slot = storage_.data();
  for (size_t i = 0; i < types.size(); ++i) {
    pointers_[i] = slot;
    store(args[i].ptr(), types[i], i, slot);
    slot += slots_for(types[i]);
  }
}

} // namespace simt::bindings
