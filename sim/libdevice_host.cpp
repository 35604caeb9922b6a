// The host's libdevice (sim/libdevice_host.h): CUDA's semantics for each libdevice function.
//
// Exact, bit for bit what the GPU computes:
// - the integer functions (abs, min/max and their unsigned and 64-bit forms, popc, clz, ffs, brev,
//   byte_perm, hadd/rhadd/uhadd/urhadd, sad/usad, mul24/umul24, mulhi/umulhi/mul64hi/umul64hi),
//   the bit reinterpretations (float_as_int, double2hiint, hiloint2double, ...);
// - the IEEE operations with a named rounding mode (fadd_rz, fmul_ru, fdiv_rd, fmaf_rz, fma_ru,
//   frcp_rd, drcp_ru, fsqrt_rz, dsqrt_rd, double2float_ru, int2float_rd, ll2double_rz, ...): the
//   host's own IEEE operation under that rounding mode (<cfenv>, restored afterwards; this file is
//   compiled with -frounding-math);
// - the conversions to integers, rounded as named and saturated to the type's range as PTX's cvt
//   saturates, NaN becoming 0 (32 bits) or 0x8000000000000000 (64 bits); llrint and llround
//   alike;
// - the IEEE functions the C library computes exactly: floor, ceil, trunc, round, rint,
//   nearbyint, fabs, copysign, fmod, remainder, remquo (the quotient's three low bits, signed),
//   frexp, modf, ldexp, scalbn, logb, ilogb (INT_MIN for 0 and NaN, INT_MAX for infinities),
//   nextafter, fdim, fmin, fmax, fma, sqrt; the predicates (isnan, isinf, isfinite, signbit:
//   1 or 0); saturatef (NaN is 0); float2half_rn and half2float; frsqrt_rn, correctly rounded as
//   on the GPU.
// Approximate (within CUDA's documented ulp bounds in practice, not bit for bit): the
// transcendental functions from the C library (glibc; a float32 function evaluated in float64 and
// rounded once), and erfinv, erfcinv, normcdfinv, erfcx, normcdf, sinpi, cospi, rsqrt and rcbrt,
// computed here in long double.
// The fast_ functions (fast_sinf, fast_expf, fast_powf, fast_fdividef, ...) are the precise ones,
// more accurate than the GPU's approximate instructions; fast_fdividef keeps __fdividef's
// documented result for divisors beyond 2**126 (0, or NaN for an infinite dividend).
#include "sim/libdevice_host.h"

#include "ir/libdevice.h"
#include "ir/types.h"

#include <math.h> // j0, y0, jn, lgamma_r, exp10: POSIX and GNU, beyond <cmath>

#include <bit>
#include <cfenv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

using i32 = int32_t;
using i64 = int64_t;
using u32 = uint32_t;
using u64 = uint64_t;

static_assert(std::numeric_limits<long double>::digits >= 64 &&
                  std::numeric_limits<long double>::max_exponent >= 16384,
              "the host's libdevice needs a long double of at least x87's precision and range");

