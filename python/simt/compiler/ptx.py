"""PTX of a kernel or device function from LLVM's NVPTX backend (no GPU needed): what
cuda.compile_ptx, cuda.compile, the dispatchers' inspect_asm / inspect_llvm, the PTX check and
the bundle writer compile with."""
import simt.types as types
from simt.base import host
from simt.base.source import CapturedSource
from simt.types import signature_text

from .gpu import check_cc
from .resolver import resolver_for
from .signatures import parse_signature, simt_argtypes

__all__ = ["compile_ptx", "return_type", "bounds_of"]


def compile_ptx(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, cc=None,
                opt=True, abi="numba", abi_info=None, llvm_ir=False, captured_source=None,
                launch_bounds=None):
    """The dict of _simt.compile_ptx for compile_ptx's arguments (`captured_source`: a
    dispatcher's CapturedSource, so the text it compiled is the text compiled here)."""
    import simt._simt as _simt  # the compiler, loaded at its first use (it loads LLVM)
    if abi not in ("numba", "c"):
        raise NotImplementedError("simt: unsupported ABI %r (numba or c)" % (abi,))
    if abi == "c" and not device:
        raise NotImplementedError("simt: the C ABI is for device functions only "
                                  "(compile_ptx(..., device=True, abi='c'))")
    pyfunc = pyfunc.py_func if getattr(pyfunc, "_simt_dispatcher", False) else pyfunc
    # simt's type objects as they are (an enum's or namedtuple's class would not survive text)
    argtypes = simt_argtypes(tuple(sig)) if isinstance(sig, (tuple, list)) else \
        parse_signature(sig)[0]
    target = check_cc(cc or (7, 5))
    abi_name = (abi_info or {}).get("abi_name", "") if abi == "c" else ""
    name, source, file, first_line = (captured_source or CapturedSource(pyfunc)).get()
    return _simt.compile_ptx(
        name, source, file, first_line, id(pyfunc), resolver_for(pyfunc), signature_text(argtypes),
        options=_simt.CompileOptions(
            python_error_model=host.python_error_model(debug, lineinfo),
            debug_info="full" if debug else "lines" if lineinfo else "none",
            fastmath=bool(fastmath)),
        cc=target, opt=bool(opt), device=bool(device), c_abi=abi == "c", abi_name=abi_name,
        llvm_ir=bool(llvm_ir),
        launch_bounds=list(bounds_of(launch_bounds) or ()))


def return_type(compiled, device):
    """The return type compile_ptx gives: void for kernels, the inferred type for device
    functions."""
    if not device:
        return types.void
    returned = parse_signature("%s()" % compiled["return_type"])[1]
    return types.void if returned is None else returned


def bounds_of(bounds):
    """numba-cuda's launch_bounds= as a tuple of one to three positive ints (max threads per
    block, min blocks per multiprocessor, max blocks per cluster), or None."""
    if bounds is None:
        return None
    values = (bounds,) if isinstance(bounds, int) else tuple(bounds)
    if not 1 <= len(values) <= 3 or not all(isinstance(v, int) and v > 0 for v in values):
        raise ValueError("launch_bounds must be a positive int or a tuple of one to three "
                         "(max threads per block, min blocks per SM, max blocks per cluster): "
                         "got %r" % (bounds,))
    if values[0] > 1024:
        raise ValueError("launch_bounds: at most 1024 threads per block, got %d" % values[0])
    return values
