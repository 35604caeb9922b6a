// Arrays (element addresses, views, shared and local memory), atomics and records
// (codegen/function_lowering.h).
#include "codegen/function_lowering.h"

namespace simt::codegen {

namespace {

// An access as compute-sanitizer names it: "__global__ read of size 4 bytes".
std::string access_description(MemSpace space, AccessKind kind, int64_t size) {
  static constexpr const char *spaces[] = {"__global__", "__shared__", "__local__", "__constant__"};
  const char *action = kind == AccessKind::Store    ? "write"
                       : kind == AccessKind::Atomic ? "atomic"
                                                    : "read";
  return std::string(spaces[static_cast<int>(space)]) + " " + action + " of size " +
         std::to_string(size) + " bytes";
}

} // namespace

// The expressions of arrays: elements, shapes, views and the arrays themselves (shared, local,
// constant and allocated memory).
llvm::Value *FunctionLowering::array_expr(const ir::Expr &e) {
  switch (e.kind) {
  case ir::ExprKind::ArrayLoad: {
    llvm::Value *addr = element_address(e.args, 1, e.loc, AccessKind::Load);
    if (e.type.is_record())
      return addr; // a record refers to its element
    const Scalar dtype = e.args[0]->type.scalar;
    return load(addr, e.args[0]->type, dtype, llvm::Align(byte_size(dtype)), e.loc);
  }
  case ir::ExprKind::ArrayShape:
    return b_.CreateExtractValue(expr(*e.args[0]), {1, unsigned(e.index)});
  case ir::ExprKind::ArrayStride:
    return b_.CreateExtractValue(expr(*e.args[0]), {2, unsigned(e.index)});
  case ir::ExprKind::ArraySize:
    return array_size(expr(*e.args[0]), e.args[0]->type.ndim);
  case ir::ExprKind::ArrayAddress:
    return b_.CreatePtrToInt(b_.CreateExtractValue(expr(*e.args[0]), {0}), b_.getInt64Ty());
  case ir::ExprKind::SharedArray:
    return shared_array(e);
  case ir::ExprKind::LocalArray: {
    const ir::LocalArrayDecl &decl = f_.local_arrays[e.index];
    return memory_array(local_array_address(e.index), decl.elements.dtype, decl.shape,
                        decl.elements.itemsize());
  }
  case ir::ExprKind::ConstArray: {
    const ir::ConstArrayDecl &decl = m_.ir.const_arrays[e.index];
    return memory_array(m_.const_arrays[e.index], decl.dtype, decl.shape,
                        e.type.record ? e.type.record->size : 0);
  }
  case ir::ExprKind::ArrayView:
    return array_view(e);
  case ir::ExprKind::DtypeView: { // the same data; one axis's extent and stride replaced
    llvm::Value *array = expr(*e.args[0]);
    llvm::Value *axis = expr(*e.args[1]), *extent = expr(*e.args[2]), *stride = expr(*e.args[3]);
    for (unsigned k = 0; k < unsigned(e.type.ndim); ++k) {
      llvm::Value *here = b_.CreateICmpEQ(axis, b_.getInt64(k));
      for (auto [part, value] : {std::pair{1u, extent}, std::pair{2u, stride}})
        array = b_.CreateInsertValue(
            array, b_.CreateSelect(here, value, b_.CreateExtractValue(array, {part, k})),
            {part, k});
    }
    return array;
  }
  case ir::ExprKind::Reshape: { // the same data; the new extents, C-order strides
    llvm::Value *data = b_.CreateExtractValue(expr(*e.args[0]), {0});
    llvm::Value *array = llvm::UndefValue::get(array_struct_type(b_.getContext(), e.type.ndim));
    array = b_.CreateInsertValue(array, data, {0});
    llvm::Value *stride =
        b_.getInt64(e.type.record ? e.type.record->size : byte_size(e.type.scalar));
    for (unsigned k = unsigned(e.type.ndim); k-- > 0;) {
      llvm::Value *extent = expr(*e.args[k + 1]);
      array = b_.CreateInsertValue(array, extent, {1, k});
      array = b_.CreateInsertValue(array, stride, {2, k});
      stride = b_.CreateMul(stride, extent);
    }
    return array;
  }
  case ir::ExprKind::FieldView: { // the same shape and strides, the data further on
    llvm::Value *array = expr(*e.args[0]);
    llvm::Value *data = b_.CreateExtractValue(array, {0});
    return b_.CreateInsertValue(array, b_.CreateGEP(b_.getInt8Ty(), data, b_.getInt64(e.index)),
                                {0});
  }
  case ir::ExprKind::ArrayAlloc: {
    std::vector<llvm::Value *> extents;
    for (const ir::ExprPtr &arg : e.args)
      extents.push_back(expr(*arg));
    announce_thread(); // a MemoryError names the thread
    llvm::Value *array = allocated_array(emitter_, target_, e.type, extents, e.int_value != 0,
                                         f_.file, e.loc, loc(e.loc));
    check_status(); // a MemoryError
    return array;
  }
  default:
    throw std::logic_error("simt: not an array expression");
  }
}

// An array over `data` (shared, local or const memory): C layout, constant shape.
llvm::Value *FunctionLowering::memory_array(llvm::Value *data, Scalar dtype,
                                            const std::vector<int64_t> &shape, int64_t itemsize) {
  int ndim = int(shape.size());
  std::vector<llvm::Value *> extents(ndim), strides(ndim);
  int64_t stride = itemsize ? itemsize : byte_size(dtype);
  for (int k = ndim - 1; k >= 0; --k) {
    extents[k] = b_.getInt64(shape[k]);
    strides[k] = b_.getInt64(stride);
    stride *= shape[k];
  }
  return make_array_value(b_, ndim, data, extents, strides);
}

llvm::Value *FunctionLowering::shared_array(const ir::Expr &e) {
  const ir::SharedArrayDecl &decl = m_.ir.shared_arrays[e.index];
  if (!decl.dynamic)
    return memory_array(target_.shared_array_memory(emitter_, decl, e.index), decl.elements.dtype,
                        decl.shape, decl.elements.itemsize());
  // The dynamic array is 1-D over the whole of the launch's dynamic shared memory.
  llvm::Value *data = target_.shared_memory(emitter_, m_.ir.static_shared_bytes);
  int64_t itemsize = decl.elements.itemsize();
  llvm::Value *extent =
      b_.CreateUDiv(target_.dynamic_shared_bytes(emitter_), b_.getInt64(itemsize));
  return make_array_value(b_, 1, data, {extent}, {b_.getInt64(itemsize)});
}

llvm::Value *FunctionLowering::array_size(llvm::Value *array, int ndim) {
  llvm::Value *size = b_.getInt64(1);
  for (int k = 0; k < ndim; ++k)
    size = b_.CreateMul(size, b_.CreateExtractValue(array, {1, unsigned(k)}));
  return size;
}

std::vector<llvm::Value *>
FunctionLowering::element_strides(const Type &type, llvm::Value *array,
                                  const std::vector<llvm::Value *> &shape) {
  const int ndim = type.ndim;
  std::vector<llvm::Value *> strides(ndim);
  if (type.layout != 'C' && type.layout != 'F') {
    for (int k = 0; k < ndim; ++k)
      strides[k] = b_.CreateExtractValue(array, {2, unsigned(k)});
    return strides;
  }
  // Contiguous layouts: strides follow from the shape, so LLVM sees unit-stride accesses.
  llvm::Value *stride = b_.getInt64(type.record ? type.record->size : byte_size(type.scalar));
  for (int j = 0; j < ndim; ++j) {
    int k = type.layout == 'C' ? ndim - 1 - j : j;
    strides[k] = stride;
    stride = b_.CreateMul(stride, shape[k]);
  }
  return strides;
}

llvm::Value *FunctionLowering::element_address(const std::vector<ir::ExprPtr> &operands,
                                               size_t first, ir::Loc where, AccessKind kind) {
  const Type &type = operands[0]->type;
  llvm::Value *array = expr(*operands[0]);
  int ndim = type.ndim;
  std::vector<llvm::Value *> shape(ndim);
  for (int k = 0; k < ndim; ++k)
    shape[k] = b_.CreateExtractValue(array, {1, unsigned(k)});
  const std::vector<llvm::Value *> strides = element_strides(type, array, shape);
  if (m_.ir.options.bounds_check == BoundsCheck::Warn)
    return unchecked_element_address(operands, first, where, kind, array, shape, strides);
  llvm::Value *offset = b_.getInt64(0);
  for (int k = 0; k < ndim; ++k) {
    llvm::Value *index = expr(*operands[first + k]);
    if (select_form_checks_) {
      llvm::Value *element = checked_index(index, shape[k], k, where);
      offset = b_.CreateAdd(offset, b_.CreateMul(element, strides[k]));
      continue;
    }
    // The hot path is one unsigned compare (a negative index looks huge), a form IRCE can remove
    // from loops so they vectorise; wrapping a negative index is on the cold path with the error.
    llvm::BasicBlock *in_range = block("in.range");
    llvm::BasicBlock *not_in_range = block("not.in.range");
    llvm::BasicBlock *fast_block = b_.GetInsertBlock();
    b_.CreateCondBr(b_.CreateICmpULT(index, shape[k]), in_range, not_in_range, likely(ctx()));
    b_.SetInsertPoint(not_in_range);
    llvm::Value *wrapped = b_.CreateAdd(index, shape[k]);
    llvm::Value *wraps = b_.CreateAnd(b_.CreateICmpSLT(index, b_.getInt64(0)),
                                      b_.CreateICmpSGE(wrapped, b_.getInt64(0)));
    fault_if(b_.CreateNot(wraps), index_fault(),
             {index, b_.getInt32(k), shape[k], b_.getInt32(loc(where))});
    llvm::BasicBlock *wrapped_block = b_.GetInsertBlock();
    b_.CreateBr(in_range);
    b_.SetInsertPoint(in_range);
    llvm::PHINode *element = b_.CreatePHI(b_.getInt64Ty(), 2, "index");
    element->addIncoming(index, fast_block);
    element->addIncoming(wrapped, wrapped_block);
    offset = b_.CreateAdd(offset, b_.CreateMul(element, strides[k]));
  }
  llvm::Value *data = b_.CreateExtractValue(array, {0});
  return b_.CreateInBoundsGEP(b_.getInt8Ty(), data, offset);
}

// BoundsCheck::Warn: each index in range (a negative one wrapped, as Python's) is used as it is;
// an access with one out of range is reported, at the first such axis, and the target says where
// it goes instead (or it goes where its indices point, as on a GPU).
llvm::Value *
FunctionLowering::unchecked_element_address(const std::vector<ir::ExprPtr> &operands, size_t first,
                                            ir::Loc where, AccessKind kind, llvm::Value *array,
                                            const std::vector<llvm::Value *> &shape,
                                            const std::vector<llvm::Value *> &strides) {
  const Type &type = operands[0]->type;
  llvm::Value *offset = b_.getInt64(0), *all_in_range = b_.getTrue();
  llvm::Value *bad_index = b_.getInt64(0), *bad_axis = b_.getInt32(0), *bad_size = b_.getInt64(0);
  for (int k = 0; k < type.ndim; ++k) {
    llvm::Value *index = expr(*operands[first + k]);
    llvm::Value *in_range = b_.CreateICmpULT(index, shape[k]);
    llvm::Value *wrapped = b_.CreateAdd(index, shape[k]);
    llvm::Value *wraps = b_.CreateAnd(b_.CreateICmpSLT(index, b_.getInt64(0)),
                                      b_.CreateICmpSGE(wrapped, b_.getInt64(0)));
    llvm::Value *first_bad = b_.CreateAnd(all_in_range, b_.CreateNot(b_.CreateOr(in_range, wraps)));
    bad_index = b_.CreateSelect(first_bad, index, bad_index);
    bad_axis = b_.CreateSelect(first_bad, b_.getInt32(k), bad_axis);
    bad_size = b_.CreateSelect(first_bad, shape[k], bad_size);
    all_in_range = b_.CreateAnd(all_in_range, b_.CreateOr(in_range, wraps));
    llvm::Value *element = b_.CreateSelect(in_range, index, wrapped);
    offset = b_.CreateAdd(offset, b_.CreateMul(element, strides[k]));
  }
  llvm::Value *address =
      b_.CreateGEP(b_.getInt8Ty(), b_.CreateExtractValue(array, {0}), offset, "element");
  llvm::BasicBlock *in_bounds = b_.GetInsertBlock();
  llvm::BasicBlock *out_of_bounds = block("out.of.bounds");
  llvm::BasicBlock *done = block("access");
  b_.CreateCondBr(all_in_range, done, out_of_bounds, likely(ctx()));
  b_.SetInsertPoint(out_of_bounds);
  announce_thread(); // the report names the thread
  const int64_t itemsize = type.record ? type.record->size : byte_size(type.scalar);
  llvm::Value *elsewhere =
      target_.out_of_bounds_access(emitter_, bad_index, bad_axis, bad_size, loc(where), itemsize,
                                   access_description(type.space, kind, itemsize));
  llvm::BasicBlock *reported = b_.GetInsertBlock();
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  llvm::PHINode *target = b_.CreatePHI(address->getType(), 2, "address");
  target->addIncoming(address, in_bounds);
  target->addIncoming(elsewhere ? elsewhere : address, reported);
  return target;
}

llvm::Value *FunctionLowering::checked_index(llvm::Value *index, llvm::Value *extent, int axis,
                                             ir::Loc where) {
  llvm::Value *wrapped =
      b_.CreateSelect(b_.CreateICmpSLT(index, b_.getInt64(0)), b_.CreateAdd(index, extent), index);
  fault_if(b_.CreateICmpUGE(wrapped, extent), index_fault(),
           {index, b_.getInt32(axis), extent, b_.getInt32(loc(where))});
  return wrapped;
}

// A view shares the array's data: an index moves the data pointer and drops its axis; a slice
// moves it to the clamped start and scales the axis' stride by the step (PySlice_AdjustIndices).
llvm::Value *FunctionLowering::array_view(const ir::Expr &e) {
  const Type &type = e.args[0]->type;
  llvm::Value *array = expr(*e.args[0]);
  llvm::Value *data = b_.CreateExtractValue(array, {0});
  llvm::Value *zero = b_.getInt64(0), *one = b_.getInt64(1), *minus_one = b_.getInt64(-1);
  std::vector<llvm::Value *> shape, strides;
  for (int axis = 0; axis < type.ndim; ++axis) {
    llvm::Value *extent = b_.CreateExtractValue(array, {1, unsigned(axis)});
    llvm::Value *stride = b_.CreateExtractValue(array, {2, unsigned(axis)});
    size_t operand = size_t(axis) + 1;
    if (operand >= e.args.size()) {
      shape.push_back(extent);
      strides.push_back(stride);
      continue;
    }
    const ir::Expr &index = *e.args[operand];
    if (index.kind != ir::ExprKind::Slice) {
      llvm::Value *i = checked_index(expr(index), extent, axis, e.loc);
      data = b_.CreateGEP(b_.getInt8Ty(), data, b_.CreateMul(i, stride));
      continue;
    }
    llvm::Value *start = expr(*index.args[0]);
    llvm::Value *stop = expr(*index.args[1]);
    llvm::Value *step = expr(*index.args[2]);
    raise_if(b_.CreateICmpEQ(step, zero), "ValueError", "slice step cannot be zero", e.loc);
    llvm::Value *backward = b_.CreateICmpSLT(step, zero);
    llvm::Value *low = b_.CreateSelect(backward, minus_one, zero);
    llvm::Value *high = b_.CreateSelect(backward, b_.CreateSub(extent, one), extent);
    auto adjust = [&](llvm::Value *v) {
      v = b_.CreateSelect(b_.CreateICmpSLT(v, zero), b_.CreateAdd(v, extent), v);
      v = b_.CreateSelect(b_.CreateICmpSLT(v, zero), low, v);
      return b_.CreateSelect(b_.CreateICmpSGE(v, extent), high, v);
    };
    start = adjust(start);
    stop = adjust(stop);
    // length: (stop - start - 1) / step + 1 when stop lies beyond start in the step's direction
    llvm::Value *distance =
        b_.CreateSelect(backward, b_.CreateSub(start, stop), b_.CreateSub(stop, start));
    llvm::Value *magnitude = b_.CreateSelect(backward, b_.CreateNeg(step), step);
    llvm::Value *length = b_.CreateSelect(
        b_.CreateICmpSGT(distance, zero),
        b_.CreateAdd(b_.CreateSDiv(b_.CreateSub(distance, one), magnitude), one), zero);
    data = b_.CreateGEP(b_.getInt8Ty(), data, b_.CreateMul(start, stride));
    shape.push_back(length);
    strides.push_back(b_.CreateMul(stride, step));
  }
  return make_array_value(b_, int(shape.size()), data, shape, strides);
}

llvm::Value *FunctionLowering::tuple_index(const ir::Expr &e) {
  llvm::Value *tuple = expr(*e.args[0]);
  llvm::Value *index = expr(*e.args[1]);
  int64_t size = int64_t(e.args[0]->type.elems.size());
  llvm::Value *extent = b_.getInt64(size);
  llvm::Value *wrapped =
      b_.CreateSelect(b_.CreateICmpSLT(index, b_.getInt64(0)), b_.CreateAdd(index, extent), index);
  raise_if(b_.CreateICmpUGE(wrapped, extent), "IndexError", "tuple index out of range", e.loc);
  llvm::Value *result = b_.CreateExtractValue(tuple, {unsigned(size - 1)});
  for (int64_t k = size - 2; k >= 0; --k)
    result = b_.CreateSelect(b_.CreateICmpEQ(wrapped, b_.getInt64(k)),
                             b_.CreateExtractValue(tuple, {unsigned(k)}), result);
  return result;
}

llvm::Value *FunctionLowering::atomic(const ir::Expr &e) {
  const Type &array_type = e.args[0]->type;
  Scalar dtype = array_type.scalar;
  size_t first_value = 1 + size_t(array_type.ndim);
  llvm::Value *addr = element_address(e.args, 1, e.loc, AccessKind::Atomic);
  std::vector<llvm::Value *> values;
  for (size_t k = first_value; k < e.args.size(); ++k)
    values.push_back(expr(*e.args[k]));
  access_hook(addr, array_type, dtype, uint32_t(byte_size(dtype)), AccessKind::Atomic, nullptr,
              e.loc);
  llvm::Type *t = memory_type(ctx(), dtype);
  llvm::Align align(byte_size(dtype));
  auto order = llvm::AtomicOrdering::Monotonic;
  const bool floating = is_float(dtype), signed_int = scalar_is_signed(dtype);
  if (dtype == Scalar::Bool || dtype == Scalar::BF16)
    unsupported(std::string("atomics on ") + (dtype == Scalar::Bool ? "bool" : "bfloat16") +
                " arrays");
  if (e.op == ir::Op::AtomicCas) {
    llvm::Value *compare = values[0], *replacement = values[1];
    if (floating) {
      llvm::Type *bits = b_.getIntNTy(bit_width(dtype));
      compare = b_.CreateBitCast(compare, bits);
      replacement = b_.CreateBitCast(replacement, bits);
    }
    auto *cas = b_.CreateAtomicCmpXchg(addr, compare, replacement, align, order, order);
    llvm::Value *old = b_.CreateExtractValue(cas, {0});
    return floating ? b_.CreateBitCast(old, t) : old;
  }
  if (floating && (e.op == ir::Op::AtomicMax || e.op == ir::Op::AtomicMin ||
                   e.op == ir::Op::AtomicNanMax || e.op == ir::Op::AtomicNanMin))
    return float_atomic_minmax(e.op, t, addr, values[0]);
  using B = llvm::AtomicRMWInst::BinOp;
  B op;
  switch (e.op) {
  case ir::Op::AtomicAdd:
    op = floating ? B::FAdd : B::Add;
    break;
  case ir::Op::AtomicSub:
    op = floating ? B::FSub : B::Sub;
    break;
  case ir::Op::AtomicMax:
  case ir::Op::AtomicNanMax:
    op = signed_int ? B::Max : B::UMax;
    break;
  case ir::Op::AtomicMin:
  case ir::Op::AtomicNanMin:
    op = signed_int ? B::Min : B::UMin;
    break;
  case ir::Op::AtomicAnd:
    op = B::And;
    break;
  case ir::Op::AtomicOr:
    op = B::Or;
    break;
  case ir::Op::AtomicXor:
    op = B::Xor;
    break;
  case ir::Op::AtomicExch:
    op = B::Xchg;
    break;
  case ir::Op::AtomicInc:
    op = B::UIncWrap;
    break; // old >= val ? 0 : old + 1
  case ir::Op::AtomicDec:
    op = B::UDecWrap;
    break; // (old == 0 || old > val) ? val : old - 1
  default:
    throw std::logic_error("simt: bad atomic operator");
  }
  if (floating && op != B::FAdd && op != B::FSub && op != B::Xchg)
    unsupported("this atomic operation on floats");
  return b_.CreateAtomicRMW(op, addr, values[0], align, order);
}

// atomic.max/min on floats, as Numba's CUDA helpers (___numba_atomic_double_max ...): a NaN in
// either operand leaves the location as it is (a NaN value is ignored, a NaN location stays).
// nanmax/nanmin ignore a NaN value and replace a NaN location. A compare-exchange loop, since
// LLVM's fmax/fmin rmw differ at NaN.
llvm::Value *FunctionLowering::float_atomic_minmax(ir::Op op, llvm::Type *t, llvm::Value *addr,
                                                   llvm::Value *value) {
  llvm::Type *bits = b_.getIntNTy(t->getPrimitiveSizeInBits());
  llvm::Align align(t->getPrimitiveSizeInBits() / 8);
  auto order = llvm::AtomicOrdering::Monotonic;
  llvm::BasicBlock *before = b_.GetInsertBlock();
  llvm::LoadInst *initial = b_.CreateAlignedLoad(bits, addr, align);
  initial->setAtomic(order);
  llvm::BasicBlock *loop = block("atomic.loop");
  llvm::BasicBlock *exchange = block("atomic.cas");
  llvm::BasicBlock *done = block("atomic.done");
  b_.CreateBr(loop);
  b_.SetInsertPoint(loop);
  llvm::PHINode *old_bits = b_.CreatePHI(bits, 2);
  old_bits->addIncoming(initial, before);
  llvm::Value *old = b_.CreateBitCast(old_bits, t);
  llvm::Value *keep_old;
  if (op == ir::Op::AtomicMax || op == ir::Op::AtomicMin) {
    // unordered comparisons: true when either is NaN, or old already wins
    keep_old =
        op == ir::Op::AtomicMax ? b_.CreateFCmpUGE(old, value) : b_.CreateFCmpULE(old, value);
  } else {
    // nanmax/nanmin: a NaN `value` is ignored and a NaN `old` replaced.
    keep_old =
        op == ir::Op::AtomicNanMax ? b_.CreateFCmpOGE(old, value) : b_.CreateFCmpOLE(old, value);
    keep_old = b_.CreateOr(keep_old, b_.CreateFCmpUNO(value, value));
  }
  b_.CreateCondBr(keep_old, done, exchange);
  b_.SetInsertPoint(exchange);
  auto *cas =
      b_.CreateAtomicCmpXchg(addr, old_bits, b_.CreateBitCast(value, bits), align, order, order);
  old_bits->addIncoming(b_.CreateExtractValue(cas, {0}), exchange);
  b_.CreateCondBr(b_.CreateExtractValue(cas, {1}), done, loop);
  b_.SetInsertPoint(done);
  return b_.CreateBitCast(old_bits, t);
}

// Fields of aligned records are naturally aligned (NumPy pads them); packed ones may not be.
llvm::Value *FunctionLowering::field_address(llvm::Value *record, const Record &layout, int field,
                                             llvm::Align &align) {
  const RecordField &f = layout.fields[field];
  align = llvm::Align(layout.aligned ? byte_size(f.scalar) : 1);
  return b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), record, f.offset, f.name);
}

