#include "checker/checker.h"

#include "codegen/backend.h"
#include "sim/launch_state.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <malloc.h>
#include <numeric>
#include <set>

namespace simt::checker {

namespace {

using codegen::AccessKind;

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

AccessType access_type(AccessKind kind) {
  return kind == AccessKind::Load    ? AccessType::Read
         : kind == AccessKind::Store ? AccessType::Write
                                     : AccessType::Atomic;
}

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

// A shared array's shape in this launch (a dynamic one: as many elements as its memory holds),
// and its bytes.
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

// Python's repr of a float (NumPy prints its scalars so): the shortest digits that read back,
// fixed between 1e-4 and 1e16, else scientific; "2.0", not "2".
template <typename Float> std::string float_text(Float value) {
  char text[64];
  const Float magnitude = value < 0 ? -value : value;
  const bool scientific = magnitude != 0 && (magnitude < Float(1e-4) || magnitude >= Float(1e16));
  auto [end, error] =
      std::to_chars(text, text + sizeof text, value,
                    scientific ? std::chars_format::scientific : std::chars_format::fixed);
  std::string out(text, end);
  if (out.find_first_of(".ena") == std::string::npos)
    out += ".0";
  return out;
}

float half_to_float(uint16_t half) {
  const uint32_t sign = uint32_t(half >> 15) << 31, exponent = (half >> 10) & 0x1f,
                 mantissa = half & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) // inf, NaN
    bits = sign | 0x7f800000u | mantissa << 13;
  else if (exponent != 0)
    bits = sign | (exponent + 112) << 23 | mantissa << 13;
  else if (mantissa == 0)
    bits = sign;
  else { // subnormal: normalise
    int shift = 0;
    uint32_t m = mantissa;
    while ((m & 0x400) == 0) {
      m <<= 1;
      ++shift;
    }
    bits = sign | uint32_t(113 - shift) << 23 | (m & 0x3ff) << 13;
  }
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

float low_float(uint64_t bits) {
  float value;
  const uint32_t word = uint32_t(bits);
  std::memcpy(&value, &word, 4);
  return value;
}

} // namespace

std::string format_value(uint64_t bits, Scalar dtype) {
  switch (dtype) {
  case Scalar::Bool:
    return bits != 0 ? "True" : "False";
  case Scalar::F16:
    return float_text(half_to_float(uint16_t(bits)));
  case Scalar::BF16: // float32's top half
    return float_text(low_float(bits << 16 & 0xffff0000u));
  case Scalar::F32:
    return float_text(low_float(bits));
  case Scalar::F64: {
    double value;
    std::memcpy(&value, &bits, 8);
    return float_text(value);
  }
  case Scalar::C64: { // Python's complex repr: (1+2j)
    const float imaginary = low_float(bits >> 32);
    std::string imag = float_text(imaginary);
    if (imag.ends_with(".0"))
      imag.resize(imag.size() - 2);
    std::string real = float_text(low_float(bits));
    if (real.ends_with(".0"))
      real.resize(real.size() - 2);
    return "(" + real + (imaginary < 0 || imag[0] == '-' ? "" : "+") + imag + "j)";
  }
  case Scalar::I8:
    return std::to_string(int8_t(bits));
  case Scalar::I16:
    return std::to_string(int16_t(bits));
  case Scalar::I32:
    return std::to_string(int32_t(bits));
  case Scalar::I64:
    return std::to_string(int64_t(bits));
  case Scalar::U8:
  case Scalar::U16:
  case Scalar::U32:
  case Scalar::U64:
    return std::to_string(bits);
  default: { // complex128 does not fit the 64 bits an access reports
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(bits));
    return text;
  }
  }
}

namespace {

// What InitTracker states the checkers need to see the accesses of.
unsigned watched_states(const CheckOptions &options, bool device) {
  return (options.init ? 1u << InitTracker::Uninitialised : 0u) |
         (options.mem && device ? 1u << InitTracker::Freed : 0u);
}

// "512.0 MiB": `bytes` in the unit that suits it.
std::string size_text(uint64_t bytes) {
  char text[32];
  if (bytes < (uint64_t(1) << 20))
    std::snprintf(text, sizeof text, "%.1f KiB", double(bytes) / 1024);
  else if (bytes < (uint64_t(1) << 30))
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1 << 20));
  else
    std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / double(1 << 30));
  return text;
}

