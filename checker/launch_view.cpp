#include "checker/launch_view.h"

#include "codegen/backend.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace simt::checker {

namespace {

const char *space_name(MemSpace space) {
  switch (space) {
  case MemSpace::Shared:
    return "shared";
  case MemSpace::Local:
    return "local";
  default:
    return "global";
  }
}

// "buf[3]", "a[1, 2]": the element of an array with `shape` and byte `strides` at byte `offset`
// from its data; "" when no element starts there.
std::string element_text(const std::string &name, int64_t offset, int64_t itemsize,
                         const std::vector<int64_t> &shape, const std::vector<int64_t> &strides) {
  std::vector<size_t> order(shape.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return std::abs(strides[a]) > std::abs(strides[b]); });
  std::vector<int64_t> index(shape.size(), 0);
  int64_t rest = offset;
  for (size_t axis : order) {
    if (strides[axis] <= 0 || shape[axis] <= 1)
      continue;
    index[axis] = std::min(rest / strides[axis], shape[axis] - 1);
    rest -= index[axis] * strides[axis];
  }
  if (rest < 0 || rest >= itemsize)
    return "";
  std::string text = (name.empty() ? std::string("?") : name) + "[";
  for (size_t i = 0; i < index.size(); ++i)
    text += (i ? ", " : "") + std::to_string(index[i]);
  return text + "]";
}

// A shared array's shape in this launch (a dynamic one: as many elements as its memory holds).
std::vector<int64_t> shared_shape(const sim::NamedArray &array, uint64_t dynamic_bytes) {
  if (array.dynamic)
    return {int64_t(dynamic_bytes) / array.itemsize};
  return array.shape;
}

int64_t array_bytes(const std::vector<int64_t> &shape, int64_t itemsize) {
  int64_t bytes = itemsize;
  for (int64_t extent : shape)
    bytes *= extent;
  return bytes;
}

std::vector<int64_t> c_strides(const std::vector<int64_t> &shape, int64_t itemsize) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = itemsize;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

} // namespace

const char *action_name(AccessType type) {
  switch (type) {
  case AccessType::Read:
    return "read";
  case AccessType::Write:
    return "write";
  case AccessType::Atomic:
    return "atomic";
  }
  return "?";
}

AccessType access_type(codegen::AccessKind kind) {
  using codegen::AccessKind;
  return kind == AccessKind::Load    ? AccessType::Read
         : kind == AccessKind::Store ? AccessType::Write
                                     : AccessType::Atomic;
}

std::string ids(const sim::Dim3 &d) {
  char text[48];
  std::snprintf(text, sizeof text, "(%u,%u,%u)", d.x, d.y, d.z);
  return text;
}

sim::Dim3 dim3(const int32_t (&v)[3]) { return {uint32_t(v[0]), uint32_t(v[1]), uint32_t(v[2])}; }

sim::Dim3 unravel(uint64_t linear, const sim::Dim3 &extent) {
  return {uint32_t(linear % extent.x), uint32_t(linear / extent.x % extent.y),
          uint32_t(linear / extent.x / extent.y)};
}

int64_t shared_array_bytes(const sim::NamedArray &array, uint64_t dynamic_bytes) {
  return array_bytes(shared_shape(array, dynamic_bytes), array.itemsize);
}

void LaunchView::launch_started(const sim::KernelCode &kernel, const sim::LaunchConfig &config,
                                bool parallel) {
  kernel_ = &kernel;
  config_ = config;
  parallel_ = parallel;
  globals_.clear();
  records_.clear();
  locals_.clear();
}

void LaunchView::note_arguments(void *const *args) {
  for (const sim::NamedArray &array : kernel_->arrays) {
    if (array.space != MemSpace::Global)
      continue;
    const auto *header = static_cast<const codegen::ArrayHeader *>(args[array.parameter]);
    GlobalArray global{
        &array, uintptr_t(header->data), uintptr_t(header->data), uintptr_t(header->data), {}, {}};
    if (array.ndim == 0) { // a record argument: the GPU gets a copy of it, suitably aligned
      global.high = global.low + uint64_t(array.itemsize);
      records_.push_back(global);
      continue;
    }
    bool empty = false;
    int64_t low = 0, high = array.itemsize;
    for (int axis = 0; axis < array.ndim; ++axis) {
      const int64_t extent = header->dims[axis], stride = header->dims[array.ndim + axis];
      global.shape.push_back(extent);
      global.strides.push_back(stride);
      empty = empty || extent == 0;
      (stride < 0 ? low : high) += (extent - 1) * stride;
    }
    if (empty)
      continue;
    global.low = global.data + low;
    global.high = global.data + high;
    globals_.push_back(global);
  }
}

