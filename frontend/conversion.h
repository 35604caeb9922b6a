// Numba's implicit scalar conversions and overload selection (numba/core/typeconv/rules.py and
// BaseContext._rate_arguments): how every operator and math function picks its signature.
#pragma once

#include "ir/types.h"

#include <optional>
#include <vector>

namespace simt {

// Ordered from best to worst, as Numba's Conversion kinds; Never: no implicit conversion (a
// complex to a real or an integer).
enum class Conversion : uint8_t { Exact, Promote, Safe, Unsafe, Never };

// Which of Numba's casting rules hold: Numba 0.59 made int8 -> float16 safe (and so bool ->
// float16), as numba-cuda and numba-cuda-mlir have it; Numba 0.56 converts them unsafely. One
// set per process, the host's (python/simt/host.py sets it before the first compile). The typed
// IR, and so every cache key, records what the rules chose.
enum class CastingRules : uint8_t { Numba056, Numba059 };
void set_casting_rules(CastingRules rules);

// The cheapest implicit conversion from one scalar type to another (every pair of real types
// converts, at worst unsafely), under the process's casting rules.
Conversion conversion(Scalar from, Scalar to);

// One typing case of an overloaded operation: the formal parameter types and the result.
struct Signature {
  Scalar result;
  std::vector<Scalar> params;
};

// The best case for the actual argument types: fewest unsafe, then safe, then promoting
// conversions; ties go to the earlier case, as Numba's case order decides. Without
// `allow_unsafe`, cases needing an unsafe conversion are rejected; cases needing a Never one
// always are. nullopt when none fits.
std::optional<Signature> select_overload(const std::vector<Scalar> &actual,
                                         const std::vector<Signature> &cases,
                                         bool allow_unsafe = true);
// The same, as the index of the case in `cases`.
std::optional<size_t> select_overload_index(const std::vector<Scalar> &actual,
                                            const std::vector<Signature> &cases,
                                            bool allow_unsafe = true);

} // namespace simt
