"""Record (structured dtype) arrays in kernels, and Numba's own numba.cuda.random generator
(xoroshiro128+, whose state is a record array) running on simt, compared with Numba's CPU
implementation of the same functions."""
import numba
import numpy as np
import pytest
from numba.cuda import random as nrandom
from numba.cuda.random import (init_xoroshiro128p_state, xoroshiro128p_jump,
                               xoroshiro128p_normal_float32, xoroshiro128p_normal_float64,
                               xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64)

import simt
from simt import cuda

PACKED = np.dtype([("a", np.int32), ("b", np.float64), ("c", np.uint8)])
ALIGNED = np.dtype([("a", np.int32), ("b", np.float64), ("c", np.uint8)], align=True)


def records(dtype, n=50):
    rng = np.random.default_rng(3)
    r = np.zeros(n, dtype)
    r["a"] = rng.integers(-100, 100, n)
    r["b"] = rng.uniform(-5, 5, n)
    r["c"] = rng.integers(0, 200, n)
    return r


@cuda.jit
def fields_kernel(recs, out):
    i = cuda.grid(1)
    if i < recs.size:
        out[i] = recs[i]['a'] + recs[i].b
        recs[i].c = i
        recs[i]['a'] += 3
        rec = recs[i]
        rec.b *= 2.0


@pytest.mark.parametrize("dtype", [PACKED, ALIGNED], ids=["packed", "aligned"])
def test_fields_read_and_write_like_numpy(dtype):
    r = records(dtype)
    expected = r.copy()
    out = np.zeros(r.size)
    fields_kernel[2, 32](r, out)
    np.testing.assert_array_equal(out, expected["a"] + expected["b"])
    expected["c"] = np.arange(r.size)
    expected["a"] += 3
    expected["b"] *= 2.0
    np.testing.assert_array_equal(r, expected)


def test_record_types_print_as_numbas():
    for dtype in (PACKED, ALIGNED, nrandom.xoroshiro128p_dtype):
        assert str(simt.from_dtype(dtype)) == str(numba.from_dtype(dtype))
        # Numba prints "unaligned array(...)" for the packed one: the same type to simt.
        assert str(numba.typeof(np.zeros(3, dtype))).endswith(str(simt.typeof(np.zeros(3, dtype))))
    assert simt.from_dtype(ALIGNED).dtype == ALIGNED


def test_whole_records_copy_and_device_arrays_hold_records():
    @cuda.jit
    def shift(src, dst):
        i = cuda.grid(1)
        if i < dst.size:
            dst[i] = src[(i + 1) % src.size]

    src = records(ALIGNED, 40)
    d_dst = cuda.device_array(40, dtype=ALIGNED)
    shift[1, 64](cuda.to_device(src), d_dst)
    np.testing.assert_array_equal(d_dst.copy_to_host(), np.roll(src, -1))


def test_explicit_record_signatures_and_mismatched_arrays():
    sig = simt.void(numba.from_dtype(PACKED)[::1])

    @cuda.jit(sig)
    def bump(recs):
        recs[0].a += 1

    r = records(PACKED, 4)
    bump[1, 1](r)
    assert r["a"][0] == records(PACKED, 4)["a"][0] + 1
    with pytest.raises(TypeError, match="No matching definition"):
        bump[1, 1](records(ALIGNED, 4))
    kernel = next(iter(bump.overloads.values()))
    with pytest.raises(TypeError, match=r"argument 1 \(array\(Record\(a\[type=int32;offset=0\]"):
        kernel.launch((1, 1, 1), (1, 1, 1), 0, (records(ALIGNED, 4),))


def test_unknown_fields_are_compile_errors():
    @cuda.jit
    def bad(recs):
        recs[0].d = 1

    with pytest.raises(simt.errors.CompileError, match="has no field 'd'"):
        bad[1, 1](records(PACKED, 2))


def test_uniform_tuples_take_run_time_indices():
    @cuda.jit
    def pick(idx, out):
        i = cuda.grid(1)
        t = (10, 20, 30)
        out[i] = t[idx[i]]

    out = np.zeros(6, np.int64)
    pick[1, 6](np.array([0, 1, 2, -1, -2, -3]), out)
    np.testing.assert_array_equal(out, [10, 20, 30, 30, 20, 10])
    with pytest.raises(IndexError, match="tuple index out of range"):
        pick[1, 1](np.array([3]), out)


N_STATES = 100
DRAWS = 5


def cpu_states(seed=7):
    states = np.empty(N_STATES, dtype=nrandom.xoroshiro128p_dtype)
    nrandom.init_xoroshiro128p_states_cpu(states, seed, 0)
    return states


@cuda.jit
def draw(states, f32, f64, n32, n64):
    i = cuda.grid(1)
    if i < states.size:
        for k in range(f32.shape[1]):
            f32[i, k] = xoroshiro128p_uniform_float32(states, i)
            f64[i, k] = xoroshiro128p_uniform_float64(states, i)
            n32[i, k] = xoroshiro128p_normal_float32(states, i)
            n64[i, k] = xoroshiro128p_normal_float64(states, i)


