"""Compiling and launching kernels: the dispatcher (cuda.jit), the resolver of a kernel's global
names, signatures, PTX (compile_ptx), linking, targets and the launch hooks the tools implement.
Imports simt.base, simt.memory, simt.types and simt.errors, never the tools or the API."""
