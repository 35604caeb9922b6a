"""simt's device memory: the driver (contexts, memory managers, streams, events), the device,
device arrays and CUDA IPC. Imports only simt.base and simt.errors; what watches memory (the
checkers) registers with memory.watch."""
