"""simt's own type objects, named, printed and used as Numba's are: `float32`, `float32[:, ::1]`,
`void(float32[:], int32)`. They exist so `from simt import cuda` needs no Numba; Numba's own type
objects are accepted wherever these are (both print the same and the C++ side parses the text)."""
import enum
import functools
import math

import numpy as np

from simt.base import hosts
from simt.base.numpy_compat import array_layout

__all__ = ["Type", "ScalarType", "RecordType", "CharSeqType", "ArrayType", "TupleType", "NoneType", "Signature",
           "EnumMemberType", "NamedTupleType",
           "UniTuple", "Tuple", "void",
           "none", "boolean", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16",
           "uint32", "uint64", "float32", "float64", "intp", "uintp", "byte", "char", "uchar",
           "short", "ushort", "intc", "uintc", "long_", "ulong", "longlong", "ulonglong",
           "float16", "f2", "float_", "double", "f4", "f8", "b1", "i1", "i2", "i4", "i8", "u1",
           "u2", "u4", "u8",
           "complex64", "complex128", "c8", "c16", "csingle", "cdouble", "bfloat16",
           "typeof", "int_type", "conversion", "EXACT", "PROMOTE", "SAFE", "UNSAFE",
           "from_dtype", "signature_text", "type_text"]


class Type:
    """Base of every simt type object. Calling one on a value casts it (`float32(1.5)`), calling
    it on types makes a signature (`void(float32[:])`), as with Numba's types."""

    def __call__(self, *args):
        if len(args) == 1 and not _is_type_object(args[0]):
            return self.cast_python_value(args[0])
        return Signature(self, args)

    def cast_python_value(self, value):
        raise TypeError("simt: %s cannot be called on a value" % self)

    def __repr__(self):
        return str(self)

    def __eq__(self, other):
        # Numba's type objects too, so simt's results compare equal to the types Numba's own
        # code and tests spell (numba.float32, numba.intp).
        return _is_type_object(other) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))


class ScalarType(Type):
    def __init__(self, name):
        self.name = name
        self.dtype = np.dtype("bool" if name == "bool" else name)

    def __str__(self):
        return self.name

    def cast_python_value(self, value):
        return self.dtype.type(value)

    def __getitem__(self, index):
        """`float32[:]`, `float32[:, ::1]` (C order), `float32[::1, :]` (F order)."""
        dims = index if isinstance(index, tuple) else (index,)
        if not dims or not all(isinstance(d, slice) for d in dims):
            raise TypeError("simt: array types are spelt with slices, e.g. float32[:, ::1]")
        for d in dims:
            if d.start is not None or d.stop is not None or d.step not in (None, 1):
                raise TypeError("simt: array types take ':' or '::1' per dimension")
        unit = [d.step == 1 for d in dims]
        layout = "A"
        if len(dims) == 1 and unit[0]:
            layout = "C"
        elif len(dims) > 1 and unit[-1] and not any(unit[:-1]):
            layout = "C"
        elif len(dims) > 1 and unit[0] and not any(unit[1:]):
            layout = "F"
        elif any(unit):
            raise TypeError("simt: a contiguous dimension must be the first or the last")
        return ArrayType(self, len(dims), layout)


class RecordType(Type):
    """A NumPy structured dtype: named scalar fields at byte offsets. Prints as Numba's Record:
    `Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)`."""

    def __init__(self, fields, size, aligned):
        self.fields = tuple((field[0], _field_type(field[1], field[3] if len(field) > 3 else ()),
                             field[2]) for field in fields)
        self.size = size
        self.aligned = aligned

    def __str__(self):
        fields = ",".join("%s[type=%s;offset=%d]" % field for field in self.fields)
        return "Record(%s;%d;%s)" % (fields, self.size, self.aligned)

    @property
    def dtype(self):
        """The NumPy dtype of the record."""
        return np.dtype({"names": [f[0] for f in self.fields],
                         "formats": [f[1].dtype for f in self.fields],
                         "offsets": [f[2] for f in self.fields], "itemsize": self.size},
                        align=self.aligned)

    def __getitem__(self, index):
        return ScalarType.__getitem__(self, index)


