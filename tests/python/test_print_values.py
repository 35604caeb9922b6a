"""print() of tuples (nested, 1-tuples, mixed types) and of the dim3 values cuda.threadIdx,
cuda.blockIdx, cuda.blockDim and cuda.gridDim in kernels: written as Python writes them (floats
with %f, as Numba's CUDA target prints them)."""
import textwrap

from conftest import run_python


def run_kernel_script(tmp_path, body):
    script = tmp_path / "printing.py"
    script.write_text("from numba import cuda\n" + textwrap.dedent(body))
    proc = run_python(["-m", "simt", "run", str(script)])
    assert proc.returncode == 0, proc.stderr
    return [line.strip() for line in proc.stdout.splitlines()]


def test_print_of_tuples_as_python_writes_them(tmp_path):
    lines = run_kernel_script(tmp_path, """
        @cuda.jit
        def kernel(tup, one, x):
            print(tup, "and", one)
            print((x, (x + 1,)), x)
            print(())

        kernel[1, 1]((1, ((2, 4), 3.5), (4,), 5), (1,), 7)
        cuda.synchronize()
        """)
    assert lines == ["(1, ((2, 4), 3.500000), (4,), 5) and (1,)", "(7, (8,)) 7", "()"]


def test_print_of_dim3_values(tmp_path):
    lines = run_kernel_script(tmp_path, """
        @cuda.jit
        def kernel():
            print(cuda.threadIdx, cuda.blockDim)
            if cuda.threadIdx.x + cuda.threadIdx.y + cuda.blockIdx.x == 0:
                print(cuda.blockIdx, cuda.gridDim)

        kernel[(1, 1, 1), (2, 2, 1)]()
        cuda.synchronize()
        """)
    expected = ["(%d, %d, 0) (2, 2, 1)" % (x, y) for x in range(2) for y in range(2)]
    assert sorted(lines) == sorted(expected + ["(0, 0, 0) (1, 1, 1)"])
