"""The launch hook: how simt's tools take part in compiling and launching kernels while the
dispatcher knows none of them. The debugger, the checkers, the bundle writer and the PTX check
(simt.tools) each register one LaunchHook when they are imported; the dispatcher asks the
registered hooks, in their `order`:

- variant(dispatcher): the options the tool's variant of the dispatcher's kernels sets
  (CompileOptions' instrumentation, SimOptions' checked_fibers, by name), or None where release
  code serves it. The first hook with a variant decides (the debugger's comes before the
  checkers').
- compiled(dispatcher, argtypes, kernel): each kernel just compiled; True where the tool needs
  its variant of the dispatcher's kernels from now on (a kernel that calls breakpoint() runs
  under the debugger), which the dispatcher then compiles at once.
- launches(dispatcher) and launch(launch): the first hook that launches the dispatcher's
  kernels runs each launch (a Launch) and returns its fault; without one the kernel runs as it
  is."""
import bisect

__all__ = ["LaunchHook", "Launch", "register", "variant", "compiled", "launch"]


class LaunchHook:
    """A tool's part in compiling and launching kernels (see the module's description): by
    default none."""

    order = 0  # hooks are asked from the lowest order up

    def variant(self, dispatcher):
        return None

    def compiled(self, dispatcher, argtypes, kernel):
        return False

    def launches(self, dispatcher):
        return False

    def launch(self, launch):
        raise NotImplementedError


class Launch:
    """One launch of `kernel`, compiled by `dispatcher`, with `args` as the kernel takes them."""

    def __init__(self, dispatcher, kernel, griddim, blockdim, sharedmem, args):
        self.dispatcher = dispatcher
        self.kernel = kernel
        self.griddim = griddim
        self.blockdim = blockdim
        self.sharedmem = sharedmem
        self.args = args

    @property
    def argtypes(self):
        """The overload's argument types; a variant of other options (fission off) is
        not listed among the overloads: the types of the arguments it takes then."""
        return self.dispatcher.argument_types_of(self.kernel, self.args)

    def run(self, **observers):
        """Runs the kernel (`debugger=` or `checker=` observing it); returns its fault or None."""
        return self.kernel.launch(self.griddim, self.blockdim, self.sharedmem, self.args,
                                  **observers)


_hooks = []


def register(hook):
    """Asks `hook` from now on (once, however often it is registered)."""
    if hook not in _hooks:
        _hooks.insert(bisect.bisect_right([h.order for h in _hooks], hook.order), hook)


def variant(dispatcher):
    """The compile options of the variant the dispatcher's kernels are compiled in now, as a
    sorted tuple of (field, value) pairs; () for release code."""
    for hook in _hooks:
        options = hook.variant(dispatcher)
        if options:
            return tuple(sorted(options.items()))
    return ()


def compiled(dispatcher, argtypes, kernel):
    """Tells the hooks of a kernel just compiled; whether one needs its variant now."""
    return any([hook.compiled(dispatcher, argtypes, kernel) for hook in _hooks])


def launch(launch):
    """Runs `launch` by the first hook that launches its dispatcher's kernels, else as it is;
    returns its fault or None."""
    for hook in _hooks:
        if hook.launches(launch.dispatcher):
            return hook.launch(launch)
    return launch.run()