def test_xoroshiro128p_draws_match_numbas_cpu_functions():
    states = cpu_states()
    reference = states.copy()
    outs = [np.zeros((N_STATES, DRAWS), t) for t in (np.float32, np.float64, np.float32,
                                                     np.float64)]
    draw[4, 32](states, *outs)
    expected = [np.zeros_like(o) for o in outs]
    for i in range(N_STATES):
        for k in range(DRAWS):
            expected[0][i, k] = xoroshiro128p_uniform_float32(reference, i)
            expected[1][i, k] = xoroshiro128p_uniform_float64(reference, i)
            expected[2][i, k] = xoroshiro128p_normal_float32(reference, i)
            expected[3][i, k] = xoroshiro128p_normal_float64(reference, i)
    # The uniform draws (integer arithmetic, then a conversion) are bit-exact.
    assert outs[0].tobytes() == expected[0].tobytes()
    assert outs[1].tobytes() == expected[1].tobytes()
    # The normal draws take math.log and math.cos of float32 values: simt computes float32 math
    # in double precision and rounds once (correctly rounded), Numba's CPU calls logf/cosf (within
    # 1 ulp; a GPU's libdevice differs again), so a few draws differ in the last float32 bit.
    for got, want in zip(outs[2:], expected[2:]):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
        assert np.mean(got == want) > 0.95
    assert states.tobytes() == reference.tobytes()


def test_xoroshiro128p_init_and_jump_run_in_kernels():
    @cuda.jit
    def init(states, seed):
        i = cuda.grid(1)
        if i < states.size:
            init_xoroshiro128p_state(states, i, seed + i)
            xoroshiro128p_jump(states, i)

    states = np.zeros(N_STATES, dtype=nrandom.xoroshiro128p_dtype)
    init[4, 32](states, np.uint64(2**63 + 5))
    expected = np.zeros_like(states)
    for i in range(N_STATES):
        init_xoroshiro128p_state(expected, i, np.uint64(2**63 + 5 + i))
        xoroshiro128p_jump(expected, i)
    assert states.tobytes() == expected.tobytes()


def test_numba_cuda_random_under_the_import_hook(python, tmp_path):
    script = tmp_path / "rng.py"
    script.write_text(
        "import numpy as np\n"
        "from numba import cuda\n"
        "from numba.cuda.random import (create_xoroshiro128p_states,\n"
        "                               xoroshiro128p_uniform_float64)\n"
        "@cuda.jit\n"
        "def k(states, out):\n"
        "    i = cuda.grid(1)\n"
        "    out[i] = xoroshiro128p_uniform_float64(states, i)\n"
        "states = create_xoroshiro128p_states(64, seed=42)\n"
        "out = np.zeros(64)\n"
        "k[2, 32](states, out)\n"
        "print(cuda.__name__, out.min() >= 0, out.max() < 1, len(set(out.tolist())))\n")
    proc = python(["-m", "simt", "run", str(script)])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[1:] == ["True", "True", "64"]


def test_record_fields_that_are_arrays_of_records():
    point = np.dtype([("x", np.float32), ("tag", "S2")])
    nested = np.dtype([("xy", point, (2,)), ("n", np.int32)])
    assert str(simt.from_dtype(nested)) == (
        "Record(xy[type=nestedarray(Record(x[type=float32;offset=0],tag[type=[char x 2];offset=4]"
        ";6;False), (2,));offset=0],n[type=int32;offset=12];16;False)")

    @cuda.jit
    def k(recs, out):
        i = cuda.grid(1)
        if i < recs.size:
            r = recs[i]
            r.xy[1].x = r.xy[0].x + r.n
            r.xy[0] = r.xy[1]  # a record copied into an element of the field
            r.xy[1]["tag"] = b"ok"
            out[i] = r.xy.size + r.xy[1].x

    recs = np.zeros(3, nested)
    recs["n"] = [1, 2, 3]
    recs["xy"]["x"][:, 0] = [10, 20, 30]
    out = np.zeros(3)
    k[1, 4](recs, out)
    assert recs["xy"]["x"].tolist() == [[11, 11], [22, 22], [33, 33]]
    assert recs["xy"]["tag"][:, 1].tolist() == [b"ok"] * 3
    assert out.tolist() == [13, 24, 35]

    @cuda.jit
    def whole(recs):
        recs[0].xy = recs[1].xy

    with pytest.raises(simt.CompileError, match=r"assigning to the field 'xy', an array of "
                                                r"records, is not supported yet"):
        whole[1, 1](recs)


NESTED = np.dtype([("a", np.float64), ("h", np.float32, (2,)), ("j", np.float32, (3, 2)),
                   ("d", np.uint8, (5,))], align=True)
NESTED_PACKED = np.dtype([("c", np.uint8), ("a", np.float64), ("h", np.float32, (2,)),
                          ("j", np.int16, (3, 2))])