// Whether an access of an element of `array` (laid out as `global`) may miss the alignment a GPU
// needs: a record's fields, or data or strides that are not multiples of a scalar's alignment.
bool may_misalign(const sim::NamedArray &array, uintptr_t data,
                  const std::vector<int64_t> &strides) {
  if (array.record || array.ndim == 0)
    return true;
  const int64_t align = is_complex(array.dtype) ? array.itemsize / 2 : array.itemsize;
  if (align <= 1)
    return false;
  bool aligned = data % uint64_t(align) == 0;
  for (int64_t stride : strides)
    aligned = aligned && stride % align == 0;
  return !aligned;
}

} // namespace

Checker::Checker(const CheckOptions &options)
    : options_(options), schedule_(options.schedule, options.seed),
      device_(watched_, watched_states(options, true)),
      scratch_(watched_, watched_states(options, false)) {}

const sim::WatchedPages *Checker::watched_pages() const {
  return options_.race ? nullptr : &watched_; // racecheck sees every shared and global access
}

void Checker::watch_alignment(const GlobalArray &global) {
  if (!options_.mem || !may_misalign(*global.array, global.data, global.strides))
    return;
  const uintptr_t page_size = uintptr_t(1) << sim::WatchedPages::kPageBits;
  const uintptr_t first = global.low & ~(page_size - 1);
  // Room first: a page watched is a page recorded, to be unwatched, even when memory runs out.
  alignment_watched_.reserve(alignment_watched_.size() + (global.high - first) / page_size + 1);
  for (uintptr_t page = first; page < global.high; page += page_size) {
    watched_.watch(page);
    alignment_watched_.push_back(page);
  }
}

template <typename Work> void Checker::run(Tool tool, Work &&work) noexcept {
  if (out_of_memory_.load(std::memory_order_relaxed))
    return;
  try {
    work();
  } catch (const std::bad_alloc &) {
    ran_out(tool);
  }
}

void Checker::ran_out(Tool tool) noexcept {
  if (out_of_memory_.exchange(true))
    return;
  uint64_t arrays = kernel_ != nullptr ? shared_bytes() : 0;
  for (const GlobalArray &global : globals_)
    arrays += global.high - global.low;
  // Racecheck keeps Shadow::kCells 8-byte cells per 8-byte granule of memory.
  shortage_ = {tool, tool == Tool::Race ? Shadow::kCells * arrays : 0,
               tool == Tool::Race ? races_.shadow_bytes() : device_.bytes() + scratch_.bytes(),
               arrays};
}

void Checker::throw_if_out_of_memory(const std::string &kernel) {
  if (!out_of_memory_.exchange(false))
    return;
  std::string doing = "in kernel `" + kernel + "`";
  if (shortage_.needed != 0)
    doing += " (its arrays: " + size_text(shortage_.arrays) + ")";
  throw ShadowOutOfMemory(out_of_memory_text(shortage_.tool, doing, shortage_.needed,
                                             shortage_.held,
                                             " The kernel ran to its end, unchecked from there."));
}

std::string Checker::out_of_memory_text(Tool tool, const std::string &doing, uint64_t needed,
                                        uint64_t held, const char *then) {
  std::string text = std::string("simt check: ") + tool_name(tool) + " ran out of memory " + doing;
  if (needed != 0)
    text += ", which needs " + size_text(needed) + " of shadow memory (" +
            (tool == Tool::Race ? "4 bytes per byte of memory kernels access"
                                : "a byte per byte of memory it tracks") +
            ")";
  return text + "; it held " + size_text(held) + " when an allocation failed." + then +
         " Give the process more memory, check smaller arrays, or fewer tools at once (--tool).";
}

sim::LaunchHooks Checker::hooks() {
  sim::LaunchHooks hooks;
  hooks.observers = observers_;
  if (options_.schedule != ScheduleKind::InOrder) {
    hooks.choice = &schedule_;
    hooks.order = &schedule_;
  }
  return hooks;
}

void Checker::allocated(uintptr_t address, uint64_t bytes, Scalar dtype, uint64_t itemsize,
                        bool host_scanned) {
  try {
    device_.track(address, bytes, dtype, itemsize, host_scanned);
  } catch (const std::bad_alloc &) {
    device_.forget(address, bytes); // what it tracked of it: nothing of it is tracked
    throw ShadowOutOfMemory(
        out_of_memory_text(options_.mem && !options_.init ? Tool::Mem : Tool::Init,
                           "tracking a device array of " + size_text(bytes),
                           InitTracker::bytes_for(bytes), device_.bytes()));
  }
}

