"""Seed talks: type inference (a: float32, b: float64 -> c: float64), math in kernels, and a
device function like the haversine distance UDF of the 2024 talk."""
import math

import numpy as np
from numba import cuda, float32


@cuda.jit(device=True)
def f(a, b):
    # c:= float64
    c = a + b
    # return := float64
    return c


@cuda.jit(device=True)
def haversine_dist(lat1, lon1, target_latitude, target_longitude):
    x_1 = lat1
    y_1 = lon1
    x_2 = target_latitude
    y_2 = target_longitude
    x_1 = math.pi / 180 * x_1
    y_1 = math.pi / 180 * y_1
    x_2 = math.pi / 180 * x_2
    y_2 = math.pi / 180 * y_2
    dlon = y_2 - y_1
    dlat = x_2 - x_1
    a = (
        math.sin(dlat / 2) ** 2
        + math.cos(x_1) * math.cos(x_2) * math.sin(dlon / 2) ** 2
    )
    c = 2 * math.asin(math.sqrt(a))
    r = 6371  # Radius of earth in kilometers
    return c * r


@cuda.jit
def apply(out, a, b, lat, lon):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = f(a[i], b[i])
        out[i, 1] = haversine_dist(lat[i], lon[i], 51.5, -0.12)


sig = (float32[::1],)


@cuda.jit(sig, debug=True, opt=0)
def cos_in_place(x):
    y = x[0]
    y = math.cos(y)
    x[0] += y


@cuda.jit(sig)
def f_fast(x):
    y = x[0]
    y = math.cos(y)
    y = math.sqrt(y)
    x[0] = y * 1.2


def haversine_host(lat1, lon1, lat2, lon2):
    x_1, y_1, x_2, y_2 = (math.pi / 180 * v for v in (lat1, lon1, lat2, lon2))
    a = math.sin((x_2 - x_1) / 2) ** 2 + math.cos(x_1) * math.cos(x_2) * math.sin((y_2 - y_1) / 2) ** 2
    return 2 * math.asin(math.sqrt(a)) * 6371


def main():
    n = 8
    a = np.linspace(0, 1, n).astype(np.float32)
    b = np.linspace(1, 2, n)
    lat = np.linspace(40, 60, n)
    lon = np.linspace(-10, 10, n)
    out = np.zeros((n, 2))
    apply[1, 32](out, a, b, lat, lon)
    np.testing.assert_allclose(out[:, 0], a.astype(np.float64) + b)
    expected = [haversine_host(lat[i], lon[i], 51.5, -0.12) for i in range(n)]
    np.testing.assert_allclose(out[:, 1], expected, rtol=1e-12)
    print("f(float32, float64) and haversine_dist: ok, distances (km):", np.round(out[:, 1], 1))

    x = np.ones(1, dtype=np.float32)
    cos_in_place[1, 1](x)
    assert np.isclose(x[0], 1 + np.cos(np.float32(1)))
    x_fast = np.ones(1, dtype=np.float32)
    f_fast[1, 1](x_fast)
    assert np.isclose(x_fast[0], np.float32(np.sqrt(np.cos(np.float32(1)))) * 1.2, rtol=1e-6)
    print("cos_in_place and f_fast: ok,", x[0], x_fast[0])


if __name__ == "__main__":
    main()