@cuda.jit
def nested_kernel(recs, out):
    i = cuda.grid(1)
    if i < recs.size:
        r = recs[i]
        r.h[0] = r.a
        r['h'][1] = 2 * r.a
        for k in range(3):
            for m in range(2):
                r.j[k, m] += k * 10 + m
        out[i] = recs[i]['j'][2, 1] + r.h.size + r.j.shape[0]


@pytest.mark.parametrize("dtype", [NESTED, NESTED_PACKED], ids=["aligned", "packed"])
def test_nested_array_fields_are_views_into_the_record(dtype):
    recs = np.zeros(4, dtype)
    recs["a"] = np.arange(4)
    expected = recs.copy()
    a = expected["a"]
    expected["h"][:, 0] = a
    expected["h"][:, 1] = 2 * a
    expected["j"] += np.arange(3)[:, None] * 10 + np.arange(2)
    out = np.zeros(4)
    nested_kernel[1, 32](recs, out)
    np.testing.assert_array_equal(recs, expected)
    np.testing.assert_array_equal(out, expected["j"][:, 2, 1] + 2 + 3)


def test_nested_array_field_types_print_as_numba_does():
    t = simt.types.from_dtype(NESTED)
    assert str(t) == ("Record(a[type=float64;offset=0],h[type=nestedarray(float32, (2,));"
                      "offset=8],j[type=nestedarray(float32, (3, 2));offset=16],"
                      "d[type=nestedarray(uint8, (5,));offset=40];48;True)")
    assert t.dtype == NESTED


@cuda.jit
def nested_copy_kernel(recs, src):
    recs[0]['h'] = recs[1]['h']
    r = recs[2]
    r.j = src


def test_assigning_a_whole_nested_array_field_copies_it():
    recs = np.zeros(3, NESTED)
    recs[1]["h"] = [1.5, 2.5]
    src = np.arange(6, dtype=np.float64).reshape(3, 2)
    expected = recs.copy()
    expected[0]["h"] = expected[1]["h"]
    expected[2]["j"] = src
    nested_copy_kernel[1, 1](recs, src)
    np.testing.assert_array_equal(recs, expected)
    with pytest.raises(ValueError, match="cannot assign an array of a different shape to the "
                                         "field 'j'"):
        nested_copy_kernel[1, 1](recs, np.zeros((2, 2)))


def test_assigning_a_scalar_to_a_nested_array_field_is_reported():
    @cuda.jit
    def kernel(recs):
        recs[0]['h'] = 1.0

    with pytest.raises(simt.errors.CompileError,
                       match=r"cannot store float64 into the nestedarray\(float32, \(2,\)\) "
                             r"field 'h'"):
        kernel[1, 1](np.zeros(2, NESTED))


@cuda.jit
def field_by_position_kernel(recs, out):
    out[0] = recs[1][0]
    out[1] = recs[1][-4]
    out[2] = recs[1][1][1]


def test_record_fields_by_constant_position():
    recs = np.zeros(2, NESTED)
    recs[1]["a"] = 4.5
    recs[1]["h"] = [1.0, 7.0]
    out = np.zeros(3)
    field_by_position_kernel[1, 1](recs, out)
    np.testing.assert_array_equal(out, [4.5, 4.5, 7.0])


def test_attribute_views_of_complex_parts_and_record_fields():
    """arr.real / arr.imag of complex arrays and arr.field of record arrays are strided views
    (as NumPy's and Numba's): loads, stores and atomics reach the array's own memory."""
    @cuda.jit
    def k(z, rec, out):
        i = cuda.grid(1)
        if i < z.size:
            cuda.atomic.add(z.real, i, 1.0)
            z.imag[i] = -z.imag[i]
            out[i] = rec.y[i] + rec.x[i]
            rec.x[i] = i * 10

    z = np.arange(4) + 1j * np.arange(4)
    rec = np.zeros(4, dtype=[("x", np.int32), ("y", np.float64)])
    rec["y"] = [0.5, 1.5, 2.5, 3.5]
    out = np.zeros(4)
    k[1, 4](z, rec, out)
    assert z.tolist() == [1 - 0j, 2 - 1j, 3 - 2j, 4 - 3j]
    assert out.tolist() == [0.5, 1.5, 2.5, 3.5]
    assert rec["x"].tolist() == [0, 10, 20, 30]


def test_a_nested_record_field_takes_only_a_record_of_its_layout():
    inner = np.dtype([("x", np.float32), ("y", np.float32)])
    outer = np.dtype([("a", inner), ("b", inner), ("c", np.dtype([("x", np.float64)]))])

    @cuda.jit
    def copy(recs):
        recs[0].a = recs[1].b

    recs = np.zeros(2, outer)
    recs[1]["b"] = (1.5, -2.0)
    copy[1, 1](recs)
    assert recs[0]["a"].tolist() == (1.5, -2.0)

    @cuda.jit
    def mismatched(recs):
        recs[0].a = recs[1].c

    with pytest.raises(simt.CompileError, match=r"cannot store Record\(x\[type=float64;offset=0\]"
                                                r";8;False\) into the Record\("):
        mismatched[1, 1](recs)
