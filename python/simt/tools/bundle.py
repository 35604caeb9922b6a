"""SIMT_BUNDLE=FOLDER: every launch is also written to a bundle (gpu/runner/README.md): the
kernel's PTX, its arguments before the launch and the simulator's results after it, so that
`simt-gpu-run` can run the same launches on a GPU machine that has the CUDA driver but not simt
(no LLVM 19 there) and compare: the parity check by files (scripts/gpu_parity.sh).

The PTX is for compute capability SIMT_BUNDLE_CC (default 7.5, which the driver JIT-compiles for
any newer GPU). Arrays are written whole; once the bundle holds SIMT_BUNDLE_MAX_MB megabytes
(default 48: transfers to GPU machines are small) further launches are left out, and so are
launches with arguments a bundle cannot express (records, arrays of records); a summary line on
stderr at exit says how many.

SIMT_BUNDLE_PER_FILE=PREFIX: one bundle per file instead, FOLDER/PREFIX<file name without .py>,
each with its own SIMT_BUNDLE_MAX_MB: under pytest the test file that launched (the processes a
test starts too), else the kernel's source file. A whole test suite in one run gives bundles per
test file; processes may take turns writing one bundle."""
import atexit
import hashlib
import os
import sys

import numpy as np

import simt.types as simt_types
from simt.base import config
from simt.base.aliasing import byte_range, overlap
from simt.compiler import launch_hooks, ptx
from simt.compiler.targets import HANGS_A_GPU

__all__ = ["enabled", "writer"]

_WRITERS = {}  # by folder


def enabled():
    return bool(config.value("SIMT_BUNDLE"))


def writer(py_func):
    """The bundle writer for SIMT_BUNDLE that records the kernel `py_func`'s launches."""
    folder = config.value("SIMT_BUNDLE")
    per_file = os.environ.get("SIMT_BUNDLE_PER_FILE")  # set, even to "": bundles per file
    if per_file is not None:
        source = os.environ.get("PYTEST_CURRENT_TEST", "").partition("::")[0] or getattr(
            getattr(py_func, "__code__", None), "co_filename", "kernels")
        stem = os.path.splitext(os.path.basename(source))[0]
        folder = os.path.join(folder, per_file + "".join(
            c if c.isalnum() or c in "_-." else "_" for c in stem))
    if folder not in _WRITERS:
        _WRITERS[folder] = BundleWriter(folder)
    return _WRITERS[folder]


class _Unsupported(Exception):
    pass


def _dims(dims):
    return ",".join(str(int(d)) for d in (tuple(dims) + (1, 1, 1))[:3])


def _array_of(value):
    host = getattr(value, "_host", None)
    return host if isinstance(host, np.ndarray) else value


def _alias(array, index, owners):
    """' alias K OFFSET' when the array's bytes overlap an earlier array argument's (views of one
    buffer, as cuda.reduce's last launch passes `partials` twice: the GPU must see them alias),
    else ''; records the array in `owners` when it is no alias."""
    span = byte_range(array)
    overlapping = [owner for owner in owners if overlap(span, owner[2])]
    if not overlapping:
        owners.append([index, array, span])
        return ""
    if len(overlapping) > 1:
        raise _Unsupported("an array argument overlapping two others")
    owner = overlapping[0]
    owner[2] = (min(owner[2][0], span[0]), max(owner[2][1], span[1]))  # the buffer's bytes
    offset = array.__array_interface__["data"][0] - owner[1].__array_interface__["data"][0]
    return " alias %d %d" % (owner[0], offset)


