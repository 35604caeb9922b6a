// Plain C++ loop nests doing the same math as the benchmark kernels in bench/kernels.py. Usage:
// baselines KERNEL N [THREADS], KERNEL one of vector_add (N elements), matmul
// (N x N matrices, naive i-j-k triple loop, no tiling), reduction (sequential float sum of N
// elements), and the barrier kernels' own algorithms fissioned by hand at their barriers (a loop
// over a block's threads per barrier-free stretch, the shared memory an array, a thread's locals
// that live across barriers arrays): tiled_matmul (16x16 tiles) and block_sum (a tree sum per
// block of 256 elements, writing the block partials). THREADS (default 1; vector_add,
// tiled_matmul and block_sum only) splits the elements, the rows of tiles or the blocks between
// that many std::threads, as simt's worker pool splits a grid's blocks: what the machine itself
// gains from a second core. Prints "SECONDS CHECKSUM": the best time of several repetitions and a
// checksum that bench/run.py compares with NumPy, so a loop the compiler optimised away cannot
// pass.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

// Inputs are a pure function of the index so that run.py can rebuild them with NumPy.
float input_value(std::size_t i, std::size_t period) {
  return static_cast<float>(i % period) / static_cast<float>(period);
}

// Elements [first, last).
[[gnu::noinline]] void vector_add(float *r, const float *x, const float *y, std::size_t first,
                                  std::size_t last) {
  for (std::size_t i = first; i < last; ++i)
    r[i] = x[i] + y[i];
}

[[gnu::noinline]] void matmul(float *c, const float *a, const float *b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (std::size_t k = 0; k < n; ++k)
        acc += a[i * n + k] * b[k * n + j];
      c[i * n + j] = acc;
    }
}

[[gnu::noinline]] float reduction(const float *x, std::size_t n) {
  float acc = 0.0f;
  for (std::size_t i = 0; i < n; ++i)
    acc += x[i];
  return acc;
}

constexpr std::size_t kTile = 16;      // bench/kernels.py's TILE
constexpr std::size_t kBlockSum = 256; // bench/kernels.py's TPB

// bench/kernels.py's matmul, block by block: per tile, one loop over the block's threads loads
// the shared tiles, the next accumulates; acc is each thread's local across the barriers. Rows
// of tiles [first, last).
[[gnu::noinline]] void tiled_matmul(float *c, const float *a, const float *b, std::size_t n,
                                    std::size_t first, std::size_t last) {
  float shared_a[kTile][kTile], shared_b[kTile][kTile], acc[kTile][kTile];
  for (std::size_t by = first; by < last; ++by)
    for (std::size_t bx = 0; bx < n / kTile; ++bx) {
      for (std::size_t ty = 0; ty < kTile; ++ty)
        for (std::size_t tx = 0; tx < kTile; ++tx)
          acc[ty][tx] = 0.0f;
      for (std::size_t t = 0; t < n / kTile; ++t) {
        for (std::size_t ty = 0; ty < kTile; ++ty)
          for (std::size_t tx = 0; tx < kTile; ++tx) {
            shared_a[ty][tx] = a[(by * kTile + ty) * n + tx + t * kTile];
            shared_b[ty][tx] = b[(ty + t * kTile) * n + bx * kTile + tx];
          }
        for (std::size_t ty = 0; ty < kTile; ++ty)
          for (std::size_t tx = 0; tx < kTile; ++tx)
            for (std::size_t k = 0; k < kTile; ++k)
              acc[ty][tx] += shared_a[ty][k] * shared_b[k][tx];
      }
      for (std::size_t ty = 0; ty < kTile; ++ty)
        for (std::size_t tx = 0; tx < kTile; ++tx)
          c[(by * kTile + ty) * n + bx * kTile + tx] = acc[ty][tx];
    }
}

// bench/kernels.py's block_sum, block by block: the load loop, then per stride one loop over the
// threads that add (tid < stride), then thread 0's store. Blocks [first, last).
[[gnu::noinline]] void block_sum(float *partials, const float *x, std::size_t n, std::size_t first,
                                 std::size_t last) {
  float workspace[kBlockSum];
  for (std::size_t block = first; block < last; ++block) {
    for (std::size_t tid = 0; tid < kBlockSum; ++tid) {
      std::size_t i = block * kBlockSum + tid;
      workspace[tid] = i < n ? x[i] : 0.0f;
    }
    for (std::size_t stride = kBlockSum / 2; stride > 0; stride /= 2)
      for (std::size_t tid = 0; tid < stride; ++tid)
        workspace[tid] += workspace[tid + stride];
    partials[block] = workspace[0];
  }
}

