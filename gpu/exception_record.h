// The device-side exception record of a kernel compiled for the GPU (gpu/nvptx_target.h writes
// it, gpu/launch_ptx.h reads it back): a global array of 16 int32 named simt_exception.
//   [0] code: 0 none, index_error_code, or first_raise_code + k for the kernel's k-th `raise`
//       (gpu::CompiledPtx::raised)
//   [1] the faulting site (an index into the compiled kernel's locations)
//   [2..4] threadIdx x, y, z   [5..7] blockIdx x, y, z
//   IndexError only: [8] axis, [10..11] index (int64), [12..13] the axis' extent (int64)
// No LLVM here: the standalone runner (gpu/runner) uses it too.
#pragma once

#include <cstdint>

namespace simt::gpu {

constexpr const char *exception_record_name = "simt_exception";
constexpr int exception_record_words = 16;
constexpr int32_t index_error_code = 1;
constexpr int32_t first_raise_code = 2;

} // namespace simt::gpu
