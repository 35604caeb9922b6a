"""Memory the simulator holds for kernels and checkers, and what running out of it does: the JIT
frees the code of kernels nothing references (a kernel factory's memory mappings stay bounded),
exhausting the process's mappings is a MemoryError naming the kernels alive, and a checker out
of shadow memory is a MemoryError naming the tool, after which the process goes on. Each runs in
a subprocess of its own (mapping counts, memory limits)."""
import textwrap

import pytest

from conftest import not_under_asan

# Counts this process's memory mappings and reads its virtual size.
HELPERS = """
import gc, os, sys
import numpy as np
from simt import _simt, cuda

def mappings():
    with open("/proc/self/maps") as f:
        return sum(1 for _ in f)

def virtual_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024

def factory(value):
    # A new kernel each call: `value` is a compile-time constant of its code.
    @cuda.jit
    def add(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += value
    return add
"""


def run_script(python, body, env=None):
    return python(["-c", HELPERS + textwrap.dedent(body)], env=env)


def test_a_kernel_factory_keeps_its_memory_mappings_bounded(python):
    """3,000 kernels, each made, launched once and dropped: their code is freed with them (it
    took two mappings and ~42 kB each, and compiles failed near 32,600 kernels)."""
    result = run_script(python, """
        a = cuda.to_device(np.zeros(32, np.int64))
        factory(0)[1, 32](a)  # the workers and the JIT are up
        before = mappings()
        for value in range(1, 3001):
            factory(value)[1, 32](a)
        gc.collect()
        grown = mappings() - before
        assert a.copy_to_host()[0] == 3000 * 3001 // 2
        print("grown", grown)
        assert grown < 300, grown
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("grown")


def test_tiered_kernels_free_their_quick_code_and_then_their_full_code(python):
    """A kernel recompiled at its full level gives back its Quick code once no launch runs it;
    dropped, it gives back its full code too."""
    result = run_script(python, """
        a = cuda.to_device(np.zeros(32, np.int64))
        factory(0)[1, 32](a)
        _simt.finish_tier_ups()
        before = mappings()
        kept = []
        for value in range(1, 301):
            kernel = factory(value)
            kernel[1, 32](a)  # Quick code; the recompile is queued at once
            kept.append(kernel)
        _simt.finish_tier_ups()
        kernel[1, 32](a)
        tiers = set(next(iter(k.overloads.values())).tier for k in kept)
        alive = mappings() - before  # the full code of 300 kernels; their Quick code is gone
        kept.clear()
        gc.collect()
        dropped = mappings() - before
        print(tiers, alive, dropped)
        assert tiers == {"full"}, tiers
        assert alive < 300 * 3, alive  # each kernel's code takes 2 mappings
        assert dropped < 200, dropped
        """, env={"SIMT_OPT_TIER": "auto", "SIMT_TIER_UP_MS": "0"})
    assert result.returncode == 0, result.stderr


@not_under_asan
def test_running_out_of_memory_mappings_is_a_memory_error_naming_the_kernels_alive(python):
    """With the process's mappings (vm.max_map_count) nearly all taken, kernels kept alive run
    out of them: a MemoryError that counts them and names the likely cause, not LLVM's error;
    once mappings are given back, kernels compile again."""
    try:
        with open("/proc/sys/vm/max_map_count") as f:
            limit = int(f.read())
    except OSError:
        pytest.skip("no /proc/sys/vm/max_map_count")
    if limit > 300000:
        pytest.skip("vm.max_map_count too large to exhaust in a test")
    result = run_script(python, """
        import mmap
        limit = %d
        a = cuda.to_device(np.zeros(32, np.int64))
        factory(0)[1, 32](a)
        # Anonymous mappings of alternating protections: neighbours never merge.
        taken = []
        while mappings() < limit - 150:
            for _ in range(max(1, (limit - 150 - mappings()) // 2)):
                taken.append(mmap.mmap(-1, 4096, prot=mmap.PROT_READ | (
                    mmap.PROT_WRITE if len(taken) %% 2 else 0)))
        kept = []
        try:
            for value in range(1, 10000):
                kernel = factory(value)
                kernel[1, 32](a)
                kept.append(kernel)
            print("no error")
        except MemoryError as error:
            message = str(error)
        taken.clear()
        print(message)
        assert "kernels is alive" in message, message
        assert "vm.max_map_count" in message, message
        assert "Likely cause" in message, message
        kept.clear()
        gc.collect()
        factory(-1)[1, 32](a)  # the process goes on
        print("alive", len(kept))
        """ % limit, env={"SIMT_OPT_TIER": "quick"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "out of memory for the code of kernel add" in result.stdout, result.stdout
    assert "Failed to materialize" not in result.stdout + result.stderr


# A kernel checked under a memory limit of the process's size after a first checked launch plus
# 384 MiB (the brief's `ulimit -v 1 GiB`, relative to what this machine's process takes).
CHECKED = """
import resource
from simt.tools import check
session = check.enable(tools=[%r], quiet=True)

@cuda.jit
def fill(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i

small = cuda.device_array(64, np.int64)
fill[2, 32](small)  # the workers are up
limit = virtual_bytes() + (384 << 20)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
"""


# After the MemoryError: a checked launch runs and the process ends normally.
GOES_ON = """
small = cuda.device_array(64, np.int64)
fill[2, 32](small)
assert (small.copy_to_host() == np.arange(64)).all()
print("goes on")
"""


def run_checked(python, tool, body):
    return run_script(python, CHECKED % tool + textwrap.dedent(body) + GOES_ON,
                      env={"SIMT_THREADS": "2"})


@not_under_asan
def test_racecheck_out_of_shadow_memory_is_a_memory_error_and_the_process_goes_on(python):
    """A 128 MiB array needs 512 MiB of racecheck's shadow: a MemoryError naming racecheck and
    that size (it was std::bad_alloc's abort in a worker); the shadow is given back."""
    result = run_checked(python, "racecheck", """
        n = (128 << 20) // 8
        big = cuda.device_array(n, np.int64)
        try:
            fill[n // 256, 256](big)
            print("no error")
        except MemoryError as error:
            print(error)
        assert big[n - 2:].copy_to_host().tolist() == [n - 2, n - 1]  # it ran to its end
        del big
        """)
    assert result.returncode == 0, result.stdout + result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith("simt check: racecheck ran out of memory in kernel `fill`"), first
    assert "needs 512.0 MiB of shadow memory" in first, first
    assert result.stdout.endswith("goes on\n")


@not_under_asan
@pytest.mark.parametrize("tool", ["initcheck", "memcheck"])
def test_tracking_a_device_array_out_of_memory_is_a_memory_error_naming_the_tool(python, tool):
    """A 256 MiB device array needs as much again for initcheck's (memcheck's) byte states: the
    allocation is a MemoryError naming the tool and the size, and nothing of it stays tracked."""
    result = run_checked(python, tool, """
        try:
            big = cuda.device_array((256 << 20) // 8, np.int64)
            print("no error")
        except MemoryError as error:
            print(error)
        """)
    assert result.returncode == 0, result.stdout + result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith("simt check: %s ran out of memory tracking a device array of "
                            "256.0 MiB, which needs 256." % tool), first
    assert result.stdout.endswith("goes on\n")
