#include "codegen/math.h"

#include <optional>
#include <stdexcept>
#include <string>

namespace simt::codegen {

llvm::Intrinsic::ID llvm_math_intrinsic(ir::Intrinsic fn) {
  using I = ir::Intrinsic;
  switch (fn) {
  case I::Sqrt:
    return llvm::Intrinsic::sqrt;
  case I::Fabs:
    return llvm::Intrinsic::fabs;
  case I::Floor:
    return llvm::Intrinsic::floor;
  case I::Ceil:
    return llvm::Intrinsic::ceil;
  case I::Trunc:
    return llvm::Intrinsic::trunc;
  case I::Rint:
    return llvm::Intrinsic::rint;
  case I::Sin:
    return llvm::Intrinsic::sin;
  case I::Cos:
    return llvm::Intrinsic::cos;
  case I::Exp:
    return llvm::Intrinsic::exp;
  case I::Exp2:
    return llvm::Intrinsic::exp2;
  case I::Log:
    return llvm::Intrinsic::log;
  case I::Log2:
    return llvm::Intrinsic::log2;
  case I::Log10:
    return llvm::Intrinsic::log10;
  case I::Pow:
    return llvm::Intrinsic::pow;
  case I::Copysign:
    return llvm::Intrinsic::copysign;
  default:
    return llvm::Intrinsic::not_intrinsic;
  }
}

bool exact_in_float32(ir::Intrinsic fn) {
  using I = ir::Intrinsic;
  return fn == I::Sqrt || fn == I::Fabs || fn == I::Floor || fn == I::Ceil || fn == I::Trunc ||
         fn == I::Rint || fn == I::Copysign || fn == I::Nextafter;
}

namespace {

// Each math intrinsic's libdevice functions: on float64, on float32, and the approximate float32
// one fastmath gives (as Numba's: libdevice's __nv_fast_sinf), where libdevice has one.
struct MathLibdevice {
  ir::Intrinsic fn;
  ir::Libdevice f64, f32;
  std::optional<ir::Libdevice> fast_f32;
};

constexpr MathLibdevice kMathLibdevice[] = {
    {ir::Intrinsic::Sin, ir::Libdevice::sin, ir::Libdevice::sinf, ir::Libdevice::fast_sinf},
    {ir::Intrinsic::Cos, ir::Libdevice::cos, ir::Libdevice::cosf, ir::Libdevice::fast_cosf},
    {ir::Intrinsic::Tan, ir::Libdevice::tan, ir::Libdevice::tanf, ir::Libdevice::fast_tanf},
    {ir::Intrinsic::Asin, ir::Libdevice::asin, ir::Libdevice::asinf, {}},
    {ir::Intrinsic::Acos, ir::Libdevice::acos, ir::Libdevice::acosf, {}},
    {ir::Intrinsic::Atan, ir::Libdevice::atan, ir::Libdevice::atanf, {}},
    {ir::Intrinsic::Sinh, ir::Libdevice::sinh, ir::Libdevice::sinhf, {}},
    {ir::Intrinsic::Cosh, ir::Libdevice::cosh, ir::Libdevice::coshf, {}},
    {ir::Intrinsic::Tanh, ir::Libdevice::tanh, ir::Libdevice::tanhf, {}},
    {ir::Intrinsic::Asinh, ir::Libdevice::asinh, ir::Libdevice::asinhf, {}},
    {ir::Intrinsic::Acosh, ir::Libdevice::acosh, ir::Libdevice::acoshf, {}},
    {ir::Intrinsic::Atanh, ir::Libdevice::atanh, ir::Libdevice::atanhf, {}},
    {ir::Intrinsic::Exp, ir::Libdevice::exp, ir::Libdevice::expf, ir::Libdevice::fast_expf},
    {ir::Intrinsic::Expm1, ir::Libdevice::expm1, ir::Libdevice::expm1f, {}},
    {ir::Intrinsic::Exp2, ir::Libdevice::exp2, ir::Libdevice::exp2f, {}},
    {ir::Intrinsic::Log, ir::Libdevice::log, ir::Libdevice::logf, ir::Libdevice::fast_logf},
    {ir::Intrinsic::Log2, ir::Libdevice::log2, ir::Libdevice::log2f, ir::Libdevice::fast_log2f},
    {ir::Intrinsic::Log10, ir::Libdevice::log10, ir::Libdevice::log10f, ir::Libdevice::fast_log10f},
    {ir::Intrinsic::Log1p, ir::Libdevice::log1p, ir::Libdevice::log1pf, {}},
    {ir::Intrinsic::Sqrt, ir::Libdevice::sqrt, ir::Libdevice::sqrtf, {}},
    {ir::Intrinsic::Fabs, ir::Libdevice::fabs, ir::Libdevice::fabsf, {}},
    {ir::Intrinsic::Floor, ir::Libdevice::floor, ir::Libdevice::floorf, {}},
    {ir::Intrinsic::Ceil, ir::Libdevice::ceil, ir::Libdevice::ceilf, {}},
    {ir::Intrinsic::Trunc, ir::Libdevice::trunc, ir::Libdevice::truncf, {}},
    {ir::Intrinsic::Erf, ir::Libdevice::erf, ir::Libdevice::erff, {}},
    {ir::Intrinsic::Erfc, ir::Libdevice::erfc, ir::Libdevice::erfcf, {}},
    {ir::Intrinsic::Lgamma, ir::Libdevice::lgamma, ir::Libdevice::lgammaf, {}},
    {ir::Intrinsic::Tgamma, ir::Libdevice::tgamma, ir::Libdevice::tgammaf, {}},
    {ir::Intrinsic::Rint, ir::Libdevice::rint, ir::Libdevice::rintf, {}},
    {ir::Intrinsic::Cbrt, ir::Libdevice::cbrt, ir::Libdevice::cbrtf, {}},
    {ir::Intrinsic::Atan2, ir::Libdevice::atan2, ir::Libdevice::atan2f, {}},
    {ir::Intrinsic::Pow, ir::Libdevice::pow, ir::Libdevice::powf, ir::Libdevice::fast_powf},
    {ir::Intrinsic::Hypot, ir::Libdevice::hypot, ir::Libdevice::hypotf, {}},
    {ir::Intrinsic::Copysign, ir::Libdevice::copysign, ir::Libdevice::copysignf, {}},
    {ir::Intrinsic::Nextafter, ir::Libdevice::nextafter, ir::Libdevice::nextafterf, {}},
    {ir::Intrinsic::Fmod, ir::Libdevice::fmod, ir::Libdevice::fmodf, {}},
    {ir::Intrinsic::Remainder, ir::Libdevice::remainder, ir::Libdevice::remainderf, {}},
    {ir::Intrinsic::Ldexp, ir::Libdevice::ldexp, ir::Libdevice::ldexpf, {}},
};

const MathLibdevice &math_libdevice_entry(ir::Intrinsic fn) {
  for (const MathLibdevice &entry : kMathLibdevice)
    if (entry.fn == fn)
      return entry;
  throw std::logic_error(std::string("simt: the math intrinsic '") + ir::intrinsic_name(fn) +
                         "' has no libdevice function in codegen/math.cpp's table");
}

} // namespace

ir::Libdevice math_libdevice(ir::Intrinsic fn, Scalar type, bool fast) {
  const MathLibdevice &entry = math_libdevice_entry(fn);
  if (type == Scalar::F64)
    return entry.f64;
  return fast && entry.fast_f32 ? *entry.fast_f32 : entry.f32;
}

} // namespace simt::codegen
