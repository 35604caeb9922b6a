"""The debugger's view of a stopped thread's memory: locals read and written in place through the
frame layout the compiler reports (name, type, byte offset), as NumPy scalars and arrays over the
kernel's own memory, so printing, indexing, slicing and `set var` see exactly what the kernel
does."""
import ast
import ctypes

import numpy as np

_SCALARS = {"bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32,
            "int64": np.int64, "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32,
            "uint64": np.uint64, "float16": np.float16, "float32": np.float32,
            "float64": np.float64, "complex64": np.complex64, "complex128": np.complex128}


class Opaque:
    """A value the debugger cannot show as data (a thread or grid group)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "<%s>" % self.name


class Bfloat16(float):
    """A bfloat16 local's value (NumPy has no bfloat16 scalar), named as Numba names its type."""


def _bfloat16_value(bits):
    return Bfloat16(np.array(int(bits) << 16, np.uint32).view(np.float32))


class Bfloat16Array(np.ndarray):
    """A kernel's bfloat16 array where NumPy has no bfloat16 dtype (no ml_dtypes): a view of its
    bits (uint16) in kernel memory whose elements read as Bfloat16 values and are written rounded
    to bfloat16, as the kernel stores them."""

    def values(self):
        """The elements' values (float32 holds every bfloat16 exactly)."""
        return (self.view(np.ndarray).astype(np.uint32) << 16).view(np.float32)

    def __getitem__(self, index):
        item = super().__getitem__(index)
        return item if isinstance(item, np.ndarray) else _bfloat16_value(item)

    def __setitem__(self, index, value):
        from simt.types import bfloat16_bits
        bits = np.vectorize(bfloat16_bits, otypes=[np.uint16])(np.asarray(value, np.float64))
        super().__setitem__(index, bits)


def _scalar_dtype(name):
    """NumPy's scalar type of a simt scalar name; datetime64[D] and the like by NumPy's name;
    bfloat16 as ml_dtypes' bfloat16 where ml_dtypes is installed, else its bits (uint16)."""
    if name == "__nv_bfloat16":
        from simt.types import bfloat16
        return bfloat16.dtype
    return _SCALARS.get(name) or np.dtype(name)


def _record_dtype(desc):
    if desc[0] == "chars":  # ("chars", "bytes" or "unicode", length): 'S12', '<U12'
        return np.dtype(("S%d" if desc[1] == "bytes" else "U%d") % desc[2])
    _, fields, size, aligned = desc
    names, formats, offsets = [], [], []
    for name, scalar, offset, shape in fields:
        names.append(name)
        element = _record_dtype(scalar) if isinstance(scalar, tuple) else _scalar_dtype(scalar)
        formats.append((element, tuple(shape)) if shape else element)
        offsets.append(offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets,
                     "itemsize": size, "aligned": aligned})


def dtype_of(desc):
    """The NumPy dtype of an array element of type description `desc` (a scalar name or a
    record description)."""
    return _record_dtype(desc) if isinstance(desc, tuple) else np.dtype(_scalar_dtype(desc))


def _size_align(desc):
    """Size and alignment of a value of `desc` in a frame (LLVM's natural layout on the host)."""
    kind = desc[0]
    if kind == "scalar":
        size = np.dtype(_scalar_dtype(desc[1])).itemsize
        return size, size if desc[1] not in ("complex64", "complex128") else size // 2
    if kind == "array":
        return 8 + 16 * desc[2], 8
    if kind == "tuple":
        offset, align = 0, 1
        for elem in desc[1]:
            size, elem_align = _size_align(elem)
            offset = (offset + elem_align - 1) // elem_align * elem_align + size
            align = max(align, elem_align)
        return (offset + align - 1) // align * align, align
    return 8, 8  # records (a pointer) and opaque values


def _memory(address, size):
    return (ctypes.c_char * size).from_address(address)