llvm::Value *FunctionLowering::field_load(const ir::Expr &e) {
  const Record &layout = *e.args[0]->type.record;
  Scalar scalar = layout.fields[e.index].scalar;
  llvm::Align align;
  llvm::Value *addr = field_address(expr(*e.args[0]), layout, e.index, align);
  if (e.type.is_array()) { // a nested array field: a view of the record's bytes
    const RecordField &field = layout.fields[e.index];
    return memory_array(addr, scalar, field.shape, field.record ? field.record->size : 0);
  }
  if (e.type.is_record()) // a nested record field: its address, as records are
    return addr;
  return load(addr, e.args[0]->type, scalar, align, e.loc);
}

void FunctionLowering::field_store(const ir::Stmt &s) {
  const Record &layout = *s.exprs[0]->type.record;
  if (const auto &nested = layout.fields[s.field].record) { // a nested record: its bytes copied
    llvm::Value *source = expr(*s.exprs[1]);
    llvm::Align align;
    llvm::Value *target = field_address(expr(*s.exprs[0]), layout, s.field, align);
    copy_record(target, source, nested->size, s.exprs[0]->type, s.loc);
    return;
  }
  Scalar scalar = layout.fields[s.field].scalar;
  // Python evaluates the value before the target.
  llvm::Value *value = register_to_memory(b_, expr(*s.exprs[1]), scalar);
  llvm::Align align;
  llvm::Value *addr = field_address(expr(*s.exprs[0]), layout, s.field, align);
  store(addr, s.exprs[0]->type, scalar, value, align, s.loc);
}

void FunctionLowering::record_copy(const ir::Stmt &s) {
  const Record &layout = *s.exprs[0]->type.record;
  llvm::Value *source = expr(*s.exprs.back());
  llvm::Value *target = element_address(s.exprs, 1, s.loc, AccessKind::Store);
  copy_record(target, source, layout.size, s.exprs[0]->type, s.loc);
}

} // namespace simt::codegen