void Checker::written(uintptr_t address, uint64_t bytes) { device_.written(address, bytes); }

void Checker::freed(uintptr_t address, uint64_t bytes) {
  any_freed_ = true;
  races_.forget(address, bytes, kernel_ == nullptr);
  try {
    device_.set(address, bytes, InitTracker::Freed);
  } catch (const std::bad_alloc &) {
    throw ShadowOutOfMemory(
        out_of_memory_text(Tool::Mem, "marking " + size_text(bytes) + " of device memory freed",
                           InitTracker::bytes_for(bytes), device_.bytes()));
  }
}

void Checker::forget(uintptr_t address, uint64_t bytes) {
  device_.forget(address, bytes);
  races_.forget(address, bytes, kernel_ == nullptr);
}

void Checker::launch_started(const sim::KernelCode &kernel, const sim::LaunchConfig &config,
                             void *const *args) {
  kernel_ = &kernel;
  config_ = config;
  barrier_released_ = false;
  ++launches_;
  findings_in_launch_ = 0;
  // As sim/launch_state.h decides: a schedule orders blocks on one worker; a cooperative launch's
  // blocks are resident on one.
  parallel_ = thread_safe() && options_.schedule == ScheduleKind::InOrder && !kernel.cooperative;
  globals_.clear();
  records_.clear();
  blocks_.clear();
  scratch_.clear();
  // The arguments' layouts serve every tool's reports.
  run(options_.race   ? Tool::Race
      : options_.init ? Tool::Init
                      : Tool::Mem,
      [&] { note_arguments(kernel, args); });
  if (options_.race)
    run(Tool::Race, [&] { races_.launch_started(config); });
}

