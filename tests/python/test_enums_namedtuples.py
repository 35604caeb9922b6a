"""Enum members and namedtuples, typed as Numba types them: EnumMember / IntEnumMember (the
member's value, of its class) and NamedTuple (a tuple with field names). The differential case
enums_and_namedtuples compares results with Numba's simulator; these test what it cannot."""
import enum
import typing
from collections import namedtuple

import numpy as np
import pytest
from simt import CompileError, cuda


class Planet(enum.Enum):
    EARTH = (5.976e24, 6.37814e6)
    MARS = (6.421e23, 3.3972e6)


class Color(enum.Enum):
    red = 1
    green = 2


class Mixed(enum.Enum):
    one = 1
    half = 0.5


def test_enum_members_with_tuple_values_compare_and_give_their_value():
    @cuda.jit
    def k(p, out):
        out[0] = p == Planet.EARTH
        out[1] = p is Planet.MARS
        out[2] = p.value[1]
        out[3] = Planet.MARS.value[0]

    out = np.zeros(4)
    k[1, 1](Planet.MARS, out)
    assert out.tolist() == [0, 1, 3.3972e6, 6.421e23]


def test_classes_of_one_name_are_told_apart():
    def make():
        class Color(enum.Enum):
            red = 1
        return Color

    first, second = make(), make()

    @cuda.jit
    def k(a, b, out):
        out[0] = a == b
        out[1] = a is b

    out = np.zeros(2, np.int64)
    k[1, 1](first.red, first.red, out)
    assert out.tolist() == [1, 1]
    k[1, 1](first.red, second.red, out)
    assert out.tolist() == [0, 0]


def test_enum_members_are_not_numbers():
    @cuda.jit
    def k(out):
        out[0] = Color.red + 1

    with pytest.raises(CompileError, match=r"unsupported operand types for \+: EnumMember\(Color"):
        k[1, 1](np.zeros(1))

    @cuda.jit
    def store(out):
        out[0] = Color.green

    with pytest.raises(CompileError, match=r"cannot convert EnumMember\(Color#\d+, int64\) to "
                                           r"float64"):
        store[1, 1](np.zeros(1))


def test_heterogeneous_enums_cannot_be_arguments():
    @cuda.jit
    def k(m, out):
        out[0] = m == Mixed.one

    with pytest.raises(TypeError, match="heterogeneous enum Mixed"):
        k[1, 1](Mixed.one, np.zeros(1))


def test_namedtuple_fields_by_name_and_index_and_unknown_fields():
    Point = namedtuple("Point", ("x", "y"))

    @cuda.jit
    def k(p, out):
        out[0] = p.x * 10 + p.y
        out[1] = p[1]
        x, y = p
        out[2] = x - y

    out = np.zeros(3)
    k[1, 1](Point(3, 4.5), out)
    assert out.tolist() == [34.5, 4.5, -1.5]
    assert len(k.overloads) == 1
    k[1, 1](Point(3, 4), out)  # other element types: another overload
    assert len(k.overloads) == 2

    @cuda.jit
    def bad(p, out):
        out[0] = p.z

    with pytest.raises(CompileError, match="unknown attribute 'z' of namedtuple Point"):
        bad[1, 1](Point(1, 2), np.zeros(1))


Pair = namedtuple("Pair", ["x", "y"])


class Box(typing.NamedTuple):
    lo: float
    hi: float = 10.0


def test_namedtuples_made_in_kernels_and_device_functions():
    @cuda.jit(device=True)
    def make(a, b):
        return Pair(a, b)

    @cuda.jit(device=True)
    def width(box):
        return box.hi - box.lo

    @cuda.jit
    def kernel(out, given):
        made = make(1.5, 2.5)
        out[0] = made.x + made.y * 10
        swapped = Pair(y=3, x=4)
        out[1] = swapped[0] * 100 + swapped.y
        out[2] = width(Box(2.0)) + width(Box(1.0, hi=4.0)) * 100  # a default, a keyword
        doubled = Pair(given.x * 2, given.y)
        out[3] = doubled.x + doubled.y
        out[4] = make(1, 2) == Pair(1, 2)

    out = np.zeros(5)
    kernel[1, 1](out, Pair(1.0, 5.0))
    assert out.tolist() == [26.5, 403.0, 308.0, 7.0, 1.0]


def test_namedtuple_calls_are_checked_as_python_checks_them():
    @cuda.jit
    def missing(out):
        out[0] = Pair(1).x

    with pytest.raises(CompileError, match="Pair expects 2 arguments, got 1"):
        missing[1, 1](np.zeros(1))

    @cuda.jit
    def unknown(out):
        out[0] = Pair(1, z=2).x

    with pytest.raises(CompileError, match="unexpected keyword argument 'z'"):
        unknown[1, 1](np.zeros(1))