// Runs body(first, last) over [0, count) in `threads` equal parts, each on a thread of its own.
template <typename Body> void split(std::size_t count, unsigned threads, Body body) {
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t)
    workers.emplace_back(body, count * t / threads, count * (t + 1) / threads);
  body(0, count / threads);
  for (std::thread &worker : workers)
    worker.join();
}

// Runs `body` until at least 0.2 s have passed (and at least 3 times); returns the best time.
template <typename Body> double best_seconds(Body body) {
  using Clock = std::chrono::steady_clock;
  double best = 1e30;
  double total = 0.0;
  for (int rep = 0; rep < 3 || total < 0.2; ++rep) {
    auto start = Clock::now();
    body();
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    best = std::min(best, seconds);
    total += seconds;
  }
  return best;
}

double sum(const std::vector<float> &values) {
  double total = 0.0;
  for (float v : values)
    total += v;
  return total;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr,
                 "usage: %s vector_add|matmul|reduction|tiled_matmul|block_sum N [THREADS]\n",
                 argv[0]);
    return 2;
  }
  const char *kernel = argv[1];
  std::size_t n = std::strtoull(argv[2], nullptr, 10);
  const unsigned threads = argc == 4 ? unsigned(std::strtoul(argv[3], nullptr, 10)) : 1;
  if (threads < 1 || (threads > 1 && (std::strcmp(kernel, "matmul") == 0 ||
                                      std::strcmp(kernel, "reduction") == 0))) {
    std::fprintf(stderr, "%s runs on one thread\n", kernel);
    return 2;
  }
  double seconds = 0.0;
  double checksum = 0.0;
  if (std::strcmp(kernel, "vector_add") == 0) {
    std::vector<float> x(n), y(n), r(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = input_value(i, 1000);
      y[i] = input_value(i, 777);
    }
    seconds = best_seconds([&] {
      split(n, threads, [&](std::size_t first, std::size_t last) {
        vector_add(r.data(), x.data(), y.data(), first, last);
      });
    });
    checksum = sum(r);
  } else if (std::strcmp(kernel, "matmul") == 0) {
    std::vector<float> a(n * n), b(n * n), c(n * n);
    for (std::size_t i = 0; i < n * n; ++i) {
      a[i] = input_value(i, 1000);
      b[i] = input_value(i, 777);
    }
    seconds = best_seconds([&] { matmul(c.data(), a.data(), b.data(), n); });
    checksum = sum(c);
  } else if (std::strcmp(kernel, "tiled_matmul") == 0) {
    std::vector<float> a(n * n), b(n * n), c(n * n);
    for (std::size_t i = 0; i < n * n; ++i) {
      a[i] = input_value(i, 1000);
      b[i] = input_value(i, 777);
    }
    seconds = best_seconds([&] {
      split(n / kTile, threads, [&](std::size_t first, std::size_t last) {
        tiled_matmul(c.data(), a.data(), b.data(), n, first, last);
      });
    });
    checksum = sum(c);
  } else if (std::strcmp(kernel, "block_sum") == 0) {
    std::vector<float> x(n), partials((n + kBlockSum - 1) / kBlockSum);
    for (std::size_t i = 0; i < n; ++i)
      x[i] = input_value(i, 1000);
    seconds = best_seconds([&] {
      split(partials.size(), threads, [&](std::size_t first, std::size_t last) {
        block_sum(partials.data(), x.data(), n, first, last);
      });
    });
    checksum = sum(partials);
  } else if (std::strcmp(kernel, "reduction") == 0) {
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i)
      x[i] = input_value(i, 1000);
    float result = 0.0f;
    seconds = best_seconds([&] { result = reduction(x.data(), n); });
    checksum = result;
  } else {
    std::fprintf(stderr, "unknown kernel: %s\n", kernel);
    return 2;
  }
  std::printf("%.9g %.17g\n", seconds, checksum);
  return 0;
}
