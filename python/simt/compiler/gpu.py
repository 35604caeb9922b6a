"""The CUDA toolkit's command-line tools, for what the GPU backend's PTX becomes on a device:
ptxas (PTX -> cubin) and nvdisasm (cubin -> SASS). Neither is needed to compile PTX."""
import os
import re
import shutil
import subprocess
import tempfile

__all__ = ["SUPPORTED_CCS", "check_cc", "toolkit_program", "disassemble", "patch_nvvm"]

# The compute capabilities LLVM 19's NVPTX backend compiles for (sm_90a is "9.0a": cc=(9, 0)
# gives sm_90).
SUPPORTED_CCS = ((3, 5), (3, 7), (5, 0), (5, 2), (5, 3), (6, 0), (6, 1), (6, 2), (7, 0), (7, 2),
                 (7, 5), (8, 0), (8, 6), (8, 7), (8, 9), (9, 0))


def check_cc(cc):
    """The PTX target of compute capability `cc`: (major, minor) -> "sm_XY", (9, 0, "a") or
    "sm_90a" -> "sm_90a" (architecture-specific features); ValueError if LLVM does not compile
    for it, naming the ones it does."""
    text = str(cc)
    try:
        if isinstance(cc, str) and cc.startswith("sm_"):
            digits = cc[3:].rstrip("a")
            major, minor, suffix = int(digits[:-1]), int(digits[-1]), cc[3 + len(digits):]
        else:
            major, minor, *rest = cc
            major, minor, suffix = int(major), int(minor), "".join(rest)
    except (TypeError, ValueError):
        raise ValueError("simt: a compute capability is (major, minor), not %s" % text) from None
    if (major, minor) not in SUPPORTED_CCS or suffix not in ("", "a") or \
            (suffix == "a" and (major, minor) != (9, 0)):
        raise ValueError("simt: LLVM's NVPTX backend does not compile for compute capability "
                         "%s; it does for %s, and 9.0a" % (text, ", ".join(
                             "%d.%d" % c for c in SUPPORTED_CCS)))
    return "sm_%d%d%s" % (major, minor, suffix)


class NVVM:
    """What Numba's numba.cuda.cudadrv.nvvm.NVVM tells of the compiler, for LLVM's NVPTX backend,
    which simt compiles with (CUDA's libNVVM is not used)."""
    is_nvvm70 = True  # the IR and DWARF versions of NVVM 7.0, LLVM 7-era and later

    def get_version(self):
        return (2, 0)

    def get_ir_version(self):
        return (2, 0, 3, 1)


def patch_nvvm(nvvm_module):
    """Numba's nvvm module (under the import hook) describing simt's compiler: its NVVM() and
    the compute capabilities compile_ptx supports (so find_closest_arch works without libNVVM)."""
    nvvm_module.NVVM = NVVM
    nvvm_module.get_supported_ccs = lambda: SUPPORTED_CCS
    nvvm_module._supported_cc = SUPPORTED_CCS


def toolkit_program(name):
    """The path of the toolkit's program `name`: on the PATH, else in $CUDA_HOME/bin or
    /usr/local/cuda/bin; None when absent."""
    found = shutil.which(name)
    if found:
        return found
    for home in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if home and os.access(os.path.join(home, "bin", name), os.X_OK):
            return os.path.join(home, "bin", name)
    return None


def resource_usage(ptx, cc, entry, max_registers=None):
    """What ptxas reports the kernel `entry` of `ptx` uses when assembled for compute capability
    `cc` (at most `max_registers` registers per thread where given): a dict of "registers",
    "shared", "local" and "const" (bytes). RuntimeError without ptxas."""
    ptxas = toolkit_program("ptxas")
    if ptxas is None:
        raise RuntimeError("ptxas is required for a kernel's resource usage (the GPU's register "
                           "count), and has not been found (on the PATH, in $CUDA_HOME/bin or "
                           "/usr/local/cuda/bin)")
    command = [ptxas, "-v", "-arch=sm_%d%d" % tuple(cc), "-o", os.devnull]
    if max_registers:
        command.append("--maxrregcount=%d" % max_registers)
    with tempfile.TemporaryDirectory() as folder:
        source = os.path.join(folder, "kernel.ptx")
        with open(source, "w") as f:
            f.write(ptx)
        report = subprocess.run(command + [source], check=True, capture_output=True,
                                text=True).stderr
    usage = {"registers": 0, "shared": 0, "local": 0, "const": 0}
    ours = False
    for line in report.splitlines():
        if "Compiling entry function" in line:
            ours = "'%s'" % entry in line
        elif "Function properties for" in line:
            ours = line.rstrip().endswith(" " + entry)
        elif ours and "Used" in line:
            found = dict((unit, int(n)) for n, unit in
                         re.findall(r"(\d+) (registers|bytes smem|bytes lmem|bytes cmem)", line))
            usage["registers"] = found.get("registers", 0)
            usage["shared"] = found.get("bytes smem", 0)
            usage["local"] = found.get("bytes lmem", 0)
            usage["const"] = found.get("bytes cmem", 0)
    return usage


def disassemble(ptx, cc):
    """The SASS of `ptx` for compute capability `cc` ((major, minor)): assembled by ptxas,
    disassembled by nvdisasm (which must be on the PATH, as Numba requires)."""
    nvdisasm = shutil.which("nvdisasm")
    if nvdisasm is None:
        raise RuntimeError("nvdisasm is required for SASS inspection, and has not been found "
                           "(simt looks on the PATH)")
    ptxas = toolkit_program("ptxas")
    if ptxas is None:
        raise RuntimeError("ptxas is required for SASS inspection, and has not been found "
                           "(on the PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin)")
    with tempfile.TemporaryDirectory() as folder:
        source, cubin = os.path.join(folder, "kernel.ptx"), os.path.join(folder, "kernel.cubin")
        with open(source, "w") as f:
            f.write(ptx)
        subprocess.run([ptxas, "-arch=sm_%d%d" % tuple(cc), "-o", cubin, source], check=True,
                       capture_output=True)
        return subprocess.run([nvdisasm, cubin], check=True, capture_output=True,
                              text=True).stdout
