"""The `simt` command: `simt run script.py [args]` runs a script with numba.cuda served by simt."""
import os
import runpy
import sys
import traceback

from simt.base.version import __version__

USAGE = """simt run [--target sim|gpu|both] SCRIPT [ARGS...]
                            run a Python script with numba.cuda served by simt; its kernels run
                            on the simulator (sim, the default), the GPU, or both, compared
                            (SIMT_TARGET)
simt run [--target T] -m MODULE [ARGS...]
                            run a module the same way
simt debug [-x FILE] [--batch] SCRIPT [ARGS...]
                            run a script under the kernel debugger: commands from FILE first
                            (--batch: then run on without stopping); -m MODULE for the script
                            runs a module (simt debug -m pytest ...)
simt debug --dap [SCRIPT [ARGS...]] | --dap-port PORT [SCRIPT [ARGS...]]
                            serve a Debug Adapter Protocol client (VS Code) over stdio or on
                            127.0.0.1:PORT; its launch request names the script
simt check [--tool T]... [--schedule random|reverse] [--seed N] [--error-exitcode N]
           [--report FILE] [--suppress FILE] SCRIPT|-m MODULE [ARGS...]
                            run a script with its kernels checked for data races, uninitialised
                            reads, barrier and warp errors and bad accesses (racecheck, initcheck,
                            synccheck, memcheck; all unless --tool names some); exits with
                            --error-exitcode (default 1) when an error was found
simt config                 print every SIMT_* setting, its value here and what it does
simt --version"""


def run_script(path, args):
    if not os.path.isfile(path):
        print("simt: cannot open %s: no such file" % path, file=sys.stderr)
        raise SystemExit(2)
    import simt.hook
    simt.hook.install()
    sys.argv = [path] + list(args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    runpy.run_path(path, run_name="__main__")


def run_module(name, args):
    import simt.hook
    simt.hook.install()
    sys.argv = [name] + list(args)
    sys.path.insert(0, os.getcwd())
    runpy.run_module(name, run_name="__main__", alter_sys=True)


def run_program(argv):
    """Runs `SCRIPT [ARGS...]` or `-m MODULE [ARGS...]`; False (after the usage) when -m names
    no module."""
    if argv[0] != "-m":
        run_script(argv[0], argv[1:])
    elif len(argv) < 2:
        print("simt: -m needs a module\n" + USAGE, file=sys.stderr)
        return False
    else:
        run_module(argv[1], argv[2:])
    return True


def debug(argv):
    commands, batch = [], False
    while argv and argv[0].startswith("-") and argv[0] != "-m":
        option = argv.pop(0)
        if option == "--batch":
            batch = True
        elif option in ("--dap", "--dap-port"):
            from simt.tools import dap
            return dap.main(option, argv, sys.modules[__name__])
        elif option == "-x" and argv:
            path = argv.pop(0)
            try:
                with open(path) as f:
                    commands += [line.rstrip("\n") for line in f if line.strip()]
            except OSError as error:
                print("simt debug: cannot read the commands of -x %s: %s"
                      % (path, error.strerror), file=sys.stderr)
                return 2
        else:
            print(USAGE, file=sys.stderr)
            return 2
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    os.environ["SIMT_DEBUG"] = "1"
    from simt.tools import debugger, debugging
    debugging.set_debug_mode(True)
    debugger.start(commands, batch)
    return 0 if run_program(argv) else 2


def check(argv):
    options = {"tool": [], "schedule": "in-order", "seed": None, "error-exitcode": "1",
               "report": None, "suppress": None}
    while argv and argv[0].startswith("--"):
        name, _, value = argv.pop(0)[2:].partition("=")
        if name not in options:
            print("simt check: unknown option --%s\n%s" % (name, USAGE), file=sys.stderr)
            return 2
        if not value:
            if not argv:
                print("simt check: --%s needs a value" % name, file=sys.stderr)
                return 2
            value = argv.pop(0)
        if name == "tool":
            options["tool"] += value.split(",")
        else:
            options[name] = value
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    from simt.tools import check as checking
    seed = options["seed"]
    if seed is not None:
        try:
            seed = checking.seed_value(seed)
        except ValueError:
            print("simt check: --seed is %s, not %r" % (checking.SEED_RANGE, seed),
                  file=sys.stderr)
            return 2
    try:
        tools = checking.tool_names(",".join(options["tool"]))
        exit_code = int(options["error-exitcode"])
        session = checking.enable(tools, options["schedule"], seed, options["suppress"],
                                  options["report"])
    except (ValueError, OSError) as e:
        print("simt check: %s" % str(e).removeprefix("simt: "), file=sys.stderr)
        return 2
    # Processes the script starts are checked alike.
    os.environ["SIMT_CHECK"] = ",".join(tools)
    os.environ["SIMT_CHECK_SCHEDULE"] = options["schedule"]
    os.environ["SIMT_CHECK_SEED"] = str(session.seed)
    status = 0
    try:
        if not run_program(argv):
            status = 2
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except Exception:  # often the exception of the checked bug itself (IndexError, RuntimeError)
        traceback.print_exc()
        status = 1
    finally:
        checking.disable()
        session.finish()
    # As compute-sanitizer's --error-exitcode: an error found decides the exit status, whatever
    # the script's own (0 leaves the script's).
    if session.errors() and exit_code != 0:
        status = exit_code
    return status


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    if argv[0] == "--version":
        print("simt %s" % __version__)
        return 0
    command, rest = argv[0], argv[1:]
    if command == "config" and not rest:
        from simt.base import config
        try:
            print("\n".join(config.report()), flush=True)
        except BrokenPipeError:  # `simt config | head`: the reader has what it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    if command == "debug":
        return debug(rest)
    if command == "check":
        return check(rest)
    if command != "run" or not rest:
        print(USAGE, file=sys.stderr)
        return 2
    if rest[0] == "--target" or rest[0].startswith("--target="):
        target = rest[0].partition("=")[2] or (rest[1] if len(rest) > 1 else "")
        rest = rest[1:] if "=" in rest[0] else rest[2:]
        if target not in ("sim", "gpu", "both") or not rest:
            print("simt: --target is sim, gpu or both, then the script\n" + USAGE,
                  file=sys.stderr)
            return 2
        os.environ["SIMT_TARGET"] = target
    return 0 if run_program(rest) else 2
