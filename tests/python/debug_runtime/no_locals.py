"""A kernel without parameters or locals."""
from simt import cuda


@cuda.jit
def empty():
    cuda.syncthreads()


empty[1, 2]()
print("done")
