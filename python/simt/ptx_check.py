"""SIMT_PTX_CHECK=1: every kernel the simulator compiles is also compiled for the GPU and its PTX
assembled by the CUDA toolkit's ptxas, so a test suite run on a machine without a GPU shows that
its kernels compile for one. (Placeholder: filled in by the PTX sweep.)"""
import os

__all__ = ["enabled", "check"]


def enabled():
    return os.environ.get("SIMT_PTX_CHECK", "") not in ("", "0")


def check(dispatcher, argtypes):
    raise NotImplementedError("simt: SIMT_PTX_CHECK is being built")
