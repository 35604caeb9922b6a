"""simt's debugger in IPython and Jupyter. `%load_ext simt`, or importing simt in IPython, adds
the `%simt_debug` magic: `%simt_debug STATEMENT` runs one statement, `%%simt_debug` its cell,
with every kernel under the debugger, stopping at each launch as `simt debug` does. breakpoint()
in a kernel opens the debugger without the magic. In a notebook the debugger reads its commands
through input(), which the kernel forwards to the frontend (simt.tools.debug_input)."""
import sys

MAGIC = "simt_debug"
USAGE = ("%simt_debug STATEMENT, or %%simt_debug over a cell: run it with every kernel under "
         "simt's debugger, stopping at each launch")


def load_ipython_extension(shell):
    """IPython's entry (`%load_ext simt`): registers %simt_debug as a line and cell magic."""

    def simt_debug(line, cell=None):
        debug_code(shell, line if cell is None else cell)

    simt_debug.__doc__ = USAGE
    shell.register_magic_function(simt_debug, "line_cell", MAGIC)


def register_in_running_ipython():
    """Registers the magic when simt is imported in IPython, so that no %load_ext is needed."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        load_ipython_extension(shell)


def debug_code(shell, code):
    """Runs `code` as a cell of `shell`, its kernels under a fresh debugging session (debug
    mode: each launch stops at its start); the notebook's later cells run as before."""
    if not code.strip():
        print(USAGE, file=sys.stderr)
        return
    from simt.tools import debugger, debugging
    was_debugging = debugging.debug_mode()
    debugging.set_debug_mode(True)
    debugger.start()
    try:
        shell.run_cell(code)
    finally:
        debugging.set_debug_mode(was_debugging)
        debugger.end()
