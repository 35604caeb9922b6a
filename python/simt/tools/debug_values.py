"""The debugger's view of a stopped thread's memory: locals read and written in place through the
frame layout the compiler reports (name, type, byte offset), as NumPy scalars and arrays over the
kernel's own memory, so printing, indexing, slicing and `set var` see exactly what the kernel
does."""
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
    `address`; only scalars can be assigned."""
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
                             % (value, dtype.name, limits.min, limits.max))
    target = np.frombuffer(_memory(address, _size_align(desc)[0]), dtype)
    target[0] = value


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


def show(value, hex_format=False):
    """A value as the debugger prints it."""
    if isinstance(value, np.ndarray):
        shown = value.values() if isinstance(value, Bfloat16Array) else value
        with np.printoptions(threshold=64, edgeitems=4):
            return "%s shape=%s\n%s" % (type_name(value), value.shape, shown)
    if isinstance(value, np.void):
        return "{%s}" % ", ".join("%s = %s" % (name, show(value[name])) for name in
                                  value.dtype.names)
    if isinstance(value, tuple):
        return "(%s%s)" % (", ".join(show(v, hex_format) for v in value),
                           "," if len(value) == 1 else "")
    if hex_format and isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return hex(int(value) & ((1 << (8 * np.dtype(type(value)).itemsize)) - 1)
                   if isinstance(value, np.integer) else int(value))
    if isinstance(value, (np.bool_, bool)):
        return "True" if value else "False"
    return str(value)
