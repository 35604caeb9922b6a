// How the frontend learns what a kernel's global and closure names are, without importing Python.
// pybind implements Resolver from a function's __globals__ and closure cells; C++ tests implement
// it directly.
#pragma once

#include "ir/extern_function.h"
#include "ir/types.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace simt {

class Resolver;

// A declared signature of a device function: @cuda.jit("int32(int32, float32)", device=True).
struct FunctionSignature {
  Type return_type;
  std::vector<Type> params;
  bool return_inferred = false; // argument types alone were declared: Numba infers the return
};

// The source of a Python function the frontend may compile (a kernel or a device function).
struct FunctionSource {
  std::string name;   // the Python function's __name__
  std::string source; // inspect.getsource(fn), decorators included, possibly indented
  std::string file;   // the file it came from
  int first_line = 1; // line of source's first line in `file`
  std::shared_ptr<Resolver> resolver; // its own globals and closure
  uint64_t identity = 0;              // distinguishes functions with equal names (pybind: id(fn))
  // Its declared signatures: a call converts its arguments to the one Numba's overload
  // selection picks and returns that one's type. Empty: typed from the arguments.
  std::vector<FunctionSignature> signatures;
  // A nested def made a device function of its own (typer_closure.cpp): its enclosing
  // specialisation and place, which tell it from others of the same file and name.
  std::string closure_key;
};

struct GlobalValue {
  enum class Kind : uint8_t {
    Unknown,      // no such name, or (member) why kernels cannot use the object it names
    Int,          // int_value (Python int, NumPy integer) of type `scalar`
    Float,        // float_value (Python float, NumPy float) of type `scalar`; for a complex
                  // `scalar` (Python complex, NumPy complex) the parts float_value, imag_value
    Bool,         // int_value 0/1
    None,         // Python None
    String,       // a Python str: member is its text (exception messages, record field names)
    Tuple,        // elems (constant tuples, e.g. a shape)
    Array,        // a NumPy array, frozen into the kernel as a constant: scalar, shape, data
    Module,       // module_name: "cuda", "math", "numpy", "numba", "numba.cuda", "cmath", ...;
                  // or another namespace whose attributes resolve as dotted names (an enum class)
    ModuleMember, // a function or object imported from a module: module_name + member
                  // (e.g. `from math import sqrt` -> ("math", "sqrt"),
                  //  `from numba import float32` is Dtype instead)
    Dtype,        // a NumPy dtype or Numba scalar type object (np.float32, numba.float32): scalar
    ArrayType,    // a Numba array type object (float32[:, ::1]): scalar, ndim, layout
    Function,     // another jit function: function (device=True, or any @cuda.jit function)
    Exception,    // an exception class: member is its name ("ValueError", or a user class's
                  // "MyError@id", which faults raise as that class)
    Builtin,      // a Python builtin function object: member ("len", "range", "abs", ...)
    Extern,       // a declared external device function: extern_function
    Overload,     // a Python function with @overload implementations (numba.extending): which
                  // one a call gets depends on its arguments' types (Resolver::overload)
    NamedTupleClass, // a namedtuple class (collections or typing): `nominal` is the class, `elems`
                     // the defaults of its last fields
  };

  Kind kind = Kind::Unknown;
  Scalar scalar = Scalar::I64;
  int64_t int_value = 0;
  double float_value = 0;
  double imag_value = 0; // Float of a complex type: the imaginary part
  int ndim = 0;
  char layout = 'A';
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  std::vector<GlobalValue> elems;
  std::string module_name;
  std::string member;
  std::shared_ptr<FunctionSource> function;
  std::shared_ptr<const ExternFunction> extern_function;
  // Array of a structured dtype: its record layout (then `scalar` is meaningless).
  std::shared_ptr<const Record> record;
  // An enum member (an Int, Float, Bool or Tuple constant, its value): its class. A
  // NamedTupleClass: the class itself.
  std::shared_ptr<const NominalClass> nominal;
};

// Parameters of a device function bound, in one of its specialisations, to compile-time values
// its caller passed (Numba's literal and type arguments: a dtype, a function such as
// cuda.atomic.add, an integer used as a shape), each with a text naming the value for the
// specialisation's key.
struct StaticArg {
  GlobalValue value;
  std::string key;
};
using StaticArgs = std::map<std::string, StaticArg>; // by parameter name

inline constexpr const char *kFunctionArgument = "function";

class Resolver {
public:
  virtual ~Resolver() = default;
  // What `name` means in the function's global and closure scope. Python builtins that are not
  // shadowed need not be reported: the frontend knows `range`, `len`, `min`, ... itself.
  // A dotted name ("mymod.add") asks for an attribute of a module the scope holds (a module
  // other than those the frontend knows: math, numpy, cuda, ...).
  virtual GlobalValue resolve(const std::string &name) = 0;
  // The implementation (a Function) that the @overload function `name` (an Overload) has for
  // arguments of the types `args` names (Type::str(), or kFunctionArgument for a function
  // passed: a device function or nested def); Unknown when none accepts them.
  virtual GlobalValue overload(const std::string &name, const std::vector<std::string> &args) {
    (void)name;
    (void)args;
    return {};
  }
};

} // namespace simt
