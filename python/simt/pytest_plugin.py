"""pytest plugin (registered by simt's entry point, so it loads with simt installed): serves
numba.cuda by simt and runs tests' kernels under `simt check`.

`pytest --simt` makes `from numba import cuda` simt's, as SIMT_ENABLE=1 does. `pytest --simt-check`
does that too and checks every test; `@pytest.mark.simt_check` one test, with the options of
simt.tools.check.enable (`@pytest.mark.simt_check(tools="race,init", schedule="random", seed=1)`). A
checked test whose kernels show an error fails, with the reports; warnings and info do not fail
it, and neither does a checked test that launched nothing, unless numba.cuda is Numba's there
(the marker without --simt: its kernels ran unchecked). Nothing is imported until a test is
checked.

`pytest --simt-debug` opens simt's debugger on the thread of a kernel fault (and at breakpoint()
in a kernel), as --pdb does at a test's exception; `simt debug -m pytest` stops at each launch.
The debugger talks to the terminal with pytest's capture suspended (simt.tools.debug_pytest)."""
import sys

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("simt")
    group.addoption("--simt", action="store_true", default=False,
                    help="serve numba.cuda by simt (as SIMT_ENABLE=1 does), so tests' kernels run "
                         "on the simulator")
    group.addoption("--simt-check", action="store_true", default=False,
                    help="run every test's kernels under simt's checkers (racecheck, initcheck, "
                         "synccheck, memcheck); an error fails the test. Implies --simt")
    group.addoption("--simt-check-tools", default="all",
                    help="the checkers --simt-check runs, e.g. race,init (default: all)")
    group.addoption("--simt-debug", action="store_true", default=False,
                    help="open simt's kernel debugger on the thread of a kernel fault, post-mortem "
                         "(as --pdb does for host code), and at breakpoint() in a kernel; works "
                         "with capture on. Implies --simt")


def pytest_load_initial_conftests(early_config):
    """Before any conftest.py, which may import numba.cuda."""
    options = early_config.known_args_namespace
    if options.simt or options.simt_check or options.simt_debug:
        import simt.hook
        simt.hook.install()


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "simt_check(tools=None, schedule='in-order', seed=None): run this test's "
                   "kernels under simt's checkers; an error fails the test")
    debugger = sys.modules.get("simt.tools.debugger")  # loaded by `simt debug -m pytest`
    under_simt_debug = debugger is not None and debugger.current() is not None
    if config.getoption("simt_debug") or under_simt_debug:
        from simt.tools import debug_pytest
        debug_pytest.configure(config, stop_at_launch=not config.getoption("simt_debug"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    marker = item.get_closest_marker("simt_check")
    if marker is None and not item.config.getoption("simt_check"):
        yield
        return
    from simt.tools import check
    options = dict(marker.kwargs) if marker is not None else {
        "tools": item.config.getoption("simt_check_tools")}
    if isinstance(options.get("tools"), str):
        options["tools"] = check.tool_names(options["tools"])
    previous = check.disable()
    session = check.enable(quiet=True, **options)
    try:
        outcome = yield
    finally:
        check.disable()
        if previous is not None:
            check.resume(previous)
    if outcome.excinfo is None and session.launches == 0 and _numba_cuda_is_numbas():
        raise pytest.fail("simt check checked nothing: numba.cuda is Numba's in this run, so the "
                          "test's kernels ran unchecked; run pytest with --simt-check (or --simt, "
                          "or SIMT_ENABLE=1) to serve numba.cuda by simt", pytrace=False)
    errors = session.errors()
    if errors and outcome.excinfo is None:
        report = "\n".join(session.format(f) for f in errors)
        raise pytest.fail("simt check found %d error%s:\n%s"
                          % (len(errors), "" if len(errors) == 1 else "s", report),
                          pytrace=False)


def _numba_cuda_is_numbas():
    """Whether numba.cuda was imported without the import hook serving it (the marker alone does
    not install the hook: without --simt or --simt-check, plain pytest keeps Numba's)."""
    cuda = sys.modules.get("numba.cuda")
    return cuda is not None and cuda.__name__ != "simt.cuda"
