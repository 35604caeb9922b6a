// How the kernel language's types are represented in LLVM IR, shared by every Target.
//
// Scalars are LLVM integers/floats; bool is i1 in registers and i8 in memory (and in kernel
// arguments). An array value is the struct {ptr data, [ndim x i64] shape, [ndim x i64] strides}
// (strides in bytes), passed around in registers; tuples are structs of their elements. A record
// value is a pointer to the record's bytes in its array.
#pragma once

#include "ir/types.h"

#include <llvm/IR/IRBuilder.h>

namespace simt::codegen {

// Signed integers only (bool is unsigned; see ir/types.h for the other scalar facts).
bool scalar_is_signed(Scalar s);

// The type of a value of `type` in a register (bool: i1).
llvm::Type *register_type(llvm::LLVMContext &ctx, const Type &type);
// The type of one array element / kernel scalar argument in memory (bool: i8).
llvm::Type *memory_type(llvm::LLVMContext &ctx, Scalar s);
llvm::StructType *array_struct_type(llvm::LLVMContext &ctx, int ndim);

// Converts a value loaded from memory to its register form and back (only bool differs).
llvm::Value *memory_to_register(llvm::IRBuilderBase &b, llvm::Value *value, Scalar s);
llvm::Value *register_to_memory(llvm::IRBuilderBase &b, llvm::Value *value, Scalar s);

// Builds an array value from its parts.
llvm::Value *make_array_value(llvm::IRBuilderBase &b, int ndim, llvm::Value *data,
                              llvm::ArrayRef<llvm::Value *> shape,
                              llvm::ArrayRef<llvm::Value *> strides);

} // namespace simt::codegen
