"""A matrix profile (the z-normalized distance from every subsequence of a time series to its
nearest non-trivial neighbour), in the style of stumpy's GPU implementation: sliding means and
standard deviations computed once, a kernel in which each thread scans one subsequence's
distance profile with an exclusion zone around itself, checked against NumPy brute force."""
import math

import numpy as np
from numba import cuda


@cuda.jit(device=True)
def znorm_distance(T, i, j, m, mean, std):
    dot = 0.0
    for k in range(m):
        dot += T[i + k] * T[j + k]
    rho = (dot - m * mean[i] * mean[j]) / (m * std[i] * std[j])
    return math.sqrt(max(2.0 * m * (1.0 - rho), 0.0))


@cuda.jit
def matrix_profile_kernel(T, m, mean, std, exclusion, profile, index):
    n = profile.shape[0]
    start = cuda.grid(1)
    for i in range(start, n, cuda.gridsize(1)):
        best = np.inf
        best_j = -1
        for j in range(n):
            if abs(i - j) <= exclusion:
                continue
            d = znorm_distance(T, i, j, m, mean, std)
            if d < best:
                best = d
                best_j = j
        profile[i] = best
        index[i] = best_j


def main():
    rng = np.random.default_rng(3)
    T = np.cumsum(rng.standard_normal(300))
    T[100:120] = T[200:220] + 5.0  # a planted motif: two windows with the same shape
    m = 20
    windows = np.lib.stride_tricks.sliding_window_view(T, m)
    mean, std = windows.mean(axis=1), windows.std(axis=1)
    n = len(windows)
    exclusion = int(math.ceil(m / 4))
    profile = cuda.device_array(n)
    index = cuda.device_array(n, dtype=np.int64)
    matrix_profile_kernel[4, 64](cuda.to_device(T), m, cuda.to_device(mean),
                                 cuda.to_device(std), exclusion, profile, index)
    profile, index = profile.copy_to_host(), index.copy_to_host()

    z = (windows - mean[:, None]) / std[:, None]
    distances = np.sqrt(np.maximum(((z[:, None, :] - z[None, :, :]) ** 2).sum(-1), 0.0))
    for i in range(n):
        distances[i, max(0, i - exclusion):i + exclusion + 1] = np.inf
    np.testing.assert_allclose(profile, distances.min(axis=1), rtol=1e-9, atol=1e-9)
    motif = int(np.argmin(profile))
    assert {motif, int(index[motif])} == {100, 200}, (motif, index[motif])
    print("motif at %d and %d, distance %.3g" % (motif, index[motif], profile[motif]))


if __name__ == "__main__":
    main()
