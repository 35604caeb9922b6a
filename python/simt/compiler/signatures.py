"""Signatures in every spelling Numba accepts, as simt's type objects, and external device
functions (cuda.declare_device), which kernels name by their signatures."""
import os

import simt.types as simt_types
from simt.types import signature_text

__all__ = ["parse_signature", "simt_argtypes", "ExternFunction", "declare_device"]


def _type_from_description(desc):
    """simt type from the C++ signature parser's description of a type."""
    if desc is None:
        return simt_types.none
    kind = desc[0]
    if kind == "scalar":
        return simt_types.scalar_named(desc[1])
    if kind == "record":
        return simt_types.RecordType(desc[1], desc[2], desc[3])
    if kind == "chars":
        return simt_types.CharSeqType(desc[1] == "bytes", desc[2])
    if kind == "array":
        dtype = desc[1]
        dtype = simt_types.scalar_named(dtype) if isinstance(dtype, str) else \
            _type_from_description(dtype)
        return simt_types.ArrayType(dtype, desc[2], desc[3], desc[4])
    return simt_types.TupleType(_type_from_description(e) for e in desc[1])


def parse_signature(sig):
    """(argument types, return type) of a signature in any spelling Numba accepts."""
    import simt._simt as native  # the compiler, loaded at its first use (it loads LLVM)
    args, ret = native.parse_signature(signature_text(sig))
    return tuple(_type_from_description(a) for a in args), _type_from_description(ret)


def simt_argtypes(argtypes):
    """A tuple of argument types as simt types (Numba's type objects or signature strings are
    converted)."""
    return tuple(t if isinstance(t, simt_types.Type) else parse_signature((t,))[0][0]
                 for t in argtypes)


def _declares_return_type(sig):
    """Whether a signature names its return type ("int32(float32)", int32(float32), not
    "(float32,)" or a tuple of argument types)."""
    if isinstance(sig, str):
        return not sig.lstrip().startswith("(")
    return hasattr(sig, "return_type")


class ExternFunction:
    """An external device function (numba.cuda.declare_device): defined in CUDA C/C++ or PTX that
    a kernel links in (@cuda.jit(link=[...])), called from kernels with Numba's ABI for foreign
    functions: `extern "C" __device__ int name(return_type *result, params...)`."""

    def __init__(self, name, sig, link=()):
        argtypes, return_type = parse_signature(sig)
        if not _declares_return_type(sig):
            raise TypeError("Return type must be provided for device declarations (%s)" % name)
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError("simt: declare_device needs the function's name, not %r" % (name,))
        self.name = name
        self.sig = simt_types.Signature(return_type, argtypes)
        self.signature_text = "%s(%s)" % (return_type, ", ".join(map(str, argtypes)))
        # numba-cuda's declare_device(link=): files every kernel calling it links in
        self.link = [link] if isinstance(link, (str, os.PathLike)) or hasattr(link, "data") \
            else list(link or ())

    def __repr__(self):
        return "<simt.cuda.ExternFunction %s %s>" % (self.name, self.sig)

    def __call__(self, *args):
        raise TypeError("simt: %s is an external device function: call it from a kernel"
                        % self.name)


def declare_device(name, sig, link=None, use_cooperative=False):
    """numba.cuda.declare_device: declares the external device function `name` of signature
    `sig` (with its return type: "float32(float32, float32)") for kernels to call; numba-cuda's
    `link` names the files that define it, linked into the kernels that call it (its
    use_cooperative changes nothing on simt, where every launch may synchronise its grid)."""
    return ExternFunction(name, sig, link)