namespace {

constexpr long double kPi = 3.141592653589793238462643383279502884L;
constexpr long double kSqrtPi = 1.772453850905516027298167483341145183L;
constexpr long double kSqrt2 = 1.414213562373095048801688724209698079L;

// ---- rounding modes

// `x` as read from memory: the compiler cannot compute with it before the read.
template <class T> T opaque(T x) {
  volatile T v = x;
  return v;
}

// op(args...) evaluated under the rounding mode `mode` (FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD,
// FE_DOWNWARD); the volatile accesses keep the operation between the mode switches.
template <class Op, class... Args> auto rounded(int mode, Op op, Args... args) {
  using Result = decltype(op(args...));
  const int saved = std::fegetround();
  std::fesetround(mode);
  volatile Result result = op(opaque(args)...);
  std::fesetround(saved);
  return Result(result);
}

// ---- conversions to integers

// x rounded to an integer as `mode` says and converted as PTX's cvt converts: saturated to Int's
// range; NaN is 0 for 32-bit integers and 0x8000000000000000 for 64-bit ones.
template <class Int> Int to_integer(double x, int mode) {
  if (std::isnan(x))
    return sizeof(Int) == 8 ? Int(u64(1) << 63) : Int(0);
  // to nearest, ties to even: x less its exact remainder, whatever the current rounding mode
  double r = mode == FE_TOWARDZERO ? std::trunc(x)
             : mode == FE_UPWARD   ? std::ceil(x)
             : mode == FE_DOWNWARD ? std::floor(x)
             : std::isinf(x)       ? x
                                   : x - std::remainder(x, 1.0);
  constexpr double lowest = double(std::numeric_limits<Int>::min()); // 0 or -2**k
  const double beyond = std::ldexp(1.0, std::numeric_limits<Int>::digits);
  if (r <= lowest)
    return std::numeric_limits<Int>::min();
  if (r >= beyond)
    return std::numeric_limits<Int>::max();
  return Int(r);
}

template <class F, class Int> F to_float(Int x, int mode) {
  return rounded(
      mode, [](Int v) { return static_cast<F>(v); }, x);
}

// ---- float16

i32 float_to_half_bits(float f) {
  if (std::isnan(f))
    return 0x7fff; // the GPU's canonical NaN
  return int16_t(simt::float16_bits(simt::round_to_float16(double(f))));
}

float half_bits_to_float(i32 h) {
  const u32 bits = u32(h) & 0xffff;
  const u32 sign = (bits >> 15) << 31, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  if (exponent == 0x1f) // infinity, or NaN keeping its payload (quietened)
    return std::bit_cast<float>(sign | 0x7f800000 | (mantissa << 13) | (mantissa ? 0x400000 : 0));
  float magnitude = exponent == 0 ? std::ldexp(float(mantissa), -24)
                                  : std::ldexp(float(mantissa | 0x400), int(exponent) - 25);
  return sign ? -magnitude : magnitude;
}

// ---- special functions in long double

// sin(pi x) and cos(pi x), the argument reduced exactly first (so integers and half-integers give
// exact zeros and ones, and huge arguments stay meaningful).
double sinpi(double x) {
  if (!std::isfinite(x))
    return x - x;               // NaN
  double r = std::fmod(x, 2.0); // exact, (-2, 2)
  if (r > 1)
    r -= 2; // exact
  else if (r < -1)
    r += 2;
  if (r > 0.5) // sin(pi r) = sin(pi (1 - r)), exactly folded into [-0.5, 0.5]
    r = 1 - r;
  else if (r < -0.5)
    r = -1 - r;
  if (std::fabs(r) <= 0.25)
    return double(std::sin(kPi * r));
  return std::copysign(double(std::cos(kPi * (0.5L - std::fabs(r)))), r);
}

double cospi(double x) {
  if (!std::isfinite(x))
    return x - x;
  double r = std::fabs(std::fmod(x, 2.0)); // [0, 2)
  if (r > 1)
    r = 2 - r; // exact, [0, 1]
  const bool negate = r > 0.5;
  if (negate) // cos(pi r) = -cos(pi (1 - r))
    r = 1 - r;
  long double v = r <= 0.25 ? std::cos(kPi * r) : std::sin(kPi * (0.5L - r));
  return double(negate ? -v : v);
}

// exp(x**2) * erfc(x), without overflow or underflow.
long double erfcx_l(long double x) {
  if (std::isnan(x))
    return x;
  if (x < 0) // erfcx(x) = 2 exp(x**2) - erfcx(-x)
    return x < -110 ? HUGE_VALL : 2 * std::exp(x * x) - erfcx_l(-x);
  if (x < 50)
    return std::exp(x * x) * std::erfc(x);
  // the asymptotic series 1/(x sqrt(pi)) (1 - 1/(2x^2) + 3/(4x^4) - ...), to 1e-19 from 50 on
  const long double t = 1 / (2 * x * x);
  long double sum = 1, term = 1;
  for (int k = 1; k <= 6; ++k) {
    term *= -(2 * k - 1) * t;
    sum += term;
  }
  return sum / (x * kSqrtPi);
}

// The root of erf(x) = y for |y| <= 0.5, by Newton's method from the start of erfinv's series
// (z + z^3/3 + 7z^5/30 with z = y sqrt(pi)/2: within 1e-4 of the root).
long double erfinv_small(long double y) {
  const long double z = y * kSqrtPi / 2, z2 = z * z;
  long double x = z * (1 + z2 * (1.0L / 3 + z2 * 7 / 30));
  for (int i = 0; i < 20; ++i) {
    long double step = (std::erf(x) - y) / (2 / kSqrtPi * std::exp(-x * x));
    x -= step;
    if (std::fabs(step) <= std::fabs(x) * 1e-17L) // converging quadratically: done
      break;
  }
  return x;
}

// The root of erfc(x) = c for 0 < c <= 0.5, by Newton's method on log(erfc(x)), a concave
// decreasing function, so that after the first step the steps decrease monotonically to the root.
// The start solves erfc's asymptotic form exp(-x**2) / (x sqrt(pi)) = c once.
long double erfcinv_tail(long double c) {
  const long double log_c = std::log(c), t = std::sqrt(-log_c);
  const long double square = -log_c - std::log(t * kSqrtPi);
  long double x = square > 0 ? std::sqrt(square) : t;
  for (int i = 0; i < 100; ++i) {
    long double slope = -2 / kSqrtPi * std::exp(-x * x) / std::erfc(x);
    long double step = (std::log(std::erfc(x)) - log_c) / slope;
    x -= step;
    if (std::fabs(step) <= x * 1e-17L)
      break;
  }
  return x;
}

long double erfcinv_l(long double c) {
  if (std::isnan(c) || c < 0 || c > 2)
    return std::numeric_limits<long double>::quiet_NaN();
  if (c == 0)
    return HUGE_VALL;
  if (c == 2)
    return -HUGE_VALL;
  if (c > 1.5L)
    return -erfcinv_l(2 - c); // exact
  if (c >= 0.5L)
    return erfinv_small(1 - c); // exact
  return erfcinv_tail(c);
}

long double erfinv_l(long double y) {
  if (std::isnan(y) || std::fabs(y) > 1)
    return std::numeric_limits<long double>::quiet_NaN();
  if (std::fabs(y) == 1)
    return std::copysign(HUGE_VALL, y);
  if (std::fabs(y) <= 0.5L)
    return erfinv_small(y);
  return std::copysign(erfcinv_tail(1 - std::fabs(y)), y); // 1 - |y| is exact
}

// ---- the correctly rounded reciprocal square root of a float

float rsqrt_rn(float x) {
  if (!(x > 0) || std::isinf(x)) // NaN, negative, zero (infinity of its sign), infinity (+0)
    return 1.0f / std::sqrt(x);
  const float r = float(1.0 / std::sqrt(double(x))); // within a float ulp of the result
  // The result is the float nearest 1/sqrt(x); a midpoint m between two floats has 25 bits, so
  // m*m is exact in double and fma(m*m, x, -1) has the sign of m*m*x - 1: whether 1/sqrt(x) lies
  // below m. No 1/sqrt(x) is a midpoint.
  auto below = [&](float a, float b) { // 1/sqrt(x) < (a + b) / 2
    double m = (double(a) + double(b)) / 2;
    return std::fma(m * m, double(x), -1.0) > 0;
  };
  const float up = std::nextafter(r, HUGE_VALF), down = std::nextafter(r, 0.0f);
  if (!below(r, up))
    return up;
  if (below(down, r))
    return down;
  return r;
}

i32 bits_of(float x) { return std::bit_cast<i32>(x); }

} // namespace

