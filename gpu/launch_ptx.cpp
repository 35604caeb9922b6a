#include "gpu/launch_ptx.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>

namespace simt::gpu {

int64_t HostArray::nitems() const {
  int64_t n = 1;
  for (int64_t extent : shape)
    n *= extent;
  return n;
}

ByteSpan byte_span(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides,
                   int64_t itemsize) {
  if (shape.size() != strides.size())
    throw std::invalid_argument("simt: an array has " + std::to_string(shape.size()) +
                                " extents but " + std::to_string(strides.size()) + " strides");
  ByteSpan span;
  int64_t end = itemsize;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0)
      throw std::invalid_argument("simt: an array has a negative extent");
    if (shape[d] == 0)
      return ByteSpan{};
    int64_t reach = (shape[d] - 1) * strides[d];
    if (reach < 0)
      span.begin += reach;
    else
      end += reach;
  }
  span.size = end - span.begin;
  return span;
}

bool is_dense(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides,
              int64_t itemsize) {
  std::vector<std::pair<int64_t, int64_t>> axes; // (|stride|, extent) of axes longer than 1
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0)
      return true;
    if (shape[d] > 1)
      axes.push_back({strides[d] < 0 ? -strides[d] : strides[d], shape[d]});
  }
  std::sort(axes.begin(), axes.end());
  int64_t expected = itemsize;
  for (auto [stride, extent] : axes) {
    if (stride != expected)
      return false;
    expected *= extent;
  }
  return true;
}

KernelArgument KernelArgument::scalar(const void *value, size_t size, int parts) {
  if (parts < 1 || size % size_t(parts) != 0)
    throw std::invalid_argument("simt: a scalar of " + std::to_string(size) +
                                " bytes cannot be split into " + std::to_string(parts) +
                                " parameters");
  KernelArgument arg;
  arg.kind = Kind::Scalar;
  arg.bytes.assign(static_cast<const uint8_t *>(value), static_cast<const uint8_t *>(value) + size);
  arg.parts = parts;
  return arg;
}

KernelArgument KernelArgument::of(HostArray array) {
  KernelArgument arg;
  arg.kind = Kind::Array;
  arg.array = std::move(array);
  return arg;
}

void KernelParams::add(const void *value, size_t size) {
  const auto *bytes = static_cast<const uint8_t *>(value);
  values_.emplace_back(bytes, bytes + size);
  pointers_.clear();
}

void KernelParams::add_array(uint64_t device_data, const std::vector<int64_t> &shape,
                             const std::vector<int64_t> &strides, int64_t itemsize) {
  int64_t nitems = 1;
  for (int64_t extent : shape)
    nitems *= extent;
  add(uint64_t(0)); // meminfo
  add(uint64_t(0)); // parent
  add(nitems);
  add(itemsize);
  add(device_data);
  for (int64_t extent : shape)
    add(extent);
  for (int64_t stride : strides)
    add(stride);
}

void KernelParams::add_scalar(const KernelArgument &scalar) {
  size_t part = scalar.bytes.size() / size_t(scalar.parts);
  for (int i = 0; i < scalar.parts; ++i)
    add(scalar.bytes.data() + size_t(i) * part, part);
}

void **KernelParams::pointers() {
  pointers_.clear();
  for (auto &value : values_)
    pointers_.push_back(value.data());
  return pointers_.data();
}

std::string fault_kind(int32_t code) {
  if (code == index_error_code)
    return "IndexError";
  if (code >= first_raise_code)
    return "exception";
  return "code " + std::to_string(code);
}

std::string describe(const DeviceFault &f) {
  auto triple = [](const int32_t v[3]) {
    std::string text = "[";
    for (int i = 0; i < 3; ++i)
      text.append(i ? ", " : "").append(std::to_string(v[i]));
    return text.append("]");
  };
  std::string text = fault_kind(f.code);
  text.append(" at location ").append(std::to_string(f.location));
  text.append(", tid=").append(triple(f.thread));
  text.append(" ctaid=").append(triple(f.block));
  return text;
}