class NestedArrayType(Type):
    """A record field that is a NumPy sub-array (Numba's NestedArray): `shape` of `dtype`."""

    def __init__(self, dtype, shape):
        self.scalar = dtype
        self.shape = tuple(shape)

    def __str__(self):
        return "nestedarray(%s, %s)" % (self.scalar, self.shape)

    @property
    def dtype(self):
        return np.dtype((self.scalar.dtype, self.shape))


class CharSeqType(Type):
    """NumPy's fixed-length strings as Numba types them: 'S12' is CharSeq, printed
    `[char x 12]`; '<U12' is UnicodeCharSeq, `[unichr x 12]`. Kernels store str and bytes
    constants into their elements and copy them."""

    def __init__(self, is_bytes, count):
        self.is_bytes = is_bytes
        self.count = count

    def __str__(self):
        return "[%s x %d]" % ("char" if self.is_bytes else "unichr", self.count)

    @property
    def dtype(self):
        return np.dtype(("S%d" if self.is_bytes else "U%d") % self.count)

    def __getitem__(self, index):
        return ScalarType.__getitem__(self, index)


def _field_type(ftype, shape):
    """A record field's type: a scalar type or name, with its sub-array shape (or ()), or a
    nested record (a RecordType, or its description from the C++ side)."""
    if isinstance(ftype, NestedArrayType):
        return ftype
    if isinstance(ftype, tuple) and ftype[0] == "chars":  # ("chars", "bytes", length)
        ftype = CharSeqType(ftype[1] == "bytes", ftype[2])
    elif isinstance(ftype, tuple):  # ("record", fields, size, aligned)
        ftype = RecordType(*ftype[1:])
    if isinstance(ftype, (RecordType, CharSeqType)):
        return NestedArrayType(ftype, shape) if shape else ftype
    scalar = ftype if isinstance(ftype, ScalarType) else _SCALARS[ftype]
    return NestedArrayType(scalar, shape) if shape else scalar


class ArrayType(Type):
    """An array type; `readonly` as Numba's types.Array(..., readonly=True): the type of a NumPy
    array whose flags.writeable is False, which kernels may read but not modify."""

    def __init__(self, dtype, ndim, layout="A", readonly=False):
        self.dtype = dtype if isinstance(dtype, (ScalarType, RecordType)) else from_dtype(dtype)
        self.ndim = ndim
        self.layout = layout
        self.readonly = readonly
        self.mutable = not readonly  # Numba's attribute

    def __str__(self):
        return "%sarray(%s, %dd, %s)" % ("readonly " if self.readonly else "", self.dtype,
                                         self.ndim, self.layout)

    def __call__(self, *args):
        return Signature(self, args)


class TupleType(Type):
    def __init__(self, elems):
        self.elems = tuple(elems)

    def __str__(self):
        if self.elems and all(e == self.elems[0] for e in self.elems):
            return "UniTuple(%s x %d)" % (self.elems[0], len(self.elems))
        return "Tuple(%s)" % ", ".join(str(e) for e in self.elems)


class NamedTupleType(TupleType):
    """Numba's NamedTuple / NamedUniTuple: a tuple of class `instance_class`, whose fields kernels
    read by name. Prints as the C++ side spells it (the class's id tells classes apart)."""

    def __init__(self, elems, instance_class):
        super().__init__(elems)
        self.instance_class = instance_class
        self.fields = tuple(instance_class._fields)

    def __str__(self):
        return "NamedTuple(%s#%d%s)" % (
            self.instance_class.__name__, id(self.instance_class),
            "".join(", %s: %s" % (name, t) for name, t in zip(self.fields, self.elems)))


class EnumMemberType(Type):
    """Numba's EnumMember / IntEnumMember: a member of the enum class `instance_class`, held as
    its value, of type `dtype` (the type of every member's value, as Numba requires)."""

    def __init__(self, instance_class, dtype):
        self.instance_class = instance_class
        self.dtype = dtype

    def __str__(self):
        return "%s(%s#%d, %s)" % (
            "IntEnumMember" if issubclass(self.instance_class, enum.IntEnum) else "EnumMember",
            self.instance_class.__name__, id(self.instance_class), self.dtype)