#define SIMT_EXPORT extern "C"

// ---- integers

SIMT_EXPORT i32 simt_libdevice_abs(i32 x) { return i32(x < 0 ? 0u - u32(x) : u32(x)); }
SIMT_EXPORT i64 simt_libdevice_llabs(i64 x) { return i64(x < 0 ? 0u - u64(x) : u64(x)); }
SIMT_EXPORT i32 simt_libdevice_min(i32 x, i32 y) { return x < y ? x : y; }
SIMT_EXPORT i32 simt_libdevice_max(i32 x, i32 y) { return x > y ? x : y; }
SIMT_EXPORT i32 simt_libdevice_umin(i32 x, i32 y) { return u32(x) < u32(y) ? x : y; }
SIMT_EXPORT i32 simt_libdevice_umax(i32 x, i32 y) { return u32(x) > u32(y) ? x : y; }
SIMT_EXPORT i64 simt_libdevice_llmin(i64 x, i64 y) { return x < y ? x : y; }
SIMT_EXPORT i64 simt_libdevice_llmax(i64 x, i64 y) { return x > y ? x : y; }
SIMT_EXPORT i64 simt_libdevice_ullmin(i64 x, i64 y) { return u64(x) < u64(y) ? x : y; }
SIMT_EXPORT i64 simt_libdevice_ullmax(i64 x, i64 y) { return u64(x) > u64(y) ? x : y; }

SIMT_EXPORT i32 simt_libdevice_popc(i32 x) { return std::popcount(u32(x)); }
SIMT_EXPORT i32 simt_libdevice_popcll(i64 x) { return std::popcount(u64(x)); }
SIMT_EXPORT i32 simt_libdevice_clz(i32 x) { return std::countl_zero(u32(x)); }
SIMT_EXPORT i32 simt_libdevice_clzll(i64 x) { return std::countl_zero(u64(x)); }
// 1 + the index of the lowest set bit, 0 for 0
SIMT_EXPORT i32 simt_libdevice_ffs(i32 x) { return x ? std::countr_zero(u32(x)) + 1 : 0; }
SIMT_EXPORT i32 simt_libdevice_ffsll(i64 x) { return x ? std::countr_zero(u64(x)) + 1 : 0; }

SIMT_EXPORT i32 simt_libdevice_brev(i32 x) {
  u32 v = u32(x), r = 0;
  for (int i = 0; i < 32; ++i, v >>= 1)
    r = (r << 1) | (v & 1);
  return i32(r);
}

SIMT_EXPORT i64 simt_libdevice_brevll(i64 x) {
  u64 v = u64(x), r = 0;
  for (int i = 0; i < 64; ++i, v >>= 1)
    r = (r << 1) | (v & 1);
  return i64(r);
}

