#include "sim/launch.h"

namespace simt::sim {

std::vector<NamedArray> named_arrays(const ir::Module &module) {
  std::vector<NamedArray> arrays;
  auto element = [](NamedArray &array, Scalar dtype, const Record *record) {
    array.dtype = dtype;
    array.record = record != nullptr;
    array.itemsize = record != nullptr ? int64_t(record->size) : int64_t(byte_size(dtype));
  };
  const ir::Function &kernel = module.kernel();
  for (int i = 0; i < kernel.num_params; ++i) {
    const ir::Slot &param = kernel.slots[size_t(i)];
    if (!param.type.is_array() && !param.type.is_record())
      continue;
    NamedArray array;
    array.name = param.name;
    array.parameter = i;
    array.ndim = param.type.is_array() ? param.type.ndim : 0; // a record: its own bytes
    element(array, param.type.scalar, param.type.record.get());
    arrays.push_back(std::move(array));
  }
  for (const ir::SharedArrayDecl &decl : module.shared_arrays) {
    NamedArray array;
    array.name = decl.name;
    array.space = MemSpace::Shared;
    array.offset = decl.offset;
    array.dynamic = decl.dynamic;
    array.shape = decl.shape;
    array.ndim = decl.dynamic ? 1 : int(decl.shape.size());
    element(array, decl.elements.dtype, decl.elements.record.get());
    arrays.push_back(std::move(array));
  }
  for (size_t f = 0; f < module.functions.size(); ++f)
    for (const ir::LocalArrayDecl &decl : module.functions[f].local_arrays) {
      NamedArray array;
      array.name = decl.name;
      array.space = MemSpace::Local;
      array.function = int(f);
      array.shape = decl.shape;
      array.ndim = int(decl.shape.size());
      element(array, decl.elements.dtype, decl.elements.record.get());
      arrays.push_back(std::move(array));
    }
  return arrays;
}

} // namespace simt::sim
