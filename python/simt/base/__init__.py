"""simt's base layer: settings (config), the numba.cuda hosts (host, hosts), NumPy's differences
(numpy_compat), byte ranges (aliasing), kernels' source text (source, exec_source,
commandline_source) and the version. Of simt's modules it imports only simt.errors."""
