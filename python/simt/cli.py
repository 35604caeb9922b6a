"""The `simt` command: `simt run script.py [args]` runs a script with numba.cuda served by simt."""
import os
import runpy
import sys

from . import __version__

USAGE = """simt run SCRIPT [ARGS...]   run a Python script with numba.cuda served by simt
simt run -m MODULE [ARGS...] run a module the same way
simt debug SCRIPT [ARGS...] debug a kernel (not available yet)
simt --version"""


def run_script(path, args):
    from . import hook
    hook.install()
    sys.argv = [path] + list(args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    runpy.run_path(path, run_name="__main__")


def run_module(name, args):
    from . import hook
    hook.install()
    sys.argv = [name] + list(args)
    sys.path.insert(0, os.getcwd())
    runpy.run_module(name, run_name="__main__", alter_sys=True)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    if argv[0] == "--version":
        print("simt %s" % __version__)
        return 0
    command, rest = argv[0], argv[1:]
    if command == "debug":
        print("simt: the debugger is not available yet", file=sys.stderr)
        return 2
    if command != "run" or not rest:
        print(USAGE, file=sys.stderr)
        return 2
    if rest[0] == "-m":
        if len(rest) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        run_module(rest[1], rest[2:])
    else:
        run_script(rest[0], rest[1:])
    return 0
