"""Soft-DTW, the differentiable dynamic time warping loss, computed on the GPU the way public
PyTorch/Numba implementations do (one block per pair of sequences, one thread per row, the
cost matrix filled along anti-diagonals with a barrier between them), checked against a plain
Python version of the same recurrence."""
import math

import numpy as np
from numba import cuda


@cuda.jit
def soft_dtw_forward(D, gamma, max_i, max_j, n_passes, R):
    pair = cuda.blockIdx.x
    row = cuda.threadIdx.x
    inv_gamma = 1.0 / gamma
    for p in range(n_passes):
        col = max(0, min(p - row, max_j - 1))
        i, j = row + 1, col + 1
        if row + col == p and row < max_i and col < max_j:
            r0 = -R[pair, i - 1, j - 1] * inv_gamma
            r1 = -R[pair, i - 1, j] * inv_gamma
            r2 = -R[pair, i, j - 1] * inv_gamma
            rmax = max(max(r0, r1), r2)
            rsum = math.exp(r0 - rmax) + math.exp(r1 - rmax) + math.exp(r2 - rmax)
            R[pair, i, j] = D[pair, i - 1, j - 1] - gamma * (math.log(rsum) + rmax)
        cuda.syncthreads()


def soft_dtw_cpu(D, gamma):
    n, m = D.shape
    R = np.full((n + 1, m + 1), np.inf)
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            r = -np.array([R[i - 1, j - 1], R[i - 1, j], R[i, j - 1]]) / gamma
            rmax = r.max()
            R[i, j] = D[i - 1, j - 1] - gamma * (np.log(np.exp(r - rmax).sum()) + rmax)
    return R[n, m]


def main():
    rng = np.random.default_rng(7)
    pairs, n, m, gamma = 4, 24, 20, 0.1
    x = rng.standard_normal((pairs, n, 2))
    y = rng.standard_normal((pairs, m, 2))
    D = ((x[:, :, None, :] - y[:, None, :, :]) ** 2).sum(-1)  # squared Euclidean costs
    R = np.full((pairs, n + 2, m + 2), np.inf)
    R[:, 0, 0] = 0.0
    d_R = cuda.to_device(R)
    soft_dtw_forward[pairs, n](cuda.to_device(D), gamma, n, m, n + m - 1, d_R)
    losses = d_R.copy_to_host()[:, n, m]
    expected = np.array([soft_dtw_cpu(D[k], gamma) for k in range(pairs)])
    np.testing.assert_allclose(losses, expected, rtol=1e-12)
    print("soft-DTW losses:", np.round(losses, 6))


if __name__ == "__main__":
    main()
