"""simt's tools: the debugger (debugging, debugger, debug_values, debug_breakpoints; where it
reads commands: debug_input; in pytest: debug_pytest; in IPython and Jupyter: notebook), the
checkers (check), the bundle writer (bundle) and the PTX check (ptx_check). Each takes part in
launches through the compiler's launch hooks (simt.compiler.launch_hooks), which it registers
when imported."""
