// Plain single-threaded C++ loop nests doing the same math as the benchmark kernels in
// bench/kernels.py. Usage: baselines KERNEL N, KERNEL one of vector_add (N elements), matmul
// (N x N matrices, naive i-j-k triple loop, no tiling) and reduction (sequential float sum of N
// elements). Prints "SECONDS CHECKSUM": the best time of several repetitions and a checksum that
// bench/run.py compares with NumPy, so a loop the compiler optimised away cannot pass.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// Inputs are a pure function of the index so that run.py can rebuild them with NumPy.
float input_value(std::size_t i, std::size_t period) {
  return static_cast<float>(i % period) / static_cast<float>(period);
}

[[gnu::noinline]] void vector_add(float *r, const float *x, const float *y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
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
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s vector_add|matmul|reduction N\n", argv[0]);
    return 2;
  }
  const char *kernel = argv[1];
  std::size_t n = std::strtoull(argv[2], nullptr, 10);
  double seconds = 0.0;
  double checksum = 0.0;
  if (std::strcmp(kernel, "vector_add") == 0) {
    std::vector<float> x(n), y(n), r(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = input_value(i, 1000);
      y[i] = input_value(i, 777);
    }
    seconds = best_seconds([&] { vector_add(r.data(), x.data(), y.data(), n); });
    checksum = sum(r);
  } else if (std::strcmp(kernel, "matmul") == 0) {
    std::vector<float> a(n * n), b(n * n), c(n * n);
    for (std::size_t i = 0; i < n * n; ++i) {
      a[i] = input_value(i, 1000);
      b[i] = input_value(i, 777);
    }
    seconds = best_seconds([&] { matmul(c.data(), a.data(), b.data(), n); });
    checksum = sum(c);
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