def enum_member_type(cls):
    """The type of `cls`'s members (Numba's typeof of an enum class's member_type): TypeError for
    an enum whose members' values have different types."""
    types = {}
    for member in cls:
        member_type = typeof(member.value)
        types[str(member_type)] = member_type
    if len(types) != 1:
        raise TypeError("simt: cannot type heterogeneous enum %s: its values have types %s"
                        % (cls.__name__, ", ".join(sorted(types))))
    return EnumMemberType(cls, next(iter(types.values())))


def UniTuple(dtype, count):
    """The type of a tuple of `count` values of `dtype` (numba.types.UniTuple)."""
    return TupleType((dtype,) * count)


def Tuple(types):
    """The type of a tuple of values of `types` (numba.types.Tuple)."""
    return TupleType(types)


class NoneType(Type):
    def __str__(self):
        return "none"


class Signature:
    """A function signature: `void(float32[:], int32)`. Prints like Numba's."""

    def __init__(self, return_type, args):
        self.return_type = return_type
        self.args = tuple(args)

    def __str__(self):
        return "(%s) -> %s" % (", ".join(str(a) for a in self.args), self.return_type)

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, Signature) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))


class Bfloat16Type(ScalarType):
    """numba-cuda's bfloat16 (numba.cuda.types.bfloat16, numba.cuda.bf16.bfloat16), printed as
    numba-cuda prints it: __nv_bfloat16. float32's top 16 bits. NumPy has no bfloat16: its
    `dtype` is ml_dtypes' where ml_dtypes is installed, else the uint16 it is stored as; arrays
    of it are ml_dtypes.bfloat16 arrays or, for a bfloat16[:] parameter, int16 / uint16 arrays
    of its bits."""

    def __init__(self):
        self.name = "__nv_bfloat16"

    @property
    def dtype(self):
        ml_dtype = ml_dtypes_bfloat16()
        return np.dtype(np.uint16) if ml_dtype is None else ml_dtype

    def cast_python_value(self, value):
        ml_dtype = ml_dtypes_bfloat16()
        if ml_dtype is None:
            raise NotImplementedError("simt: bfloat16 values on the host need ml_dtypes; in "
                                      "kernels bfloat16(x) converts x")
        return ml_dtype.type(value)


@functools.lru_cache(maxsize=None)
def ml_dtypes_bfloat16():
    """ml_dtypes' bfloat16 dtype when ml_dtypes is installed (or already registered), else
    None."""
    try:
        return np.dtype("bfloat16")
    except TypeError:
        pass
    try:
        import ml_dtypes
    except ImportError:
        return None
    return np.dtype(ml_dtypes.bfloat16)


def is_bfloat16_dtype(dtype):
    """Whether a NumPy dtype is a bfloat16 one (ml_dtypes' or any other named so)."""
    return dtype.itemsize == 2 and dtype.kind == "V" and dtype.name == "bfloat16"


_BFLOAT16_MAX = float.fromhex("0x1.fep127")  # the largest finite bfloat16


def bfloat16_bits(value):
    """The bit pattern (an int) of `value` rounded once to the nearest bfloat16, ties to even;
    NaN is 0x7fff."""
    value = float(value)
    if value != value:
        return 0x7fff
    if value != 0 and not math.isinf(value):
        exponent = math.frexp(value)[1]
        quantum = max(exponent - 8, -133)  # 8 significant bits; subnormals below 2**-126
        value = math.ldexp(round(math.ldexp(value, -quantum)), quantum)  # round(): to even
        if abs(value) > _BFLOAT16_MAX:
            value = math.copysign(math.inf, value)
    return int(np.array(value, np.float32).view(np.uint32)) >> 16


none = NoneType()
void = none

_SCALARS = {}
for _name in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float32", "float64", "complex64", "complex128", "float16"):
    _SCALARS[_name] = ScalarType(_name)
