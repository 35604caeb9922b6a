"""The debugger's `info cuda ...` commands: the running launch's kernels, blocks, threads, warps,
lanes and barriers as cuda-gdb lists them. Commands of simt/tools/debugger.py's Session, which
takes them in as a mixin."""
import os

from .debug_breakpoints import DebugError


class CudaInfoCommands:
    """The Session's listings of where the launch's threads are."""

    def cmd_info_cuda_threads(self, _, arg):
        if not self.native.running:
            raise DebugError("No CUDA kernel is running.")
        rows = []
        for index, tid, ctaid, state, loc in self._threads():
            where = self._location(loc)
            place = "%s:%d" % (os.path.basename(where[0]), where[1]) if where else "-"
            key = (place, state)
            if rows and rows[-1][0] == key and rows[-1][2] == index - 1:
                rows[-1][2], rows[-1][4] = index, tid
                rows[-1][5] += 1
            else:
                rows.append([key, index, index, tid, tid, 1, ctaid])
        self._say("  BlockIdx ThreadIdx To BlockIdx ThreadIdx Count Location             State")
        focus = self.native.focus
        for (place, state), first, last, tid_from, tid_to, count, ctaid in rows:
            marker = "*" if first <= focus <= last else " "
            block = "(%d,%d,%d)" % tuple(ctaid)
            self._say("%s %-8s %-9s    %-8s %-9s %5d %-20s %s" % (
                marker, block, "(%d,%d,%d)" % tuple(tid_from), block,
                "(%d,%d,%d)" % tuple(tid_to), count, place, state))

    def _warp_lanes(self, index):
        """(lane, index, tid, state, line or None) of the warp of thread `index`."""
        threads = self._threads()
        first = index // 32 * 32
        lanes = []
        for lane_index in range(first, min(first + 32, len(threads))):
            _, tid, _, state, loc = threads[lane_index]
            where = self._location(loc)
            lanes.append((lane_index - first, lane_index, tid, state,
                          where[1] if where else None))
        return lanes

    @staticmethod
    def _lane_ranges(lanes):
        """"0-15" style ranges of lane numbers."""
        ranges, start = [], None
        for i, lane in enumerate(lanes):
            if start is None:
                start = lane
            if i + 1 == len(lanes) or lanes[i + 1] != lane + 1:
                ranges.append(str(start) if start == lane else "%d-%d" % (start, lane))
                start = None
        return ",".join(ranges)

    def _warp_summary(self, index):
        """Where the lanes of the focused warp are after a warp step, and whether they diverged."""
        by_place = {}
        for lane, _, _, state, line in self._warp_lanes(index):
            place = "at line %d" % line if line is not None and state != "exited" else state
            by_place.setdefault(place, []).append(lane)
        parts = ["lanes %s %s" % (self._lane_ranges(lanes), place)
                 for place, lanes in sorted(by_place.items(), key=lambda item: item[1][0])]
        text = "[warp %d: %s" % (index // 32, "; ".join(parts))
        return text + ("; diverged]" if len(by_place) > 1 else "]")

    def cmd_info_cuda_warps(self, _, arg):
        if not self.native.running:
            raise DebugError("No CUDA kernel is running.")
        threads = self._threads()
        self._say("  Warp Active lanes                      Lines")
        for first in range(0, len(threads), 32):
            lanes = self._warp_lanes(first)
            active = [lane for lane, _, _, state, _ in lanes if state != "exited"]
            lines = sorted({line for _, _, _, state, line in lanes
                            if line is not None and state != "exited"})
            marker = "*" if first // 32 == self.native.focus // 32 else " "
            self._say("%s %4d %-32s %s" % (marker, first // 32,
                                           self._lane_ranges(active) or "(none)",
                                           ", ".join(map(str, lines)) or "-"))

    def cmd_info_cuda_lanes(self, _, arg):
        if not self.native.running:
            raise DebugError("No CUDA kernel is running.")
        self._say("  Lane ThreadIdx   State        Line")
        for lane, index, tid, state, line in self._warp_lanes(self.native.focus):
            marker = "*" if index == self.native.focus else " "
            self._say("%s %4d %-12s %-12s %s" % (marker, lane, "(%d,%d,%d)" % tuple(tid), state,
                                                 line if line is not None else "-"))

    def cmd_info_cuda_barriers(self, _, arg):
        if not self.native.running:
            raise DebugError("No CUDA kernel is running.")
        waiting = {}
        for index, tid, _, state, loc in self._threads():
            if state == "at barrier":
                where = self._location(loc)
                waiting.setdefault(where[1] if where else 0, []).append(index)
        if not waiting:
            self._say("No thread of the block waits at a barrier.")
        for line, indices in sorted(waiting.items()):
            self._say("syncthreads at line %d: %d of %d threads wait (threads %s)" % (
                line, len(indices), len(self._threads()), self._lane_ranges(indices)))

    def cmd_info_cuda_blocks(self, _, arg):
        """Every block's state: blocks run one after another in block order (all at once when
        the kernel syncs the grid); only the focused block's threads can take the focus."""
        if not self.native.running:
            raise DebugError("No CUDA kernel is running.")
        grid, _ = self.native.launch_config()
        ctaid = self._thread(0)[2]
        linear = ctaid[0] + grid[0] * (ctaid[1] + grid[1] * ctaid[2])
        total = grid[0] * grid[1] * grid[2]

        def block(n):
            return "(%d,%d,%d)" % (n % grid[0], n // grid[0] % grid[1], n // (grid[0] * grid[1]))
        self._say("  BlockIdx  To BlockIdx Count State")
        if self.native.cooperative():  # the grid syncs: every block is resident
            rows = [(0, linear - 1, "resident"), (linear, linear, "resident (focus)"),
                    (linear + 1, total - 1, "resident")]
        else:
            rows = [(0, linear - 1, "done"), (linear, linear, "running (focus)"),
                    (linear + 1, total - 1, "not started")]
        for first, last, state in rows:
            if first <= last:
                self._say("%s %-9s %-11s %5d %s" % ("*" if first == linear else " ", block(first),
                                                     block(last), last - first + 1, state))

    def cmd_info_cuda_kernels(self, _, arg):
        """cuda-gdb's columns for the one running kernel: simt runs one launch at a time, on one
        device, its blocks one after another (on one SM)."""
        if not self.native.running:
            self._say("No CUDA kernels.")
            return
        grid, block = self.native.launch_config()
        name = self.native.kernel_name()
        kernel = next(i for i, layout in enumerate(self.native.layouts()) if layout[0] == name)
        self._say("  Kernel Parent Dev Grid Status SMs Mask   GridDim  BlockDim   Invocation")
        self._say("* %6d %6s %3d %4d %-6s 0x%08x %-8s %-10s %s" % (
            self.launches - 1, "-", 0, self.launches, "Active", 1, "(%d,%d,%d)" % tuple(grid),
            "(%d,%d,%d)" % tuple(block), self._signature(kernel, 0).replace(" (", "(", 1)))
