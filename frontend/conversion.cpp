#include "frontend/conversion.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <tuple>

namespace simt {

namespace {

constexpr int kScalars = 15;
using Table = std::array<std::array<Conversion, kScalars>, kScalars>;

int at(Scalar s) { return static_cast<int>(s); }

std::atomic<CastingRules> casting_rules{CastingRules::Numba056};

// Numba's casting rules: each edge gives the conversion both ways, closed transitively (a chain
// costs its worst step).
Table build_table(CastingRules version) {
  Table t;
  for (int i = 0; i < kScalars; ++i)
    for (int j = 0; j < kScalars; ++j)
      t[i][j] =
          is_complex(Scalar(i)) && !is_complex(Scalar(j)) ? Conversion::Never : Conversion::Unsafe;
  for (int i = 0; i < kScalars; ++i)
    t[i][i] = Conversion::Exact;
  struct Rule {
    Scalar from, to;
    Conversion forward, backward;
  };
  using S = Scalar;
  using C = Conversion;
  const Rule rules[] = {
      {S::Bool, S::I8, C::Safe, C::Unsafe},
      {S::Bool, S::U8, C::Safe, C::Unsafe},
      {S::I8, S::I16, C::Promote, C::Unsafe},
      {S::U8, S::U16, C::Promote, C::Unsafe},
      {S::I16, S::I32, C::Promote, C::Unsafe},
      {S::U16, S::U32, C::Promote, C::Unsafe},
      {S::I32, S::I64, C::Promote, C::Unsafe},
      {S::U32, S::U64, C::Promote, C::Unsafe},
      {S::U8, S::I16, C::Safe, C::Unsafe},
      {S::U16, S::I32, C::Safe, C::Unsafe},
      {S::U32, S::I64, C::Safe, C::Unsafe},
      {S::I16, S::F32, C::Safe, C::Unsafe},
      {S::I32, S::F64, C::Safe, C::Unsafe},
      {S::I32, S::F32, C::Unsafe, C::Unsafe},
      {S::I64, S::F64, C::Safe, C::Unsafe},
      {S::U64, S::F64, C::Safe, C::Unsafe},
      {S::F32, S::F64, C::Promote, C::Unsafe},
      {S::F32, S::C64, C::Safe, C::Never},
      {S::F64, S::C128, C::Safe, C::Never},
      {S::C64, S::C128, C::Promote, C::Unsafe},
      {S::I8, S::F16, version == CastingRules::Numba059 ? C::Safe : C::Unsafe, C::Unsafe},
      {S::I16, S::F16, C::Unsafe, C::Unsafe},
      {S::F16, S::F32, C::Promote, C::Unsafe},
      // numba-cuda's Bfloat16.can_convert_from/to: 8-bit ints convert to it safely, it converts
      // to float32 and float64 safely; the rest both ways unsafely (the default), a complex never
      {S::I8, S::BF16, C::Safe, C::Unsafe},
      {S::U8, S::BF16, C::Safe, C::Unsafe},
      {S::BF16, S::F32, C::Safe, C::Unsafe},
      {S::BF16, S::F64, C::Safe, C::Unsafe},
  };
  for (const Rule &r : rules) {
    t[at(r.from)][at(r.to)] = std::min(t[at(r.from)][at(r.to)], r.forward);
    t[at(r.to)][at(r.from)] = std::min(t[at(r.to)][at(r.from)], r.backward);
  }
  for (int k = 0; k < kScalars; ++k)
    for (int i = 0; i < kScalars; ++i)
      for (int j = 0; j < kScalars; ++j)
        t[i][j] = std::min(t[i][j], std::max(t[i][k], t[k][j]));
  return t;
}

} // namespace

void set_casting_rules(CastingRules rules) { casting_rules.store(rules); }

Conversion conversion(Scalar from, Scalar to) {
  static const Table numba056 = build_table(CastingRules::Numba056);
  static const Table numba059 = build_table(CastingRules::Numba059);
  const Table &table = casting_rules.load() == CastingRules::Numba059 ? numba059 : numba056;
  return table[at(from)][at(to)];
}

std::optional<Signature> select_overload(const std::vector<Scalar> &actual,
                                         const std::vector<Signature> &cases, bool allow_unsafe) {
  std::optional<size_t> best = select_overload_index(actual, cases, allow_unsafe);
  return best ? std::optional<Signature>(cases[*best]) : std::nullopt;
}

std::optional<size_t> select_overload_index(const std::vector<Scalar> &actual,
                                            const std::vector<Signature> &cases,
                                            bool allow_unsafe) {
  std::optional<size_t> best;
  std::tuple<int, int, int> best_rating;
  for (size_t index = 0; index < cases.size(); ++index) {
    const Signature &sig = cases[index];
    if (sig.params.size() != actual.size())
      continue;
    int unsafe = 0, safe = 0, promote = 0;
    bool never = false;
    for (size_t i = 0; i < actual.size(); ++i) {
      switch (conversion(actual[i], sig.params[i])) {
      case Conversion::Exact:
        break;
      case Conversion::Promote:
        ++promote;
        break;
      case Conversion::Safe:
        ++safe;
        break;
      case Conversion::Unsafe:
        ++unsafe;
        break;
      case Conversion::Never:
        never = true;
        break;
      }
    }
    if (never || (unsafe && !allow_unsafe))
      continue;
    auto rating = std::make_tuple(unsafe, safe, promote);
    if (!best || rating < best_rating) {
      best = index;
      best_rating = rating;
    }
  }
  return best;
}

} // namespace simt