del _name
bfloat16 = _SCALARS["__nv_bfloat16"] = Bfloat16Type()

boolean = bool_ = b1 = _SCALARS["bool"]
int8 = byte = i1 = _SCALARS["int8"]
int16 = short = i2 = _SCALARS["int16"]
int32 = intc = i4 = _SCALARS["int32"]
int64 = intp = long_ = longlong = i8 = _SCALARS["int64"]
uint8 = char = uchar = u1 = _SCALARS["uint8"]
uint16 = ushort = u2 = _SCALARS["uint16"]
uint32 = uintc = u4 = _SCALARS["uint32"]
uint64 = uintp = ulong = ulonglong = u8 = _SCALARS["uint64"]
float16 = f2 = _SCALARS["float16"]
float32 = f4 = _SCALARS["float32"]
float64 = float_ = double = f8 = _SCALARS["float64"]
complex64 = csingle = c8 = _SCALARS["complex64"]
complex128 = cdouble = c16 = _SCALARS["complex128"]


def scalar_named(name):
    """The scalar type Numba names `name`: "float32", "datetime64[D]", "timedelta64"."""
    return _SCALARS.get(name) or from_dtype(name)


def from_dtype(dtype):
    """The scalar or record type of a NumPy dtype (or anything np.dtype accepts)."""
    if isinstance(dtype, Bfloat16Type):
        return dtype
    dt = np.dtype(dtype)
    if dt.names is not None:
        return _record_from_dtype(dt)
    if is_bfloat16_dtype(dt):  # ml_dtypes.bfloat16
        return bfloat16
    if dt.kind in "mM" and dt.isnative:  # datetime64[D], timedelta64[ns]: Numba's spellings too
        return ScalarType(dt.name)
    if dt.kind in "SU" and dt.isnative and dt.itemsize:
        return CharSeqType(dt.kind == "S", dt.itemsize // (1 if dt.kind == "S" else 4))
    name = "bool" if dt.kind == "b" else dt.name
    if name not in _SCALARS or not dt.isnative:
        raise TypeError("simt: dtype %s is not supported yet" % dt)
    return _SCALARS[name]


def _record_from_dtype(dt):
    fields = []
    for name in dt.names:
        field_dtype, offset = dt.fields[name][:2]
        shape = ()
        if field_dtype.subdtype is not None:
            field_dtype, shape = field_dtype.subdtype
        if field_dtype.subdtype is not None:
            raise TypeError("simt: record field '%s' of type %s is not supported yet (only "
                            "scalar, array and record fields are)" % (name, dt.fields[name][0]))
        fields.append((name, from_dtype(field_dtype), offset, shape))
    return RecordType(fields, dt.itemsize, dt.isalignedstruct)


def _is_type_object(value):
    """True for simt's and the hosts' type objects (Numba's, numba-cuda-mlir's: simt.base.hosts)
    without importing the host."""
    if isinstance(value, Type):
        return True
    cls = type(value)
    return cls.__module__.startswith(hosts.TYPE_OBJECT_MODULES) and hasattr(value, "key") and \
        hasattr(value, "name")


# Kinds of conversion between argument types, best first (numba.core.typeconv.Conversion).
EXACT, PROMOTE, SAFE, UNSAFE = range(4)


def conversion(actual, declared):
    """The kind of conversion (EXACT ... UNSAFE) from an argument of type `actual` to a parameter
    of type `declared`, or None where Numba has none (complex to real, say). Arrays and other
    types convert safely where the types differ (a C array for an 'A' parameter); tuples by
    their worst element."""
    if actual == declared:
        return EXACT
    if isinstance(actual, ScalarType) and isinstance(declared, ScalarType):
        import simt._simt as _simt  # the compiler's table, under the host's casting rules
        return _simt.scalar_conversion(actual.name, declared.name)
    if isinstance(actual, TupleType) and isinstance(declared, TupleType):
        if len(actual.elems) != len(declared.elems):
            return None
        kinds = [conversion(a, d) for a, d in zip(actual.elems, declared.elems)]
        return None if None in kinds else max(kinds)
    return SAFE


def int_type(value):
    """Numba's type of a Python int argument (_typeof_int in numba/core/typing/typeof.py): int64
    when it fits, uint64 for larger values below 2**64. Beyond 64 bits there is no kernel type:
    OverflowError, as Numba's dispatcher raises."""
    if -2**63 <= value < 2**63:
        return int64
    if 0 <= value < 2**64:
        return uint64
    shown = "%d" % value if value.bit_length() <= 128 else "an int of %d bits" % value.bit_length()
    raise OverflowError("int too big to convert: %s is beyond the range of int64 and uint64"
                        % shown)


def typeof(value):
    """The simt type of a kernel argument, by Numba's typeof rules."""
    host = getattr(value, "_host", None)
    if host is not None:
        if hasattr(value, "_is_device_record"):
            return _record_from_dtype(host.dtype)
        value = host
    if isinstance(value, np.ndarray):
        return ArrayType(from_dtype(value.dtype), value.ndim, array_layout(value),
                         not value.flags.writeable)
    if isinstance(value, (bool, np.bool_)):
        return boolean
    if isinstance(value, enum.Enum):
        return enum_member_type(type(value))
    if isinstance(value, int):
        return int_type(value)
    if isinstance(value, float):
        return float64
    if isinstance(value, np.generic) and (value.dtype.kind in "iufcmM" or
                                          is_bfloat16_dtype(value.dtype)):
        return from_dtype(value.dtype)
    if isinstance(value, np.void) and value.dtype.names is not None:
        return _record_from_dtype(value.dtype)
    if isinstance(value, complex):
        return complex128
    if isinstance(value, tuple):
        if hasattr(type(value), "_fields"):
            return NamedTupleType((typeof(v) for v in value), type(value))
        return TupleType(typeof(v) for v in value)
    if hasattr(value, "__cuda_array_interface__"):
        from simt.memory.devicearray import as_cuda_array
        return typeof(as_cuda_array(value, sync=False))  # the launch synchronises
    raise TypeError("simt: cannot pass an argument of type %s to a kernel"
                    % type(value).__name__)


def numba_type(t):
    """Numba's type object for the simt type `t` (scalars, arrays, tuples): what Numba's own
    typing code, such as an @overload function, is given."""
    from numba.core import types
    if isinstance(t, ScalarType) and t.dtype.kind in "mM":
        from numba.np.numpy_support import from_dtype as numba_from_dtype
        return numba_from_dtype(t.dtype)
    if isinstance(t, Bfloat16Type):
        raise NotImplementedError("simt: passing bfloat16 to an @overload function is not "
                                  "supported yet")
    if isinstance(t, ScalarType):
        return types.boolean if t.name == "bool" else getattr(types, t.name)
    if isinstance(t, ArrayType) and isinstance(t.dtype, ScalarType):
        return types.Array(numba_type(t.dtype), t.ndim, t.layout, readonly=t.readonly)
    if isinstance(t, TupleType):
        return types.BaseTuple.from_types([numba_type(e) for e in t.elems])
    raise NotImplementedError("simt: passing %s to an @overload function is not supported yet"
                              % t)


def type_text(t):
    """Text the C++ signature parser reads, for simt types, Numba types and NumPy dtypes."""
    if isinstance(t, str):
        return t
    if isinstance(t, Type) or _is_type_object(t):
        return "void" if str(t) == "none" else str(t)
    if isinstance(t, type) and issubclass(t, np.generic) or isinstance(t, np.dtype):
        return str(from_dtype(t))
    raise TypeError("simt: %r is not a type" % (t,))


def signature_text(sig):
    """Text of a signature given as a string, a simt/Numba signature, or a tuple of arg types."""
    if isinstance(sig, str):
        return sig
    if isinstance(sig, (tuple, list)):
        return "void(%s)" % ", ".join(type_text(a) for a in sig)
    args = getattr(sig, "args", None)
    if args is None:
        raise TypeError("simt: %r is not a signature" % (sig,))
    ret = getattr(sig, "return_type", none)
    return "%s(%s)" % (type_text(ret), ", ".join(type_text(a) for a in args))