class BundleWriter:
    def __init__(self, folder):
        self.folder = folder
        os.makedirs(folder, exist_ok=True)
        self.manifest_path = os.path.join(folder, "manifest.txt")
        self.bytes = sum(os.path.getsize(os.path.join(folder, name))
                         for name in os.listdir(folder))
        self.limit = config.number("SIMT_BUNDLE_MAX_MB", 48) * 1e6
        cc = config.value("SIMT_BUNDLE_CC").split(".")
        self.cc = (int(cc[0]), int(cc[1]) if len(cc) > 1 else 0)
        self.written = self.left_out = 0
        self.reasons = {}
        if not os.path.exists(self.manifest_path):
            with open(self.manifest_path, "w") as f:
                f.write("simt-bundle 1\n")
        self._catch_up()
        atexit.register(self._summary)

    def _catch_up(self):
        """Counts the launches in the manifest, as another process may have added some since
        this writer last wrote: launch names stay unique."""
        with open(self.manifest_path) as f:
            self.launches = sum(1 for line in f if line.startswith("launch "))
        self.manifest_size = os.path.getsize(self.manifest_path)

    def _summary(self):
        if self.written or self.left_out:
            reasons = "; ".join("%d: %s" % (n, why) for why, n in sorted(self.reasons.items()))
            print("simt: bundle %s: %d launches written, %d left out%s" % (
                self.folder, self.written, self.left_out, " (%s)" % reasons if reasons else ""),
                file=sys.stderr)

    def _file(self, data, suffix):
        """A file holding `data` (bytes), named by its content: equal inputs share one."""
        name = hashlib.sha1(data).hexdigest()[:16] + suffix
        path = os.path.join(self.folder, name)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)
            self.bytes += len(data)
        return name

    def record(self, launch):
        """Runs `launch` (a simt.compiler.launch_hooks.Launch: the simulator's launch, returning
        its fault) and writes it to the bundle; returns the fault."""
        dispatcher, kernel, argtypes, args = (launch.dispatcher, launch.kernel, launch.argtypes,
                                              launch.args)
        try:
            if self.bytes > self.limit:
                raise _Unsupported("the bundle is full (SIMT_BUNDLE_MAX_MB)")
            lines, outputs = self._arguments(argtypes, args)
            compiled = self._ptx(dispatcher, argtypes)
        except _Unsupported as why:
            self.left_out += 1
            self.reasons[str(why)] = self.reasons.get(str(why), 0) + 1
            return launch.run()
        fault = launch.run()
        import simt._simt as _simt  # the compiled extension: loaded once a kernel launches
        undefined = _simt.last_launch_undefined_shuffles()
        for index, array in outputs:
            lines[index] = lines[index].replace(" @OUT@ ", " %s " % self._file(
                np.ascontiguousarray(array).tobytes(), ".out.bin"))
        if os.path.getsize(self.manifest_path) != self.manifest_size:
            self._catch_up()
        name = "%s_%d" % (dispatcher.py_func.__name__, self.launches)
        self.launches += 1
        ptx_name = self._file(compiled["ptx"].encode(), ".ptx")
        tolerance = "1e-12 1e-300" if any(
            str(getattr(t, "dtype", t)) in ("float64", "complex128") for t in argtypes) \
            else "1e-5 1e-8"
        record = ["tolerance %s" % tolerance,
                  "launch %s %s %s %s %s %d %d" % (
                      name, ptx_name, compiled["entry"], _dims(launch.griddim),
                      _dims(launch.blockdim), int(launch.sharedmem), int(kernel.cooperative))]
        if fault is not None and len(fault) > 8 and fault[8] in HANGS_A_GPU:  # the runner skips them
            record.append("simulator-only %s: %s" % (fault[8], " ".join(fault[1].split())))
        elif fault is not None:
            # An array index out of bounds is the record's IndexError code; any other IndexError
            # (a tuple index out of range) is a raise site, as every exception the code raises.
            record.append("fault %s" % ("IndexError" if fault[8] == "bounds" else "exception"))
        if undefined:
            record.append("undefined %d shuffle read%s of lanes outside the mask (simt check "
                          "reports them)" % (undefined, "" if undefined == 1 else "s"))
        if compiled.get("free_arrays"):
            record.append("free-arrays %s" % compiled["free_arrays"])
        if kernel.uses_atomics:
            record.append("order-free the kernel's atomics may place its values elsewhere")
        record += lines
        with open(self.manifest_path, "a") as f:
            f.write("\n".join(record) + "\n")
        self.manifest_size = os.path.getsize(self.manifest_path)
        self.written += 1
        return fault

    def _ptx(self, dispatcher, argtypes):
        if dispatcher.targetoptions.get("link"):
            raise _Unsupported("kernels with link= (a bundle holds one PTX module per launch)")
        options = dispatcher._gpu_options()
        options["cc"] = self.cc
        try:
            return ptx.compile_ptx(dispatcher.py_func, argtypes, **options)
        except (RuntimeError, NotImplementedError) as e:
            raise _Unsupported(str(e).splitlines()[0]) from None

    def _arguments(self, argtypes, args):
        """The manifest's argument lines (an output file as @OUT@, filled in after the launch)
        and the arrays whose results go to files."""
        lines, outputs, owners = [], [], []
        for argtype, value in zip(argtypes, args):
            self._argument(argtype, value, lines, outputs, owners)
        return lines, outputs

    def _argument(self, argtype, value, lines, outputs, owners):
        """`owners`: [argument index, array, byte range of it and its aliases] of the arrays so far
        that are no alias."""
        if isinstance(argtype, simt_types.ArrayType):
            array = _array_of(value)
            if not isinstance(array, np.ndarray) or array.dtype.fields is not None:
                raise _Unsupported("arrays of records")
            if not isinstance(argtype.dtype, simt_types.ScalarType):
                raise _Unsupported("arrays of %s" % (argtype.dtype,))
            data = self._file(np.ascontiguousarray(array).tobytes(), ".in.bin")
            writable = bool(array.flags.writeable)
            lines.append("array %s %d %s %s %s%s%d%s" % (
                argtype.dtype.name, array.ndim, " ".join(map(str, array.shape)),
                " ".join(map(str, array.strides)), data, " @OUT@ " if writable else " - ",
                int(writable), _alias(array, len(lines), owners)))
            if writable:
                outputs.append((len(lines) - 1, array))
        elif isinstance(argtype, simt_types.Bfloat16Type):
            lines.append("scalar bfloat16 %s" % np.array(simt_types.bfloat16_bits(value),
                                                         np.uint16).tobytes().hex())
        elif isinstance(argtype, simt_types.ScalarType):
            lines.append("scalar %s %s" % (argtype.name, np.array(value, dtype=np.dtype(
                argtype.name if argtype.name != "bool" else np.bool_)).tobytes().hex()))
        elif isinstance(argtype, simt_types.TupleType):
            for element_type, element in zip(argtype.elems, value):
                self._argument(element_type, element, lines, outputs, owners)
        else:
            raise _Unsupported("arguments of type %s" % (argtype,))


class _BundleHook(launch_hooks.LaunchHook):
    """Under SIMT_BUNDLE every launch is also written to the bundle (after the debugger's and the
    checkers' launches, which are not)."""

    order = 2

    def launches(self, dispatcher):
        return enabled()

    def launch(self, launch):
        return writer(launch.dispatcher.py_func).record(launch)


launch_hooks.register(_BundleHook())