const sim::NamedArray *LaunchView::announced_local(const sim::MemoryAccess &access) const {
  const int function = int(access.value >> 32), index = int(access.value & 0xffffffff);
  const sim::NamedArray *array = nullptr;
  int seen = 0;
  for (const sim::NamedArray &candidate : kernel_->arrays)
    if (candidate.space == MemSpace::Local && candidate.function == function && seen++ == index)
      array = &candidate;
  return array;
}

void LaunchView::note_local_array(const sim::ThreadContext &ctx, const sim::MemoryAccess &access) {
  const sim::NamedArray *array = announced_local(access);
  if (array == nullptr)
    return;
  std::vector<LocalArray> &mine = locals_[linear_block(ctx)][linear_thread(ctx)];
  std::erase_if(mine, [&](const LocalArray &old) {
    return old.address < uintptr_t(access.address) + access.size &&
           uintptr_t(access.address) < old.address + old.bytes;
  });
  mine.push_back(LocalArray{uintptr_t(access.address), access.size, array});
}

void LaunchView::launch_finished() {
  locals_.clear();
  kernel_ = nullptr;
}

uint64_t LaunchView::spanned_bytes() const {
  uint64_t bytes = kernel_ != nullptr ? shared_bytes() : 0;
  for (const GlobalArray &global : globals_)
    bytes += global.high - global.low;
  return bytes;
}

LaunchView::Place LaunchView::place(const sim::ThreadContext &ctx, uintptr_t address,
                                    MemSpace space) const {
  auto named = [](const sim::NamedArray &array, const std::string &element) {
    const std::string name = "`" + (array.name.empty() ? std::string("?") : array.name) + "`";
    if (array.ndim == 0)
      return Place{"record argument " + name, &array};
    return Place{std::string(space_name(array.space)) + " array " + name +
                     (element.empty() ? "" : " (" + element + ")"),
                 &array};
  };
  if (space == MemSpace::Global) {
    for (const GlobalArray &record : records_) // first: a record argument may be an element
      if (address >= record.low && address < record.high)
        return named(*record.array, "");
    for (const GlobalArray &global : globals_)
      if (address >= global.low && address < global.high)
        return named(*global.array,
                     element_text(global.array->name, int64_t(address - global.data),
                                  global.array->itemsize, global.shape, global.strides));
  } else if (space == MemSpace::Shared) {
    for (const sim::NamedArray &array : kernel_->arrays) {
      if (array.space != MemSpace::Shared)
        continue;
      const uintptr_t base = uintptr_t(ctx.shared) + uintptr_t(array.offset);
      const std::vector<int64_t> shape = shared_shape(array, config_.dynamic_shared_bytes);
      if (address >= base && address < base + uint64_t(array_bytes(shape, array.itemsize)))
        return named(array, element_text(array.name, int64_t(address - base), array.itemsize, shape,
                                         c_strides(shape, array.itemsize)));
    }
  } else if (space == MemSpace::Local) {
    const std::vector<LocalArray> none;
    const std::vector<LocalArray> *mine = &none;
    if (auto running = locals_.find(linear_block(ctx)); running != locals_.end())
      if (auto found = running->second.find(linear_thread(ctx)); found != running->second.end())
        mine = &found->second;
    for (const LocalArray &local : *mine)
      if (address >= local.address && address < local.address + local.bytes)
        return named(*local.array,
                     element_text(local.array->name, int64_t(address - local.address),
                                  local.array->itemsize, local.array->shape,
                                  c_strides(local.array->shape, local.array->itemsize)));
  }
  char text[64];
  std::snprintf(text, sizeof text, "%s memory at 0x%llx", space_name(space),
                static_cast<unsigned long long>(address));
  return Place{text, nullptr};
}

std::string LaunchView::in_blocks(const sim::ThreadContext &ctx, uint64_t other_block) const {
  const sim::Dim3 mine = dim3(ctx.ctaid);
  if (other_block == linear_block(ctx))
    return "in block " + ids(mine);
  return "between blocks " + ids(unravel(other_block, config_.grid)) + " and " + ids(mine);
}

sim::SourceLocation LaunchView::location(int32_t loc) const {
  return kernel_ != nullptr ? kernel_->location(loc) : sim::SourceLocation{};
}

Side LaunchView::side(const sim::ThreadContext &ctx, std::string action, int32_t loc) const {
  return Side{std::move(action), dim3(ctx.tid), dim3(ctx.ctaid), location(loc), ""};
}

} // namespace simt::checker