def read(address, desc):
    """The value of type `desc` stored at `address`: a NumPy scalar (a view for records), a
    NumPy array over the kernel's memory, a tuple, or an Opaque."""
    kind = desc[0] if desc else None
    if kind == "scalar" and desc[1] == "__nv_bfloat16":  # its value, as a float32 holds it
        return _bfloat16_value(np.frombuffer(_memory(address, 2), np.uint16)[0])
    if kind == "scalar":
        return np.frombuffer(_memory(address, _size_align(desc)[0]), _scalar_dtype(desc[1]))[0]
    if kind == "array":
        _, element, ndim, _, readonly = desc
        header = np.frombuffer(_memory(address, 8 + 16 * ndim), np.int64)
        if header[0] == 0:  # the frame starts zeroed: not assigned yet
            raise ValueError("an array not assigned yet")
        dtype = dtype_of(element)
        shape = tuple(int(n) for n in header[1:1 + ndim])
        strides = tuple(int(s) for s in header[1 + ndim:1 + 2 * ndim])
        holder = type("KernelArray", (), {})()
        holder.__array_interface__ = {"version": 3, "shape": shape, "strides": strides,
                                      "typestr": dtype.str, "descr": dtype.descr,
                                      "data": (int(header[0]), bool(readonly))}
        array = np.asarray(holder)
        if element == "__nv_bfloat16":  # its bits (as without ml_dtypes, whose dtype is V2 here)
            return array.view(np.uint16).view(Bfloat16Array)
        return array
    if kind == "tuple":
        values, offset = [], 0
        for elem in desc[1]:
            size, align = _size_align(elem)
            offset = (offset + align - 1) // align * align
            values.append(read(address + offset, elem))
            offset += size
        return tuple(values)
    if kind in ("record", "chars"):
        pointer = ctypes.c_void_p.from_address(address).value
        dtype = _record_dtype(desc)
        return np.frombuffer(_memory(pointer, dtype.itemsize), dtype)[0]
    return Opaque(desc[1] if desc else "none")


def write(address, desc, value):
    """Stores `value` (converted as the kernel would) into the scalar of type `desc` at
    `address`; only scalars can be assigned, and only values the type holds. Returns a warning
    when the conversion changed the value (2.7 into an int32 is 2), else None."""
    if not desc or desc[0] != "scalar":
        raise TypeError("only scalar locals can be assigned")
    if desc[1] == "__nv_bfloat16":  # rounded once to the nearest bfloat16, as bfloat16(x)
        from simt.types import bfloat16_bits
        np.frombuffer(_memory(address, 2), np.uint16)[0] = bfloat16_bits(value)
        return
    dtype = np.dtype(_scalar_dtype(desc[1]))
    if dtype.kind in "iu" and isinstance(value, (int, float, np.integer, np.floating)):
        # NumPy raises for an int out of range, or stores an unspecified value for a float
        limits = np.iinfo(dtype)
        if not limits.min <= value <= limits.max:
            raise ValueError("%s does not fit %s (%d to %d)"
                             % (_brief(value), dtype.name, limits.min, limits.max))
    if dtype.kind in "fc" and isinstance(value, (int, float, np.integer, np.floating)) and \
            abs(value) > float(np.finfo(dtype).max) and abs(value) != float("inf"):
        raise ValueError("%s does not fit %s (largest %s)" % (_brief(value), dtype.name,
                                                             np.finfo(dtype).max))
    target = np.frombuffer(_memory(address, _size_align(desc)[0]), dtype)
    target[0] = value
    if isinstance(value, (float, np.floating)) and not np.isnan(value) and \
            float(target[0]) != float(value) and dtype.kind in "iu":
        return "warning: %s truncated to %s %s" % (value, dtype.name, target[0])
    return None


def _brief(number):
    """A number for a message: a huge integer by its first digits and length."""
    text = str(number)
    return text if len(text) <= 40 else "%s... (%d digits)" % (text[:12], len(text))


def short_type(desc):
    """A type as frame headers show it: float64[::1], int64."""
    if desc and desc[0] == "array":
        element = "Record" if isinstance(desc[1], tuple) else desc[1]
        axes = ", ".join([":"] * (desc[2] - 1) + ["::1" if desc[3] == "C" else ":"])
        return "%s[%s]" % (element, axes)
    if desc and desc[0] == "scalar":
        return desc[1]
    return str(desc[1]) if desc else "none"


def type_name(value):
    """The Numba name of a value's type: float32, int64, array(float32, 2d, C), ..."""
    if isinstance(value, np.ndarray):
        layout = "C" if value.flags.c_contiguous else ("F" if value.flags.f_contiguous else "A")
        element = "Record" if value.dtype.names else value.dtype.name
        if isinstance(value, Bfloat16Array):
            element = "__nv_bfloat16"
        return "array(%s, %dd, %s)" % (element, value.ndim, layout)
    if isinstance(value, np.void):
        return "Record(%s)" % ", ".join(value.dtype.names)
    if isinstance(value, Bfloat16):
        return "__nv_bfloat16"
    if isinstance(value, np.generic):
        return value.dtype.name
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, complex):
        return "complex128"
    if isinstance(value, tuple):
        return "Tuple(%s)" % ", ".join(type_name(v) for v in value)
    return type(value).__name__


# print/FMT's letters (gdb's): x, d, u, o and t show a value's bits, a float's too, as current
# gdb does (p/x 1.5 is 0x3ff8000000000000, the float64's bits); f shows a number's value as a float.
FORMATS = "xduotf"