namespace {

// Calls `visit(byte offset of the element from data)` for every element, in C order.
template <class F>
void for_each_element(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides,
                      F visit) {
  for (int64_t extent : shape)
    if (extent == 0)
      return;
  std::vector<int64_t> index(shape.size(), 0);
  int64_t offset = 0;
  for (;;) {
    visit(offset);
    size_t d = shape.size();
    for (;;) {
      if (d == 0)
        return;
      --d;
      if (++index[d] < shape[d]) {
        offset += strides[d];
        break;
      }
      offset -= (shape[d] - 1) * strides[d];
      index[d] = 0;
    }
  }
}

// One device allocation for each set of array arguments whose host bytes overlap (a kernel given
// views of one buffer, as cuda.reduce's last launch is given `partials` twice), so that they
// alias on the device as on the host: separate copies would lose one view's writes.
class DeviceArrays {
public:
  DeviceArrays(const std::vector<KernelArgument> &args, Driver &driver);
  // The device address of argument i's element [0, ..., 0] (0 for an array without elements).
  uint64_t data(size_t i) const;
  // Each array with copy_back gets its elements back, in argument order.
  void copy_back(std::vector<KernelArgument> &args) const;

private:
  struct Allocation {
    DeviceMemory memory;
    intptr_t host_begin; // the host address its first byte mirrors
  };
  struct Placement {
    size_t allocation = 0;
    intptr_t host_begin = 0; // the address of the array's first byte (data + span.begin)
    ByteSpan span;
  };
  std::vector<Allocation> allocations_;
  std::vector<std::optional<Placement>> placements_; // by argument; none for scalars, no elements
};

void check_array(const HostArray &a, size_t i) {
  if (a.itemsize <= 0)
    throw std::invalid_argument("simt: argument " + std::to_string(i) +
                                " is an array of itemsize " + std::to_string(a.itemsize));
  if (a.data == nullptr && byte_span(a.shape, a.strides, a.itemsize).size != 0)
    throw std::invalid_argument("simt: argument " + std::to_string(i) +
                                " is an array without data");
}

DeviceArrays::DeviceArrays(const std::vector<KernelArgument> &args, Driver &driver)
    : placements_(args.size()) {
  std::vector<size_t> order; // the arrays with elements, by the address of their first byte
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind != KernelArgument::Kind::Array)
      continue;
    const HostArray &a = args[i].array;
    check_array(a, i);
    ByteSpan span = byte_span(a.shape, a.strides, a.itemsize);
    if (span.size == 0)
      continue;
    placements_[i] = Placement{0, reinterpret_cast<intptr_t>(a.data) + span.begin, span};
    order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return placements_[x]->host_begin < placements_[y]->host_begin;
  });
  auto end_of = [&](size_t i) { return placements_[i]->host_begin + placements_[i]->span.size; };
  for (size_t first = 0; first < order.size();) {
    const intptr_t begin = placements_[order[first]]->host_begin;
    intptr_t end = end_of(order[first]);
    size_t last = first + 1;
    for (; last < order.size() && placements_[order[last]]->host_begin < end; ++last)
      end = std::max(end, end_of(order[last]));
    DeviceMemory memory(size_t(end - begin), driver);
    memory.copy_from_host(reinterpret_cast<const void *>(begin), size_t(end - begin));
    for (size_t k = first; k < last; ++k)
      placements_[order[k]]->allocation = allocations_.size();
    allocations_.push_back({std::move(memory), begin});
    first = last;
  }
}

uint64_t DeviceArrays::data(size_t i) const {
  if (!placements_[i])
    return 0;
  const Placement &p = *placements_[i];
  const Allocation &a = allocations_[p.allocation];
  return a.memory.address() + uint64_t(p.host_begin - a.host_begin) + uint64_t(-p.span.begin);
}

