"""Names that only mean something inside a kernel (cuda.grid, cuda.threadIdx, cuda.atomic.add,
...). They exist on the host so `cuda.<name>` resolves for the compiler; using one from Python
raises. Each carries its name under `cuda` for the resolver (`_simt_cuda_name`)."""

__all__ = ["threadIdx", "blockIdx", "blockDim", "gridDim", "laneid", "warpsize", "grid",
           "gridsize", "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or",
           "syncwarp", "shared", "local", "const", "atomic", "threadfence", "threadfence_block",
           "threadfence_system", "selp", "popc", "brev", "clz", "ffs", "fma", "cbrt",
           "activemask", "lanemask_lt", "nanosleep", "all_sync", "any_sync", "eq_sync",
           "ballot_sync", "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync",
           "match_any_sync", "match_all_sync", "cg", "fp16", "ldca", "ldcg", "ldcs", "ldlu",
           "ldcv", "stcg", "stcs", "stwb", "stwt",
           # Numba's low-level warp intrinsics (shfl_sync and the votes are built on them):
           # names for modules that refer to them (numba.cuda.cudadecl); kernels call the
           # functions above
           "shfl_sync_intrinsic", "vote_sync_intrinsic"]


def _outside_kernel(name):
    return NotImplementedError("simt: cuda.%s is only usable inside a kernel" % name)


class KernelOnlyFunction:
    """A function callable only from kernel code, e.g. cuda.grid."""

    def __init__(self, name):
        self._simt_cuda_name = name
        self.__name__ = name.rpartition(".")[2]
        self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        raise _outside_kernel(self._simt_cuda_name)

    def __repr__(self):
        return "<simt kernel-only function cuda.%s>" % self._simt_cuda_name


class KernelOnlyNamespace:
    """A namespace of kernel-only members: cuda.atomic, cuda.shared, cuda.threadIdx, ..."""

    def __init__(self, name, functions=(), values=()):
        self._simt_cuda_name = name
        self.__name__ = name
        self._values = frozenset(values)
        for function in functions:
            setattr(self, function, KernelOnlyFunction("%s.%s" % (name, function)))

    def __getattr__(self, member):
        if member in self.__dict__.get("_values", ()):
            raise _outside_kernel("%s.%s" % (self._simt_cuda_name, member))
        raise AttributeError("cuda.%s has no member %r" % (self._simt_cuda_name, member))

    def __repr__(self):
        return "<simt kernel-only namespace cuda.%s>" % self._simt_cuda_name


_XYZ = ("x", "y", "z")
threadIdx = KernelOnlyNamespace("threadIdx", values=_XYZ)
blockIdx = KernelOnlyNamespace("blockIdx", values=_XYZ)
blockDim = KernelOnlyNamespace("blockDim", values=_XYZ)
gridDim = KernelOnlyNamespace("gridDim", values=_XYZ)
shared = KernelOnlyNamespace("shared", ("array",))
local = KernelOnlyNamespace("local", ("array",))
const = KernelOnlyNamespace("const", ("array_like",))
atomic = KernelOnlyNamespace("atomic", ("add", "sub", "and_", "or_", "xor", "inc", "dec",
                                        "exch", "max", "min", "nanmax", "nanmin",
                                        "compare_and_swap", "cas"))
cg = KernelOnlyNamespace("cg", ("this_grid", "this_thread_block"))  # the latter: simt
fp16 = KernelOnlyNamespace("fp16", ("hadd", "hsub", "hmul", "hneg", "habs", "hfma",
                                    "heq", "hne", "hgt", "hge", "hlt", "hle", "hmax", "hmin",
                                    "hdiv", "hsin", "hcos", "htanh", "htanh_approx", "hlog",
                                    "hlog2", "hlog10", "hexp", "hexp2", "hexp10", "hsqrt",
                                    "hrsqrt", "hrcp", "hceil", "hfloor", "htrunc", "hrint"))

# CUDA's vector types (constructed in kernels): Numba's names and their C aliases
_VECTOR_ALIASES = {"int8": ["char"], "int16": ["short"], "int32": ["int"],
                   "int64": ["long", "longlong"], "uint8": ["uchar"], "uint16": ["ushort"],
                   "uint32": ["uint"], "uint64": ["ulong", "ulonglong"], "float32": ["float"],
                   "float64": ["double"]}
for _base, _aliases in _VECTOR_ALIASES.items():
    for _count in "1234":
        _vector = KernelOnlyFunction(_base + "x" + _count)
        for _name in [_base + "x"] + _aliases:  # an alias is the same object, as in Numba
            __all__.append(_name + _count)
            globals()[_name + _count] = _vector
del _base, _aliases, _count, _vector

for _name in __all__:
    if _name not in globals():
        globals()[_name] = KernelOnlyFunction(_name)
del _name