// Byte i of the result is byte (s >> 4i) & 7 of the eight bytes y:x (PTX's prmt, default mode).
SIMT_EXPORT i32 simt_libdevice_byte_perm(i32 x, i32 y, i32 s) {
  const u64 bytes = (u64(u32(y)) << 32) | u32(x);
  u32 r = 0;
  for (int i = 0; i < 4; ++i)
    r |= u32((bytes >> (8 * ((u32(s) >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return i32(r);
}

// Halving additions without overflow: floor((x + y) / 2) and, rounded, floor((x + y + 1) / 2).
SIMT_EXPORT i32 simt_libdevice_hadd(i32 x, i32 y) { return i32((i64(x) + y) >> 1); }
SIMT_EXPORT i32 simt_libdevice_rhadd(i32 x, i32 y) { return i32((i64(x) + y + 1) >> 1); }
SIMT_EXPORT i32 simt_libdevice_uhadd(i32 x, i32 y) { return i32((u64(u32(x)) + u32(y)) >> 1); }
SIMT_EXPORT i32 simt_libdevice_urhadd(i32 x, i32 y) { return i32((u64(u32(x)) + u32(y) + 1) >> 1); }

// |x - y| + z, wrapping as PTX's sad does.
SIMT_EXPORT i32 simt_libdevice_sad(i32 x, i32 y, i32 z) {
  u32 difference = x < y ? u32(y) - u32(x) : u32(x) - u32(y);
  return i32(difference + u32(z));
}
SIMT_EXPORT i32 simt_libdevice_usad(i32 x, i32 y, i32 z) {
  u32 a = u32(x), b = u32(y);
  return i32((a < b ? b - a : a - b) + u32(z));
}

// The low 32 bits of the product of the operands' low 24 bits (sign-extended for mul24).
SIMT_EXPORT i32 simt_libdevice_mul24(i32 x, i32 y) {
  i64 a = i32(u32(x) << 8) >> 8, b = i32(u32(y) << 8) >> 8;
  return i32(u32(u64(a * b)));
}
SIMT_EXPORT i32 simt_libdevice_umul24(i32 x, i32 y) {
  return i32(u32((u32(x) & 0xffffff) * u64(u32(y) & 0xffffff)));
}

// The high halves of full products.
SIMT_EXPORT i32 simt_libdevice_mulhi(i32 x, i32 y) { return i32((i64(x) * i64(y)) >> 32); }
SIMT_EXPORT i32 simt_libdevice_umulhi(i32 x, i32 y) {
  return i32(u32((u64(u32(x)) * u64(u32(y))) >> 32));
}
SIMT_EXPORT i64 simt_libdevice_mul64hi(i64 x, i64 y) {
  return i64((__int128(x) * __int128(y)) >> 64);
}
SIMT_EXPORT i64 simt_libdevice_umul64hi(i64 x, i64 y) {
  using u128 = unsigned __int128;
  return i64(u64((u128(u64(x)) * u128(u64(y))) >> 64));
}

// ---- bits

SIMT_EXPORT i32 simt_libdevice_float_as_int(float x) { return bits_of(x); }
SIMT_EXPORT float simt_libdevice_int_as_float(i32 x) { return std::bit_cast<float>(x); }
SIMT_EXPORT i64 simt_libdevice_double_as_longlong(double x) { return std::bit_cast<i64>(x); }
SIMT_EXPORT double simt_libdevice_longlong_as_double(i64 x) { return std::bit_cast<double>(x); }
SIMT_EXPORT i32 simt_libdevice_double2hiint(double x) {
  return i32(u32(std::bit_cast<u64>(x) >> 32));
}
SIMT_EXPORT i32 simt_libdevice_double2loint(double x) { return i32(u32(std::bit_cast<u64>(x))); }
SIMT_EXPORT double simt_libdevice_hiloint2double(i32 hi, i32 lo) {
  return std::bit_cast<double>((u64(u32(hi)) << 32) | u32(lo));
}

// ---- predicates

SIMT_EXPORT i32 simt_libdevice_isnanf(float x) { return std::isnan(x); }
SIMT_EXPORT i32 simt_libdevice_isnand(double x) { return std::isnan(x); }
SIMT_EXPORT i32 simt_libdevice_isinff(float x) { return std::isinf(x); }
SIMT_EXPORT i32 simt_libdevice_isinfd(double x) { return std::isinf(x); }
SIMT_EXPORT i32 simt_libdevice_finitef(float x) { return std::isfinite(x); }
SIMT_EXPORT i32 simt_libdevice_isfinited(double x) { return std::isfinite(x); }
SIMT_EXPORT i32 simt_libdevice_signbitf(float x) { return std::signbit(x); }
SIMT_EXPORT i32 simt_libdevice_signbitd(double x) { return std::signbit(x); }

// ---- IEEE operations with a named rounding mode

#define SIMT_ROUNDING_MODES(X)                                                                     \
  X(rn, FE_TONEAREST) X(rz, FE_TOWARDZERO) X(ru, FE_UPWARD) X(rd, FE_DOWNWARD)

#define SIMT_ROUNDED_FAMILIES(Suffix, Mode)                                                        \
  SIMT_EXPORT float simt_libdevice_fadd_##Suffix(float x, float y) {                               \
    return rounded(                                                                                \
        Mode, [](float a, float b) { return a + b; }, x, y);                                       \
  }                                                                                                \
  SIMT_EXPORT float simt_libdevice_fsub_##Suffix(float x, float y) {                               \
    return rounded(                                                                                \
        Mode, [](float a, float b) { return a - b; }, x, y);                                       \
  }                                                                                                \
  SIMT_EXPORT float simt_libdevice_fmul_##Suffix(float x, float y) {                               \
    return rounded(                                                                                \
        Mode, [](float a, float b) { return a * b; }, x, y);                                       \
  }                                                                                                \
  SIMT_EXPORT float simt_libdevice_fdiv_##Suffix(float x, float y) {                               \
    return rounded(                                                                                \
        Mode, [](float a, float b) { return a / b; }, x, y);                                       \
  }                                                                                                \
  SIMT_EXPORT double simt_libdevice_dadd_##Suffix(double x, double y) {                            \
    return rounded(                                                                                \
        Mode, [](double a, double b) { return a + b; }, x, y);                                     \
  }                                                                                                \
  SIMT_EXPORT double simt_libdevice_dmul_##Suffix(double x, double y) {                            \
    return rounded(                                                                                \
        Mode, [](double a, double b) { return a * b; }, x, y);                                     \
  }                                                                                                \
  SIMT_EXPORT double simt_libdevice_ddiv_##Suffix(double x, double y) {                            \
    return rounded(                                                                                \
        Mode, [](double a, double b) { return a / b; }, x, y);                                     \
  }                                                                                                \
  SIMT_EXPORT float simt_libdevice_fmaf_##Suffix(float x, float y, float z) {                      \
    return rounded(                                                                                \
        Mode, [](float a, float b, float c) { return std::fma(a, b, c); }, x, y, z);               \
  }                                                                                                \
  SIMT_EXPORT double simt_libdevice_fma_##Suffix(double x, double y, double z) {                   \
    return rounded(                                                                                \
        Mode, [](double a, double b, double c) { return std::fma(a, b, c); }, x, y, z);            \
  }                                                                                                \
  SIMT_EXPORT float simt_libdevice_frcp_##Suffix(float x) {                                        \
    return rounded(                                                                                \
        Mode, [](float a) { return 1.0f / a; }, x);                                                \
  }                                                                                                \
  SIMT_EXPORT double simt_libdevice_drcp_##Suffix(double x) {                                      \
    return rounded(                                                                                \
        Mode, [](double a) { return 1.0 / a; }, x);                                                \
  }                                                                                                \
  SIMT_EXPORT float simt_libdevice_fsqrt_##Suffix(float x) {                                       \
    return rounded(                                                                                \
        Mode, [](float a) { return std::sqrt(a); }, x);                                            \
  }                                                                                                \
  SIMT_EXPORT double simt_libdevice_dsqrt_##Suffix(double x) {                                     \
    return rounded(                                                                                \
        Mode, [](double a) { return std::sqrt(a); }, x);                                           \
  }                                                                                                \
  SIMT_EXPORT float simt_libdevice_double2float_##Suffix(double x) {                               \
    return rounded(                                                                                \
        Mode, [](double a) { return float(a); }, x);                                               \
  }                                                                                                \
  SIMT_EXPORT float simt_libdevice_int2float_##Suffix(i32 x) { return to_float<float>(x, Mode); }  \
  SIMT_EXPORT float simt_libdevice_uint2float_##Suffix(i32 x) {                                    \
    return to_float<float>(u32(x), Mode);                                                          \
  }                                                                                                \
  SIMT_EXPORT float simt_libdevice_ll2float_##Suffix(i64 x) { return to_float<float>(x, Mode); }   \
  SIMT_EXPORT float simt_libdevice_ull2float_##Suffix(i64 x) {                                     \
    return to_float<float>(u64(x), Mode);                                                          \
  }                                                                                                \
  SIMT_EXPORT double simt_libdevice_ll2double_##Suffix(i64 x) {                                    \
    return to_float<double>(x, Mode);                                                              \
  }                                                                                                \
  SIMT_EXPORT double simt_libdevice_ull2double_##Suffix(i64 x) {                                   \
    return to_float<double>(u64(x), Mode);                                                         \
  }                                                                                                \
  SIMT_EXPORT i32 simt_libdevice_float2int_##Suffix(float x) { return to_integer<i32>(x, Mode); }  \
  SIMT_EXPORT i32 simt_libdevice_float2uint_##Suffix(float x) {                                    \
    return i32(to_integer<u32>(x, Mode));                                                          \
  }                                                                                                \
  SIMT_EXPORT i64 simt_libdevice_float2ll_##Suffix(float x) { return to_integer<i64>(x, Mode); }   \
  SIMT_EXPORT i64 simt_libdevice_float2ull_##Suffix(float x) {                                     \
    return i64(to_integer<u64>(x, Mode));                                                          \
  }                                                                                                \
  SIMT_EXPORT i32 simt_libdevice_double2int_##Suffix(double x) {                                   \
    return to_integer<i32>(x, Mode);                                                               \
  }                                                                                                \
  SIMT_EXPORT i32 simt_libdevice_double2uint_##Suffix(double x) {                                  \
    return i32(to_integer<u32>(x, Mode));                                                          \
  }                                                                                                \
  SIMT_EXPORT i64 simt_libdevice_double2ll_##Suffix(double x) { return to_integer<i64>(x, Mode); } \
  SIMT_EXPORT i64 simt_libdevice_double2ull_##Suffix(double x) {                                   \
    return i64(to_integer<u64>(x, Mode));                                                          \
  }
