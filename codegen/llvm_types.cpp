#include "codegen/llvm_types.h"
#include "codegen/lower_complex.h"

#include <stdexcept>

namespace simt::codegen {

bool scalar_is_signed(Scalar s) { return is_integer(s) && is_signed(s); }

llvm::Type *register_type(llvm::LLVMContext &ctx, const Type &type) {
  switch (type.kind) {
  case Type::Kind::None:
    return llvm::Type::getVoidTy(ctx);
  case Type::Kind::Scalar:
    if (type.scalar == Scalar::F16)
      return llvm::Type::getHalfTy(ctx);
    if (type.scalar == Scalar::F32)
      return llvm::Type::getFloatTy(ctx);
    if (type.scalar == Scalar::F64)
      return llvm::Type::getDoubleTy(ctx);
    if (is_complex(type.scalar))
      return complex_type(ctx, type.scalar);
    return llvm::IntegerType::get(ctx, bit_width(type.scalar));
  case Type::Kind::Array:
    return array_struct_type(ctx, type.ndim);
  case Type::Kind::Record:
    return llvm::PointerType::getUnqual(ctx);
  case Type::Kind::Tuple: {
    std::vector<llvm::Type *> elems;
    for (const Type &elem : type.elems)
      elems.push_back(register_type(ctx, elem));
    return llvm::StructType::get(ctx, elems);
  }
  case Type::Kind::ThreadBlock:
  case Type::Kind::GridGroup:
    return llvm::StructType::get(ctx);
  case Type::Kind::Vector: // Numba's StructModel of the elements
    return llvm::StructType::get(
        ctx,
        std::vector<llvm::Type *>(type.ndim, register_type(ctx, Type::scalar_of(type.scalar))));
  }
  throw std::logic_error("simt: unknown type kind");
}

llvm::Type *memory_type(llvm::LLVMContext &ctx, Scalar s) {
  if (s == Scalar::Bool)
    return llvm::Type::getInt8Ty(ctx);
  return register_type(ctx, Type::scalar_of(s));
}

llvm::StructType *array_struct_type(llvm::LLVMContext &ctx, int ndim) {
  llvm::Type *dims = llvm::ArrayType::get(llvm::Type::getInt64Ty(ctx), ndim);
  return llvm::StructType::get(ctx, {llvm::PointerType::getUnqual(ctx), dims, dims});
}

llvm::Value *memory_to_register(llvm::IRBuilderBase &b, llvm::Value *value, Scalar s) {
  if (s != Scalar::Bool)
    return value;
  return b.CreateICmpNE(value, b.getInt8(0));
}

llvm::Value *register_to_memory(llvm::IRBuilderBase &b, llvm::Value *value, Scalar s) {
  if (s != Scalar::Bool)
    return value;
  return b.CreateZExt(value, b.getInt8Ty());
}

llvm::Value *make_array_value(llvm::IRBuilderBase &b, int ndim, llvm::Value *data,
                              llvm::ArrayRef<llvm::Value *> shape,
                              llvm::ArrayRef<llvm::Value *> strides) {
  llvm::Value *array = llvm::PoisonValue::get(array_struct_type(b.getContext(), ndim));
  array = b.CreateInsertValue(array, data, {0});
  for (int k = 0; k < ndim; ++k) {
    array = b.CreateInsertValue(array, shape[k], {1, unsigned(k)});
    array = b.CreateInsertValue(array, strides[k], {2, unsigned(k)});
  }
  return array;
}

} // namespace simt::codegen