void Checker::note_arguments(const sim::KernelCode &kernel, void *const *args) {
  for (const sim::NamedArray &array : kernel.arrays) {
    if (array.space != MemSpace::Global)
      continue;
    const auto *header = static_cast<const codegen::ArrayHeader *>(args[array.parameter]);
    GlobalArray global{
        &array, uintptr_t(header->data), uintptr_t(header->data), uintptr_t(header->data), {}, {}};
    if (array.ndim == 0) { // a record argument: the GPU gets a copy of it, suitably aligned
      global.high = global.low + uint64_t(array.itemsize);
      records_.push_back(global);
      run(Tool::Mem, [&] { watch_alignment(global); });
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
    if (options_.init)
      run(Tool::Init, [&] { device_.notice_host_writes(global.low, global.high - global.low); });
    run(Tool::Mem, [&] { watch_alignment(global); });
  }
}

void Checker::launch_finished(const std::optional<sim::Fault> &fault) {
  peak_shadow_bytes_ = std::max(peak_shadow_bytes_, races_.shadow_bytes());
  if (options_.sync && !fault && barrier_released_ && kernel_->thread_dependent_barrier.line > 0)
    run(Tool::Sync, [&] {
      add(nullptr, Tool::Sync, Severity::Warning, "barrier under a thread-dependent branch",
          "in kernel `" + kernel_->name +
              "`: every thread of each block reached it in this run, but on a GPU a block whose "
              "threads do not all reach a barrier hangs or misbehaves",
          {Side{"branch", {}, {}, kernel_->thread_dependent_barrier, ""}});
    });
  if (out_of_memory_.load()) { // what it held back for the process (its records: stale now)
    races_.clear_shadow();
    malloc_trim(0); // the pages' memory, back to the system
  }
  scratch_.clear();
  blocks_.clear();
  for (uintptr_t page : alignment_watched_)
    watched_.unwatch(page);
  alignment_watched_.clear();
  kernel_ = nullptr;
}

void Checker::block_started(const sim::ThreadContext &block) {
  if (options_.race) {
    const std::unique_lock turn = take_turn();
    run(Tool::Race, [&] { races_.block_started(block, shared_bytes()); });
  }
  if (!options_.init)
    return;
  // Which bytes the block writes, the kernel marks (sim::shared_written); its arrays (its own
  // memory: no turn to take) start poisoned.
  for (const sim::NamedArray &array : kernel_->arrays) {
    if (array.space != MemSpace::Shared)
      continue;
    const int64_t bytes =
        array_bytes(shared_shape(array, config_.dynamic_shared_bytes), array.itemsize);
    poison(block.shared + array.offset, uint64_t(bytes), array.dtype);
  }
}

void Checker::block_finished(const sim::ThreadContext &block) {
  const std::unique_lock turn = take_turn();
  blocks_.erase(linear_block(block));
  if (options_.race) {
    races_.block_finished(block, shared_bytes());
    peak_shadow_bytes_ = std::max(peak_shadow_bytes_, races_.shadow_bytes());
  }
}

void Checker::barrier_arrived(sim::ThreadContext &ctx, int32_t loc, bool) {
  if (!options_.sync)
    return;
  const std::unique_lock turn = take_turn();
  run(Tool::Sync, [&] {
    Block &mine = block(ctx);
    if (mine.waiting.empty())
      mine.waiting.assign(config_.block.count(), Wait{});
    mine.waiting[linear_thread(ctx)] = Wait{loc, mine.barriers_released};
  });
}

void Checker::barrier_released(const sim::ThreadContext &block, int32_t, bool grid) {
  if (!options_.race && !options_.sync)
    return; // racecheck orders accesses by barriers, synccheck names where threads wait
  const std::unique_lock turn = take_turn();
  barrier_released_ = true;
  run(options_.race ? Tool::Race : Tool::Sync, [&] {
    ++this->block(block).barriers_released;
    if (options_.race)
      races_.barrier_released(block, grid);
  });
}

void Checker::warp_op_arrived(sim::ThreadContext &ctx, sim::WarpOp op, uint32_t mask, int32_t) {
  const std::unique_lock turn = take_turn();
  if (options_.race)
    run(Tool::Race, [&] { races_.warp_arrived(ctx, op, mask); });
}

void Checker::undefined_shuffle(const sim::ThreadContext &reader, sim::WarpOp op, uint32_t source,
                                uint32_t mask, int32_t loc) {
  if (!options_.sync)
    return;
  const std::unique_lock turn = take_turn();
  run(Tool::Sync, [&] {
    const int64_t thread =
        reader.tid[0] +
        int64_t(reader.ntid[0]) * (reader.tid[1] + int64_t(reader.ntid[1]) * reader.tid[2]);
    const std::string lane = std::to_string(thread % 32);
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08x", mask);
    add(&reader, Tool::Sync, Severity::Error, "undefined shuffle",
        "in block " + ids(dim3(reader.ctaid)) + ": lane " + lane + "'s " + ir::warp_op_name(op) +
            " reads lane " + std::to_string(source) + ", which its mask " + hex +
            " does not name (or which has exited): the value is undefined on a GPU (simt gives "
            "lane " +
            lane + " its own)",
        {Side{"shuffle", dim3(reader.tid), dim3(reader.ctaid), location(loc), ""}});
  });
}

bool Checker::fault(sim::ThreadContext &ctx, const sim::Fault &fault) {
  using codegen::FaultKind;
  const std::unique_lock turn = take_turn();
  run(fault.kind == FaultKind::Bounds ? Tool::Mem : Tool::Sync, [&] {
    const std::string block = "in block " + ids(dim3(ctx.ctaid));
    std::string message = fault.message;
    if (message.starts_with("simt: "))
      message.erase(0, 6);
    if (fault.kind == FaultKind::Barrier && options_.sync) {
      // One thread per barrier the block's threads wait at.
      std::vector<Side> sides;
      std::set<int32_t> seen;
      const Block &mine = this->block(ctx);
      for (size_t thread = 0; thread < mine.waiting.size(); ++thread)
        if (mine.waiting[thread].release == mine.barriers_released &&
            seen.insert(mine.waiting[thread].loc).second)
          sides.push_back(Side{"barrier", unravel(thread, config_.block), dim3(ctx.ctaid),
                               location(mine.waiting[thread].loc), ""});
      if (sides.size() < 2)
        sides = {Side{"barrier", fault.tid, fault.ctaid, fault.where, ""}};
      add(&ctx, Tool::Sync, Severity::Error, "divergent barrier",
          block + ": its threads wait at different barriers", std::move(sides));
    } else if ((fault.kind == FaultKind::Warp || fault.kind == FaultKind::Deadlock) &&
               options_.sync) {
      add(&ctx, Tool::Sync, Severity::Error,
          fault.kind == FaultKind::Warp ? "invalid warp synchronisation" : "deadlock",
          block + ": " + message, {Side{"call", fault.tid, fault.ctaid, fault.where, ""}});
    } else if (fault.kind == FaultKind::Bounds && options_.mem) {
      add(&ctx, Tool::Mem, Severity::Error, "out-of-bounds access", block + ": " + message,
          {Side{"access", fault.tid, fault.ctaid, fault.where, ""}});
    }
  });
  return false;
}

bool Checker::memory_access(sim::ThreadContext &ctx, const sim::MemoryAccess &access) {
  if (out_of_memory_.load(std::memory_order_relaxed))
    return false; // the checking stopped
  const std::unique_lock turn = take_turn();
  switch (access.kind) {
  case AccessKind::Fence:
    if (options_.race)
      run(Tool::Race, [&] { races_.fence(ctx, int64_t(access.value)); });
    return false;
  case AccessKind::LocalArray:
    run(options_.init ? Tool::Init : Tool::Mem, [&] { note_local_array(ctx, access); });
    return false;
  default:
    break;
  }
  if (options_.mem)
    run(Tool::Mem, [&] { check_memory(ctx, access); });
  if (options_.init)
    run(Tool::Init, [&] { check_init(ctx, access); });
  if (options_.race && (access.space == MemSpace::Shared || access.space == MemSpace::Global))
    run(Tool::Race, [&] { check_race(ctx, access); });
  return false;
}

void Checker::note_local_array(const sim::ThreadContext &ctx, const sim::MemoryAccess &access) {
  const int function = int(access.value >> 32), index = int(access.value & 0xffffffff);
  const sim::NamedArray *array = nullptr;
  int seen = 0;
  for (const sim::NamedArray &candidate : kernel_->arrays)
    if (candidate.space == MemSpace::Local && candidate.function == function && seen++ == index)
      array = &candidate;
  if (array == nullptr)
    return;
  std::vector<LocalArray> &mine = block(ctx).locals[linear_thread(ctx)];
  std::erase_if(mine, [&](const LocalArray &old) {
    return old.address < uintptr_t(access.address) + access.size &&
           uintptr_t(access.address) < old.address + old.bytes;
  });
  mine.push_back(LocalArray{uintptr_t(access.address), access.size, array});
  if (options_.init)
    scratch_.track(uintptr_t(access.address), access.size, array->dtype);
}

void Checker::check_memory(sim::ThreadContext &ctx, const sim::MemoryAccess &access) {
  const uintptr_t address = uintptr_t(access.address);
  const AccessType type = access_type(access.kind);
  // A record argument is copied to memory of its own on a GPU: its fields' offsets count.
  uintptr_t base = 0;
  for (const GlobalArray &record : records_)
    if (address >= record.low && address < record.high)
      base = record.data;
  if (access.align > 1 && (address - base) % access.align != 0)
    add(&ctx, Tool::Mem, Severity::Error,
        std::string("misaligned ") + action_name(type) + " of " + std::to_string(access.size) +
            " bytes",
        "on " + place(ctx, address, access.space).text + " at an address " +
            std::to_string((address - base) % access.align) + " bytes past a multiple of " +
            std::to_string(access.align) + ", in block " + ids(dim3(ctx.ctaid)),
        {side(ctx, action_name(type), access.loc)});
  if (access.space == MemSpace::Global && any_freed_ &&
      device_.find(address, access.size, InitTracker::Freed) != 0)
    add(&ctx, Tool::Mem, Severity::Error, "use of freed device memory",
        "on " + place(ctx, address, access.space).text + " in block " + ids(dim3(ctx.ctaid)),
        {side(ctx, action_name(type), access.loc)});
}

void Checker::check_init(sim::ThreadContext &ctx, const sim::MemoryAccess &access) {
  InitTracker &tracker = access.space == MemSpace::Global ? device_ : scratch_;
  const uintptr_t address = uintptr_t(access.address);
  if (access.kind != AccessKind::Store) {
    uintptr_t unset = 0;
    if (access.space == MemSpace::Shared) {
      const uint8_t *written = sim::shared_written(ctx, access.address);
      for (uint32_t byte = 0; byte < access.size && unset == 0; ++byte)
        if (written[byte] == 0)
          unset = address + byte;
    } else {
      unset = tracker.find(address, access.size, InitTracker::Uninitialised);
    }
    if (unset != 0)
      add(&ctx, Tool::Init, Severity::Error,
          access.kind == AccessKind::Atomic ? "uninitialised atomic read" : "uninitialised read",
          "of " + place(ctx, unset, access.space).text + " in block " + ids(dim3(ctx.ctaid)),
          {side(ctx, access.kind == AccessKind::Atomic ? "atomic" : "read", access.loc)});
  }
  if (access.kind != AccessKind::Load && access.space != MemSpace::Shared) // shared: by the kernel
    tracker.written(address, access.size);
}

void Checker::check_race(sim::ThreadContext &ctx, const sim::MemoryAccess &access) {
  const AccessType type = access_type(access.kind);
  races_.access(
      ctx, uintptr_t(access.address), access.size, type, access.loc, [&](const Conflict &conflict) {
        const bool earlier_writes = conflict.earlier != AccessType::Read;
        const bool writes = type != AccessType::Read;
        std::string kind = earlier_writes && writes ? "write-after-write hazard"
                           : earlier_writes         ? "read-after-write hazard"
                                                    : "write-after-read hazard";
        Severity severity = conflict.same_warp ? Severity::Warning : Severity::Error;
        Side earlier{action_name(conflict.earlier), unravel(conflict.earlier_thread, config_.block),
                     unravel(conflict.earlier_block, config_.grid), location(conflict.earlier_loc),
                     ""};
        Side current = side(ctx, action_name(type), access.loc);
        const Place where = place(ctx, uintptr_t(access.address), access.space);
        if (earlier_writes && writes && access.kind == AccessKind::Store && access.size <= 8 &&
            conflict.earlier == AccessType::Write) {
          uint64_t before = 0;
          std::memcpy(&before, access.address, access.size);
          if (before == access.value) {
            kind = "write-after-write of equal values";
            severity = Severity::Info;
          }
          if (where.array != nullptr && !where.array->record) {
            if (conflict.earlier_is_last_write) // else memory holds a later write's value
              earlier.value = format_value(before, where.array->dtype);
            current.value = format_value(access.value, where.array->dtype);
          }
        }
        add(&ctx, Tool::Race, severity, kind,
            "on " + where.text + " " + in_blocks(ctx, conflict.earlier_block) +
                (conflict.same_warp && severity == Severity::Warning
                     ? " (lanes of one warp, without syncwarp)"
                     : ""),
            {earlier, current});
      });
}

Checker::Place Checker::place(const sim::ThreadContext &ctx, uintptr_t address,
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
    auto running = blocks_.find(linear_block(ctx));
    const std::vector<LocalArray> none;
    const std::vector<LocalArray> *mine = &none;
    if (running != blocks_.end()) {
      auto found = running->second.locals.find(linear_thread(ctx));
      if (found != running->second.locals.end())
        mine = &found->second;
    }
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

std::string Checker::in_blocks(const sim::ThreadContext &ctx, uint64_t other_block) const {
  const sim::Dim3 mine = dim3(ctx.ctaid);
  if (other_block == linear_block(ctx))
    return "in block " + ids(mine);
  return "between blocks " + ids(unravel(other_block, config_.grid)) + " and " + ids(mine);
}

sim::SourceLocation Checker::location(int32_t loc) const {
  return kernel_ != nullptr ? kernel_->location(loc) : sim::SourceLocation{};
}

Side Checker::side(const sim::ThreadContext &ctx, std::string action, int32_t loc) const {
  return Side{std::move(action), dim3(ctx.tid), dim3(ctx.ctaid), location(loc), ""};
}

void Checker::add(const sim::ThreadContext *ctx, Tool tool, Severity severity, std::string kind,
                  std::string subject, std::vector<Side> sides) {
  std::array<uint64_t, 3> order{launches_, 0, findings_in_launch_++};
  if (parallel_)
    order = ctx != nullptr
                ? std::array<uint64_t, 3>{launches_, linear_block(*ctx), block(*ctx).findings++}
                : std::array<uint64_t, 3>{launches_, ~uint64_t(0), 0};
  findings_.add(Finding{tool, severity, std::move(kind), std::move(subject), std::move(sides),
                        kernel_ != nullptr ? kernel_->name : "", 1, order});
}

Checker::Block &Checker::block(const sim::ThreadContext &ctx) { return blocks_[linear_block(ctx)]; }

} // namespace simt::checker