SIMT_ROUNDING_MODES(SIMT_ROUNDED_FAMILIES)
#undef SIMT_ROUNDED_FAMILIES
#undef SIMT_ROUNDING_MODES

SIMT_EXPORT double simt_libdevice_int2double_rn(i32 x) { return double(x); }       // exact
SIMT_EXPORT double simt_libdevice_uint2double_rn(i32 x) { return double(u32(x)); } // exact
SIMT_EXPORT float simt_libdevice_frsqrt_rn(float x) { return rsqrt_rn(x); }

SIMT_EXPORT i32 simt_libdevice_float2half_rn(float x) { return float_to_half_bits(x); }
SIMT_EXPORT float simt_libdevice_half2float(i32 x) { return half_bits_to_float(x); }

SIMT_EXPORT i64 simt_libdevice_llrint(double x) { return to_integer<i64>(x, FE_TONEAREST); }
SIMT_EXPORT i64 simt_libdevice_llrintf(float x) { return to_integer<i64>(x, FE_TONEAREST); }
SIMT_EXPORT i64 simt_libdevice_llround(double x) {
  return to_integer<i64>(std::round(x), FE_TOWARDZERO);
}
SIMT_EXPORT i64 simt_libdevice_llroundf(float x) {
  return to_integer<i64>(std::round(x), FE_TOWARDZERO);
}

