"""simt/base/aliasing.py: copies of kernel arguments keep the aliasing of the originals, so that a
run on copies (SIMT_TARGET=both's GPU launch) sees one view's writes through the other."""
import numpy as np

from simt.base.aliasing import byte_range, copies_keeping_aliases, overlap


def test_byte_ranges_and_overlaps():
    buffer = np.arange(8.0)
    base = buffer.__array_interface__["data"][0]
    assert byte_range(buffer[2:5]) == (base + 16, base + 40)
    assert byte_range(buffer[::-1]) == (base, base + 64)
    assert byte_range(buffer[:0]) is None
    assert overlap(byte_range(buffer[:3]), byte_range(buffer[2:]))
    assert not overlap(byte_range(buffer[:2]), byte_range(buffer[2:]))
    assert not overlap(None, byte_range(buffer))


def test_copies_of_overlapping_views_share_one_buffer():
    buffer = np.arange(8.0)
    other = np.zeros(3)
    first, second, apart, none = copies_keeping_aliases(
        [buffer[:6], buffer[::-1][:4], other, None])
    assert none is None
    assert np.shares_memory(first, second) and not np.shares_memory(first, buffer)
    assert first.tolist() == [0, 1, 2, 3, 4, 5] and second.tolist() == [7, 6, 5, 4]
    first[5] = 50.0
    assert second[2] == 50.0 and buffer[5] == 5.0
    assert not np.shares_memory(apart, other) and apart.tolist() == [0, 0, 0]