void DeviceArrays::copy_back(std::vector<KernelArgument> &args) const {
  for (size_t i = 0; i < args.size(); ++i) {
    if (!placements_[i] || !args[i].array.copy_back)
      continue;
    const Placement &p = *placements_[i];
    const Allocation &allocation = allocations_[p.allocation];
    const size_t offset = size_t(p.host_begin - allocation.host_begin);
    HostArray &a = args[i].array;
    if (is_dense(a.shape, a.strides, a.itemsize)) {
      allocation.memory.copy_to_host(reinterpret_cast<void *>(p.host_begin), size_t(p.span.size),
                                     offset);
      continue;
    }
    // Only the elements go back: the gaps between them may belong to other arguments.
    std::vector<char> staging(size_t(p.span.size));
    allocation.memory.copy_to_host(staging.data(), staging.size(), offset);
    auto *host = static_cast<char *>(a.data);
    const size_t itemsize = size_t(a.itemsize);
    for_each_element(a.shape, a.strides, [&](int64_t element) {
      std::memcpy(host + element, staging.data() + (element - p.span.begin), itemsize);
    });
  }
}

} // namespace

std::optional<DeviceFault> launch_kernel(const std::string &ptx, const std::string &entry,
                                         Dim3 grid, Dim3 block, uint64_t dynamic_shared,
                                         bool cooperative, std::vector<KernelArgument> &args,
                                         float *kernel_ms, int device,
                                         std::chrono::milliseconds limit) {
  Driver &driver = Driver::get();
  driver.make_current(device);
  Module module(ptx, driver);
  return launch_kernel(module, entry, grid, block, dynamic_shared, cooperative, args, kernel_ms,
                       limit);
}

std::optional<DeviceFault> launch_kernel(const Module &module, const std::string &entry, Dim3 grid,
                                         Dim3 block, uint64_t dynamic_shared, bool cooperative,
                                         std::vector<KernelArgument> &args, float *kernel_ms,
                                         std::chrono::milliseconds limit) {
  if (dynamic_shared > UINT_MAX)
    throw std::invalid_argument("simt: " + std::to_string(dynamic_shared) +
                                " bytes of dynamic shared memory are more than a launch takes");
  Driver &driver = module.driver();
  cu::CUfunction function = module.function(entry);
  // The first 8 words (code, site, thread, block) at least; all 16 of simt's record.
  Module::Global record = module.global(exception_record_name);
  if (record.address != 0 && record.bytes < 8 * sizeof(int32_t))
    record = Module::Global{};
  const size_t record_bytes =
      std::min(record.bytes, size_t(exception_record_words) * sizeof(int32_t));
  if (record.address != 0) {
    const int32_t zeros[exception_record_words] = {};
    driver.check(driver.api().cuMemcpyHtoD(record.address, zeros, record_bytes), "cuMemcpyHtoD");
  }

  const DeviceArrays arrays(args, driver);
  KernelParams params;
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArgument &arg = args[i];
    if (arg.kind == KernelArgument::Kind::Scalar)
      params.add_scalar(arg);
    else
      params.add_array(arrays.data(i), arg.array.shape, arg.array.strides, arg.array.itemsize);
  }

  std::optional<Event> start, end;
  if (kernel_ms != nullptr) {
    start.emplace(driver);
    end.emplace(driver);
    start->record(nullptr);
  }
  launch(function, grid, block, unsigned(dynamic_shared), nullptr, params.pointers(), cooperative,
         driver);
  if (kernel_ms != nullptr)
    end->record(nullptr);
  if (limit.count() > 0)
    driver.synchronize(limit);
  else
    driver.synchronize();
  if (kernel_ms != nullptr)
    *kernel_ms = end->elapsed_since(*start);

  std::optional<DeviceFault> fault;
  if (record.address != 0) {
    std::vector<int32_t> words(record_bytes / sizeof(int32_t));
    driver.check(driver.api().cuMemcpyDtoH(words.data(), record.address, record_bytes),
                 "cuMemcpyDtoH");
    if (words[0] != 0) {
      DeviceFault f;
      f.code = words[0];
      f.location = words[1];
      std::copy(words.begin() + 2, words.begin() + 5, f.thread);
      std::copy(words.begin() + 5, words.begin() + 8, f.block);
      f.record = std::move(words);
      fault = f;
    }
  }

  arrays.copy_back(args);
  return fault;
}

} // namespace simt::gpu
