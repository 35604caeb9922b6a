"""datetime64 and timedelta64 arguments, arrays and arithmetic, typed as Numba types them
(NPDatetime / NPTimedelta: an int64 count of a unit) with NumPy's array semantics: operands in
their common unit, NaT in gives NaT out, comparisons with NaT are false but !=. The differential
case datetime_and_timedelta_arithmetic compares NaT-free results with Numba's simulator (whose
element stores lose NaT when they change its unit); these compare with NumPy."""
import warnings

import numpy as np
import pytest
from simt import CompileError, cuda

NAT_D = np.timedelta64("NaT", "D")


def _as_ints(a):
    return a.view(np.int64) if a.dtype.kind in "mM" else a


def _assert_same(got, expected):
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(_as_ints(got), _as_ints(expected))


@pytest.fixture
def operands():
    n = 16
    rng = np.random.default_rng(3)
    dates = np.datetime64("2020-01-01") + rng.integers(-40, 40, n).astype("m8[D]")
    hours = rng.integers(-100, 100, n).astype("m8[h]")
    days = rng.integers(-5, 5, n).astype("m8[D]")
    dates[3] = np.datetime64("NaT")
    hours[5] = NAT_D
    days[7] = NAT_D
    return dates, hours, days


def test_arithmetic_in_the_common_unit_with_nat_as_numpy_arrays_compute_it(operands):
    @cuda.jit
    def k(dates, hours, days, target, td, dt, ratio, quotient):
        i = cuda.grid(1)
        if i < dates.size:
            td[i, 0] = dates[i] - target
            td[i, 1] = days[i] + hours[i]
            td[i, 2] = days[i] * 3 - days[i] // 2
            td[i, 3] = -days[i] + 2 * days[i]
            td[i, 4] = days[i] / 2.5
            td[i, 5] = hours[i] % days[i]
            td[i, 6] = days[i] * 1.5
            td[i, 7] = hours[i] / (i - 3)
            dt[i, 0] = dates[i] + hours[i]
            dt[i, 1] = hours[i] + dates[i] - days[i]
            ratio[i] = hours[i] / days[i]
            quotient[i] = hours[i] // days[i]

    dates, hours, days = operands
    n = dates.size
    target = np.datetime64("2020-01-05")

    def outputs():
        return (np.zeros((n, 8), "m8[h]"), np.zeros((n, 2), "M8[h]"), np.zeros(n),
                np.zeros(n, np.int64))

    got = outputs()
    k[1, 32](dates, hours, days, target, *got)
    td, dt, ratio, quotient = expected = outputs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's, for its zero divisors
        td[:, 0] = dates - target
        td[:, 1] = days + hours
        td[:, 2] = days * 3 - days // 2
        td[:, 3] = -days + 2 * days
        td[:, 4] = days / 2.5
        td[:, 5] = hours % days
        td[:, 6] = days * 1.5
        td[:, 7] = hours / (np.arange(n) - 3)
        dt[:, 0] = dates + hours
        dt[:, 1] = hours + dates - days
        ratio[:] = hours / days
        quotient[:] = hours // days
    for g, e in zip(got, expected):
        _assert_same(g, e)


def test_comparisons_are_false_with_nat_but_not_equal(operands):
    @cuda.jit
    def k(dates, hours, days, target, out):
        i = cuda.grid(1)
        if i < dates.size:
            out[i, 0] = dates[i] < target
            out[i, 1] = days[i] == hours[i]
            out[i, 2] = days[i] != hours[i]
            out[i, 3] = dates[i] >= target
            out[i, 4] = hours[i] <= days[i]

    dates, hours, days = operands
    target = np.datetime64("2020-01-05T06", "h")
    out = np.zeros((dates.size, 5), np.bool_)
    k[1, 32](dates, hours, days, target, out)
    expected = np.stack([dates < target, days == hours, days != hours, dates >= target,
                         hours <= days], axis=1)
    np.testing.assert_array_equal(out, expected)


def test_scalar_arguments_constants_locals_and_device_arrays():
    step = np.timedelta64(90, "m")

    @cuda.jit
    def k(start, count, out):
        i = cuda.grid(1)
        if i < out.size:
            t = start
            for _ in range(i):
                t = t + step  # a local that unifies datetime64[D] and datetime64[m]
            out[i] = t if i < count else start - step

    start = np.datetime64("2024-02-28")
    d_out = cuda.device_array(10, "M8[m]")
    k[1, 16](start, 6, d_out)
    expected = np.array([start + i * step if i < 6 else start - step for i in range(10)], "M8[m]")
    _assert_same(d_out.copy_to_host(), expected)


def test_vectorize_and_guvectorize_on_datetimes():
    from simt.vectorizers import guvectorize, vectorize

    @vectorize(["timedelta64[s](datetime64[s], datetime64[s])"], target="cuda")
    def elapsed(a, b):
        return b - a

    @guvectorize(["void(timedelta64[D][:], timedelta64[D][:])"], "(n)->()", target="cuda")
    def total(deltas, out):
        out[0] = deltas[0]
        for j in range(1, deltas.shape[0]):
            out[0] = out[0] + deltas[j]

    a = np.arange("2024-01-01T00", "2024-01-01T08", dtype="M8[h]").astype("M8[s]")
    b = a + np.arange(8).astype("m8[s]") * 37
    _assert_same(elapsed(a, b), b - a)
    deltas = np.arange(12).astype("m8[D]").reshape(3, 4)
    _assert_same(total(deltas), deltas.sum(axis=1))


def test_units_that_do_not_convert_exactly_are_a_compile_error():
    @cuda.jit
    def k(months, days, out):
        out[0] = months[0] + days[0]

    with pytest.raises(CompileError, match=r"cannot combine timedelta64\[M\] and "
                                           r"timedelta64\[D\]: their units do not convert"):
        k[1, 1](np.zeros(1, "m8[M]"), np.zeros(1, "m8[D]"), np.zeros(1, "m8[D]"))


def test_times_do_not_mix_with_numbers_where_numpy_refuses():
    @cuda.jit
    def k(dates, out):
        out[0] = dates[0] * 2

    with pytest.raises(CompileError, match=r"unsupported operand types for \*: datetime64\[D\] "
                                           r"and int64"):
        k[1, 1](np.zeros(1, "M8[D]"), np.zeros(1, "M8[D]"))


def test_an_argument_of_another_unit_is_read_as_the_declared_one():
    # A kernel of one explicit signature takes its arguments as declared, as Numba's
    # specialized kernels do (their launch checks no types): the seconds are read as days.
    @cuda.jit("void(datetime64[D][:])")
    def k(dates):
        dates[0] = dates[1]

    a = np.array([0, 5], "M8[s]")
    k[1, 1](a)
    assert a[0] == np.datetime64(5, "s")