SIMT_EXPORT float simt_libdevice_saturatef(float x) {
  return std::isnan(x) ? 0.0f : x < 0 ? 0.0f : x > 1 ? 1.0f : x;
}

// ---- the C library's functions, float32 ones in float64 unless exact in float32

#define SIMT_VIA_DOUBLE(Name, Fn)                                                                  \
  SIMT_EXPORT double simt_libdevice_##Name(double x) { return Fn(x); }                             \
  SIMT_EXPORT float simt_libdevice_##Name##f(float x) { return float(Fn(double(x))); }
#define SIMT_EXACT(Name, Fn)                                                                       \
  SIMT_EXPORT double simt_libdevice_##Name(double x) { return Fn(x); }                             \
  SIMT_EXPORT float simt_libdevice_##Name##f(float x) { return Fn(x); }
#define SIMT_VIA_DOUBLE2(Name, Fn)                                                                 \
  SIMT_EXPORT double simt_libdevice_##Name(double x, double y) { return Fn(x, y); }                \
  SIMT_EXPORT float simt_libdevice_##Name##f(float x, float y) {                                   \
    return float(Fn(double(x), double(y)));                                                        \
  }
#define SIMT_EXACT2(Name, Fn)                                                                      \
  SIMT_EXPORT double simt_libdevice_##Name(double x, double y) { return Fn(x, y); }                \
  SIMT_EXPORT float simt_libdevice_##Name##f(float x, float y) { return Fn(x, y); }

namespace {

double lgamma_of(double x) {
  int sign;
  return ::lgamma_r(x, &sign); // not lgamma: its sign goes to a global every thread would write
}
double exp10_of(double x) { return ::exp10(x); }
double j0_of(double x) { return ::j0(x); }
double j1_of(double x) { return ::j1(x); }
double y0_of(double x) { return ::y0(x); }
double y1_of(double x) { return ::y1(x); }
double erfcx_of(double x) { return double(erfcx_l(x)); }
double erfinv_of(double x) { return double(erfinv_l(x)); }
double erfcinv_of(double x) { return double(erfcinv_l(x)); }
double normcdf_of(double x) { return double(0.5L * std::erfc(-(long double)x / kSqrt2)); }
double normcdfinv_of(double x) {
  double value = double(-kSqrt2 * erfcinv_l(2 * (long double)x));
  return value == 0 ? 0.0 : value; // +0 at 0.5
}
double rsqrt_of(double x) { return double(1 / std::sqrt((long double)x)); }
double rcbrt_of(double x) { return double(1 / std::cbrt((long double)x)); }

// C's functions as plain functions of double (the <cmath> names are overloaded).
double acos_of(double x) { return std::acos(x); }
double acosh_of(double x) { return std::acosh(x); }
double asin_of(double x) { return std::asin(x); }
double asinh_of(double x) { return std::asinh(x); }
double atan_of(double x) { return std::atan(x); }
double atanh_of(double x) { return std::atanh(x); }
// glibc's cbrt is an ulp off on perfect cubes (27 gives 3.0000000000000004), CUDA's is not: in
// long double, rounded once.
double cbrt_of(double x) { return double(std::cbrt((long double)x)); }
double cos_of(double x) { return std::cos(x); }
double cosh_of(double x) { return std::cosh(x); }
double erf_of(double x) { return std::erf(x); }
double erfc_of(double x) { return std::erfc(x); }
double exp_of(double x) { return std::exp(x); }
double exp2_of(double x) { return std::exp2(x); }
double expm1_of(double x) { return std::expm1(x); }
double log_of(double x) { return std::log(x); }
double log10_of(double x) { return std::log10(x); }
double log1p_of(double x) { return std::log1p(x); }
double log2_of(double x) { return std::log2(x); }
double sin_of(double x) { return std::sin(x); }
double sinh_of(double x) { return std::sinh(x); }
double tan_of(double x) { return std::tan(x); }
double tanh_of(double x) { return std::tanh(x); }
double tgamma_of(double x) { return std::tgamma(x); }
double atan2_of(double y, double x) { return std::atan2(y, x); }
double pow_of(double x, double y) { return std::pow(x, y); }
double hypot_of(double x, double y) { return std::hypot(x, y); }

} // namespace

