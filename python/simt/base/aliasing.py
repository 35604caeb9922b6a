"""Arrays that alias: kernel arguments that are views of one buffer (cuda.reduce's last launch
passes its partial results twice). A run elsewhere — on the GPU, in a bundle, on copies — must
keep them views of one memory, or the writes through one are lost to the other."""
import ctypes

import numpy as np

__all__ = ["byte_range", "overlap", "copies_keeping_aliases"]


def byte_range(array):
    """[first, end) addresses of the bytes an array's elements cover; None without elements."""
    if array.size == 0:
        return None
    first = end = array.__array_interface__["data"][0]
    for extent, stride in zip(array.shape, array.strides):
        reach = (extent - 1) * stride
        first, end = (first + reach, end) if reach < 0 else (first, end + reach)
    return first, end + array.itemsize


def overlap(one, other):
    """Whether two byte ranges (or None) share a byte."""
    return bool(one and other and one[0] < other[1] and other[0] < one[1])


def copies_keeping_aliases(arrays):
    """A copy of each array (None stays None) in which arrays whose bytes overlap are views of
    one copied buffer, as the originals are views of one."""
    ranges = [None if a is None else byte_range(a) for a in arrays]
    order = sorted((r[0], i) for i, r in enumerate(ranges) if r)
    copies = [None if a is None else np.array(a, copy=True, order="K") for a in arrays]
    start = 0
    while start < len(order):
        group = [order[start][1]]
        end = ranges[group[0]][1]
        start += 1
        while start < len(order) and order[start][0] < end:
            group.append(order[start][1])
            end = max(end, ranges[order[start][1]][1])
            start += 1
        if len(group) > 1:
            first = ranges[group[0]][0]
            memory = np.frombuffer((ctypes.c_char * (end - first)).from_address(first),
                                   np.uint8).copy()
            for i in group:
                a = arrays[i]
                copies[i] = np.ndarray(a.shape, a.dtype, buffer=memory, strides=a.strides,
                                       offset=a.__array_interface__["data"][0] - first)
    return copies
