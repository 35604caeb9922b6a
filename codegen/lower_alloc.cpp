#include "codegen/lower_alloc.h"

#include "codegen/llvm_types.h"
#include "ir/compile_error.h"

#include <llvm/IR/Intrinsics.h>

namespace simt::codegen {

std::string Target::allocation_refusal() const { return "not supported by this target"; }

llvm::Value *Target::allocate(Emitter &, llvm::Value *, bool, int32_t) {
  throw std::logic_error("simt: " + allocation_refusal());
}

llvm::Value *allocated_array(Emitter &e, Target &target, const Type &type,
                             llvm::ArrayRef<llvm::Value *> extents, bool zeroed,
                             const std::string &file, ir::Loc where, int32_t loc) {
  if (!target.allocates())
    throw CompileError(file, where.line, where.col,
                       "simt: allocating an array in a kernel (np.empty, np.zeros, ..., "
                       "array.copy()) is " +
                           target.allocation_refusal(),
                       "");
  llvm::IRBuilder<> &b = e.b;
  const int64_t itemsize = type.record ? type.record->size : byte_size(type.scalar);
  // The byte size, -1 once a product overflows int64 (the target then reports a MemoryError).
  llvm::Value *bytes = b.getInt64(itemsize), *overflowed = b.getFalse();
  std::vector<llvm::Value *> strides(extents.size());
  for (size_t k = extents.size(); k-- > 0;) {
    strides[k] = bytes;
    llvm::Value *product =
        b.CreateBinaryIntrinsic(llvm::Intrinsic::smul_with_overflow, bytes, extents[k]);
    bytes = b.CreateExtractValue(product, {0});
    overflowed = b.CreateOr(overflowed, b.CreateExtractValue(product, {1}));
  }
  bytes = b.CreateSelect(overflowed, b.getInt64(-1), bytes);
  llvm::Value *data = target.allocate(e, bytes, zeroed, loc);
  llvm::Value *array = llvm::UndefValue::get(array_struct_type(b.getContext(), type.ndim));
  array = b.CreateInsertValue(array, data, {0});
  for (unsigned k = 0; k < unsigned(extents.size()); ++k) {
    array = b.CreateInsertValue(array, extents[k], {1, k});
    array = b.CreateInsertValue(array, strides[k], {2, k});
  }
  return array;
}

} // namespace simt::codegen