SIMT_VIA_DOUBLE(acos, acos_of)
SIMT_VIA_DOUBLE(acosh, acosh_of)
SIMT_VIA_DOUBLE(asin, asin_of)
SIMT_VIA_DOUBLE(asinh, asinh_of)
SIMT_VIA_DOUBLE(atan, atan_of)
SIMT_VIA_DOUBLE(atanh, atanh_of)
SIMT_VIA_DOUBLE(cbrt, cbrt_of)
SIMT_VIA_DOUBLE(cos, cos_of)
SIMT_VIA_DOUBLE(cosh, cosh_of)
SIMT_VIA_DOUBLE(cospi, cospi)
SIMT_VIA_DOUBLE(erf, erf_of)
SIMT_VIA_DOUBLE(erfc, erfc_of)
SIMT_VIA_DOUBLE(erfcinv, erfcinv_of)
SIMT_VIA_DOUBLE(erfcx, erfcx_of)
SIMT_VIA_DOUBLE(erfinv, erfinv_of)
SIMT_VIA_DOUBLE(exp, exp_of)
SIMT_VIA_DOUBLE(exp10, exp10_of)
SIMT_VIA_DOUBLE(exp2, exp2_of)
SIMT_VIA_DOUBLE(expm1, expm1_of)
SIMT_VIA_DOUBLE(j0, j0_of)
SIMT_VIA_DOUBLE(j1, j1_of)
SIMT_VIA_DOUBLE(lgamma, lgamma_of)
SIMT_VIA_DOUBLE(log, log_of)
SIMT_VIA_DOUBLE(log10, log10_of)
SIMT_VIA_DOUBLE(log1p, log1p_of)
SIMT_VIA_DOUBLE(log2, log2_of)
SIMT_VIA_DOUBLE(normcdf, normcdf_of)
SIMT_VIA_DOUBLE(normcdfinv, normcdfinv_of)
SIMT_VIA_DOUBLE(rcbrt, rcbrt_of)
SIMT_VIA_DOUBLE(rsqrt, rsqrt_of)
SIMT_VIA_DOUBLE(sin, sin_of)
SIMT_VIA_DOUBLE(sinh, sinh_of)
SIMT_VIA_DOUBLE(sinpi, sinpi)
SIMT_VIA_DOUBLE(tan, tan_of)
SIMT_VIA_DOUBLE(tanh, tanh_of)
SIMT_VIA_DOUBLE(tgamma, tgamma_of)
SIMT_VIA_DOUBLE(y0, y0_of)
SIMT_VIA_DOUBLE(y1, y1_of)
SIMT_VIA_DOUBLE2(atan2, atan2_of)
SIMT_VIA_DOUBLE2(hypot, hypot_of)
SIMT_VIA_DOUBLE2(pow, pow_of)

SIMT_EXACT(ceil, std::ceil)
SIMT_EXACT(floor, std::floor)
SIMT_EXACT(trunc, std::trunc)
SIMT_EXACT(round, std::round)
SIMT_EXACT(rint, std::rint)
SIMT_EXACT(nearbyint, std::nearbyint)
SIMT_EXACT(fabs, std::fabs)
SIMT_EXACT(sqrt, std::sqrt)
SIMT_EXACT(logb, std::logb)
SIMT_EXACT2(copysign, std::copysign)
SIMT_EXACT2(fdim, std::fdim)
SIMT_EXACT2(fmax, std::fmax)
SIMT_EXACT2(fmin, std::fmin)
SIMT_EXACT2(fmod, std::fmod)
SIMT_EXACT2(remainder, std::remainder)
SIMT_EXACT2(nextafter, std::nextafter)

#undef SIMT_VIA_DOUBLE
#undef SIMT_EXACT
#undef SIMT_VIA_DOUBLE2
#undef SIMT_EXACT2

SIMT_EXPORT double simt_libdevice_fma(double x, double y, double z) { return std::fma(x, y, z); }
SIMT_EXPORT float simt_libdevice_fmaf(float x, float y, float z) { return std::fma(x, y, z); }

SIMT_EXPORT double simt_libdevice_ldexp(double x, i32 n) { return std::ldexp(x, n); }
SIMT_EXPORT float simt_libdevice_ldexpf(float x, i32 n) { return std::ldexp(x, n); }
SIMT_EXPORT double simt_libdevice_scalbn(double x, i32 n) { return std::scalbn(x, n); }
SIMT_EXPORT float simt_libdevice_scalbnf(float x, i32 n) { return std::scalbn(x, n); }
SIMT_EXPORT double simt_libdevice_powi(double x, i32 n) { return std::pow(x, double(n)); }
SIMT_EXPORT float simt_libdevice_powif(float x, i32 n) {
  return float(std::pow(double(x), double(n)));
}
SIMT_EXPORT double simt_libdevice_jn(i32 n, double x) { return ::jn(n, x); }
SIMT_EXPORT float simt_libdevice_jnf(i32 n, float x) { return float(::jn(n, double(x))); }
SIMT_EXPORT double simt_libdevice_yn(i32 n, double x) { return ::yn(n, x); }
SIMT_EXPORT float simt_libdevice_ynf(i32 n, float x) { return float(::yn(n, double(x))); }

namespace {

// INT_MIN for 0 and NaN, INT_MAX for infinities, as libdevice's ilogb.
template <class T> i32 ilogb_of(T x) {
  if (std::isnan(x) || x == 0)
    return INT_MIN;
  if (std::isinf(x))
    return INT_MAX;
  return std::ilogb(x);
}

// The remainder of x / y to nearest, and the quotient's three low bits with its sign.
template <class T> T remquo_of(T x, T y, i32 *quo) {
  int q = 0;
  T r = std::remquo(x, y, &q);
  const bool negative = std::signbit(x) != std::signbit(y);
  *quo = std::isnan(r) ? 0 : (negative ? -1 : 1) * ((q < 0 ? -q : q) & 7);
  return r;
}

} // namespace