def _bits(value):
    """(bits as an unsigned integer, size in bytes) of a scalar as the kernel holds it."""
    if isinstance(value, Bfloat16):
        from simt.types import bfloat16_bits
        return int(bfloat16_bits(value)), 2
    if isinstance(value, (bool, np.bool_)):
        return int(value), 1
    if isinstance(value, int):  # a Python int is an int64 in kernels
        value = np.int64(value)
    elif isinstance(value, float):
        value = np.float64(value)
    if isinstance(value, (np.integer, np.floating)):
        size = value.dtype.itemsize
        return int(value.view("u%d" % size)), size
    raise TypeError("/format applies to numbers, not %s" % type_name(value))


def formatted(value, fmt):
    """A scalar under print's /FMT (one of FORMATS)."""
    if fmt == "f":
        if isinstance(value, (np.floating, float)):
            return str(value)
        return str(np.float64(value))
    bits, size = _bits(value)
    if fmt == "x":
        return hex(bits)
    if fmt == "o":
        return "0%o" % bits if bits else "0"
    if fmt == "t":
        return format(bits, "b")
    if fmt == "d" and bits >> (8 * size - 1):
        return str(bits - (1 << (8 * size)))
    return str(bits)


def show(value, fmt=None):
    """A value as the debugger prints it; `fmt` (one of FORMATS) applies to each number in it."""
    if isinstance(value, np.ndarray):
        shown = value.values() if isinstance(value, Bfloat16Array) else value
        options = {"threshold": 64, "edgeitems": 4}
        if fmt and not value.dtype.names:
            options["formatter"] = {"all": lambda v: formatted(v, fmt)}
        with np.printoptions(**options):
            return "%s shape=%s\n%s" % (type_name(value), value.shape, shown)
    if isinstance(value, np.void):
        return "{%s}" % ", ".join("%s = %s" % (name, show(value[name], fmt)) for name in
                                  value.dtype.names)
    if isinstance(value, tuple):
        return "(%s%s)" % (", ".join(show(v, fmt) for v in value),
                           "," if len(value) == 1 else "")
    if fmt and isinstance(value, (int, float, complex, np.number, np.bool_)):
        return formatted(value, fmt)
    if isinstance(value, (np.bool_, bool)):
        return "True" if value else "False"
    return str(value)


def detached(value):
    """`value` copied out of kernel memory, for the value history: a launch's frames and shared
    memory are gone when it ends, and $N still reads what was printed."""
    if isinstance(value, (np.ndarray, np.void)):
        return value.copy()
    if isinstance(value, tuple):
        return tuple(detached(v) for v in value)
    return value


def describe_type(value):
    """ptype's text: the type's name, and a record's fields with their types and offsets."""
    dtype = value.dtype if isinstance(value, (np.ndarray, np.void)) else None
    name = type_name(value)
    if dtype is None or not dtype.names:
        return name
    fields = []
    for field in dtype.names:
        field_type, offset = dtype.fields[field][:2]
        element = field_type.subdtype
        text = "%s[%s]" % (element[0].name, ", ".join(map(str, element[1]))) if element \
            else field_type.name
        fields.append("    %s: %s (offset %d)" % (field, text, offset))
    return "%s\nRecord {\n%s\n} (%d bytes)" % (name, "\n".join(fields), dtype.itemsize)


# An expression's number literals typed as a kernel types them (int64, float64; Numba's typing):
# with NumPy 2's promotion (NEP 50) a Python number takes its other operand's type, so
# `a[i] + 100.0` over a float32 would be float32 there and float64 under NumPy 1 and in kernels.
_LITERAL = "__simt_literal"


def as_kernel_number(value):
    """A Python int or float as a kernel sees one (a literal, a global): int64 or float64; an
    int past int64, and anything else, as it is."""
    if type(value) is int and -2**63 <= value < 2**63:
        return np.int64(value)
    return np.float64(value) if type(value) is float else value


LITERALS = {_LITERAL: as_kernel_number}  # what evaluating compile_expression()'s code needs


def _numbers_only(node):
    """Whether `node` is arithmetic on number literals alone (Python computes it exactly)."""
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float)
    if isinstance(node, ast.UnaryOp):
        return _numbers_only(node.operand)
    return isinstance(node, ast.BinOp) and _numbers_only(node.left) and _numbers_only(node.right)


class _TypedLiterals(ast.NodeTransformer):
    def visit(self, node):
        if isinstance(node, ast.expr) and _numbers_only(node):  # `10**30` stays Python's int
            call = ast.Call(ast.Name(_LITERAL, ast.Load()), [node], [])
            return ast.copy_location(call, node)
        return super().visit(node)


def compile_expression(text, filename):
    """The code of the expression `text` (SyntaxError as compile's), its number literals typed
    as in kernels; evaluate it with LITERALS in scope."""
    tree = _TypedLiterals().visit(ast.parse(text, filename, "eval"))
    return compile(ast.fix_missing_locations(tree), filename, "eval")