SIMT_EXPORT i32 simt_libdevice_ilogb(double x) { return ilogb_of(x); }
SIMT_EXPORT i32 simt_libdevice_ilogbf(float x) { return ilogb_of(x); }
SIMT_EXPORT double simt_libdevice_remquo(double x, double y, i32 *quo) {
  return remquo_of(x, y, quo);
}
SIMT_EXPORT float simt_libdevice_remquof(float x, float y, i32 *quo) {
  return remquo_of(x, y, quo);
}
SIMT_EXPORT double simt_libdevice_frexp(double x, i32 *exponent) {
  int e = 0;
  double fraction = std::frexp(x, &e);
  *exponent = std::isfinite(x) ? e : 0;
  return fraction;
}
SIMT_EXPORT float simt_libdevice_frexpf(float x, i32 *exponent) {
  int e = 0;
  float fraction = std::frexp(x, &e);
  *exponent = std::isfinite(x) ? e : 0;
  return fraction;
}
SIMT_EXPORT double simt_libdevice_modf(double x, double *whole) { return std::modf(x, whole); }
SIMT_EXPORT float simt_libdevice_modff(float x, float *whole) { return std::modf(x, whole); }

SIMT_EXPORT void simt_libdevice_sincos(double x, double *s, double *c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
SIMT_EXPORT void simt_libdevice_sincosf(float x, float *s, float *c) {
  *s = float(std::sin(double(x)));
  *c = float(std::cos(double(x)));
}
SIMT_EXPORT void simt_libdevice_sincospi(double x, double *s, double *c) {
  *s = sinpi(x);
  *c = cospi(x);
}
SIMT_EXPORT void simt_libdevice_sincospif(float x, float *s, float *c) {
  *s = float(sinpi(double(x)));
  *c = float(cospi(double(x)));
}

// ---- the fast_ functions: the precise ones

SIMT_EXPORT float simt_libdevice_fast_sinf(float x) { return float(std::sin(double(x))); }
SIMT_EXPORT float simt_libdevice_fast_cosf(float x) { return float(std::cos(double(x))); }
SIMT_EXPORT float simt_libdevice_fast_tanf(float x) { return float(std::tan(double(x))); }
SIMT_EXPORT void simt_libdevice_fast_sincosf(float x, float *s, float *c) {
  simt_libdevice_sincosf(x, s, c);
}
SIMT_EXPORT float simt_libdevice_fast_expf(float x) { return float(std::exp(double(x))); }
SIMT_EXPORT float simt_libdevice_fast_exp10f(float x) { return float(::exp10(double(x))); }
SIMT_EXPORT float simt_libdevice_fast_logf(float x) { return float(std::log(double(x))); }
SIMT_EXPORT float simt_libdevice_fast_log2f(float x) { return float(std::log2(double(x))); }
SIMT_EXPORT float simt_libdevice_fast_log10f(float x) { return float(std::log10(double(x))); }
SIMT_EXPORT float simt_libdevice_fast_powf(float x, float y) {
  return float(std::pow(double(x), double(y)));
}
// x / y, but 0 (NaN for an infinite x) for 2**126 < |y| < 2**128, as CUDA documents __fdividef.
SIMT_EXPORT float simt_libdevice_fast_fdividef(float x, float y) {
  const float magnitude = std::fabs(y);
  if (magnitude > 0x1p126f && !std::isinf(magnitude) && !std::isnan(x))
    return std::isinf(x)                        ? std::numeric_limits<float>::quiet_NaN()
           : std::signbit(x) == std::signbit(y) ? 0.0f
                                                : -0.0f;
  return x / y;
}

#undef SIMT_EXPORT

// ---- the table

namespace {

using simt::ir::LibdeviceType;

template <LibdeviceType> struct HostType;
template <> struct HostType<LibdeviceType::Void> { using type = void; };
template <> struct HostType<LibdeviceType::I16> {
  using type = i32; // widened (codegen/libdevice_call.h)
};
template <> struct HostType<LibdeviceType::I32> { using type = i32; };
template <> struct HostType<LibdeviceType::I64> { using type = i64; };
template <> struct HostType<LibdeviceType::F32> { using type = float; };
template <> struct HostType<LibdeviceType::F64> { using type = double; };

template <class Result, class First, class... Params> struct HostFunction {
  using type = Result(Params...);
};

// Every function has libdevice's signature (as HostTarget calls it).
#define SIMT_LD_IN(Name, Type) , HostType<LibdeviceType::Type>::type
#define SIMT_LD_OUT(Name, Type) , HostType<LibdeviceType::Type>::type *
#define SIMT_LIBDEVICE(Name, Result, Params)                                                       \
  static_assert(                                                                                   \
      std::is_same_v<decltype(simt_libdevice_##Name),                                              \
                     HostFunction<HostType<LibdeviceType::Result>::type, void Params>::type>,      \
      "simt_libdevice_" #Name " does not have libdevice's signature");
#include "ir/libdevice.def"

const simt::sim::HostSymbol kSymbols[] = {
#define SIMT_LIBDEVICE(Name, Result, Params)                                                       \
  {"simt_libdevice_" #Name, reinterpret_cast<void *>(&simt_libdevice_##Name)},
#include "ir/libdevice.def"
};

} // namespace

namespace simt::sim {

std::span<const HostSymbol> libdevice_host_symbols() { return kSymbols; }

} // namespace simt::sim
