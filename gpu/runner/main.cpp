// simt-gpu-run: runs a bundle of compiled kernels (PTX, arguments, the simulator's results) on
// the GPU and compares each output array with the simulator's. No LLVM, Boost or Python: it
// builds on any machine with a C++17 compiler and CMake; the driver is dlopen'ed at run time.
// The bundle format is gpu/runner/README.md's.
#include "gpu/driver.h"
#include "gpu/launch_ptx.h"
#include "gpu/runner/selftest_ptx.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace simt::gpu;

namespace {

// `fault exception` in a manifest: any raise site's code (first_raise_code and above).
constexpr int32_t any_raise = -1;

struct ManifestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct DType {
  const char *name;
  int64_t itemsize;
  char kind; // b(ool) i(nt) u(nsigned) f(loat) c(omplex)
};

const DType dtypes[] = {{"bool", 1, 'b'},         {"int8", 1, 'i'},        {"int16", 2, 'i'},
                        {"int32", 4, 'i'},        {"int64", 8, 'i'},       {"uint8", 1, 'u'},
                        {"uint16", 2, 'u'},       {"uint32", 4, 'u'},      {"uint64", 8, 'u'},
                        {"float16", 2, 'f'},      {"float32", 4, 'f'},     {"float64", 8, 'f'},
                        {"complex64", 8, 'c'},    {"complex128", 16, 'c'}, {"bfloat16", 2, 'f'},
                        {"__nv_bfloat16", 2, 'f'}};

// datetime64[unit] and timedelta64[unit]: 64-bit counts of the unit (NaT the smallest), compared
// exactly.
const DType time_counts = {"int64", 8, 'i'};

const DType *find_dtype(const std::string &name) {
  for (const DType &d : dtypes)
    if (name == d.name)
      return &d;
  if (name.rfind("datetime64", 0) == 0 || name.rfind("timedelta64", 0) == 0)
    return &time_counts;
  return nullptr;
}

struct ArraySpec {
  const DType *dtype = nullptr;
  std::vector<int64_t> shape, strides;
  std::string input, expected; // expected: "-" for none
  bool copy_back = true;
  // `alias K OFFSET`: a view of argument K's memory (an earlier array, itself no alias) whose
  // element [0, ...] lies OFFSET bytes from K's; -1 for an array of its own.
  int alias = -1;
  int64_t alias_offset = 0;
};

struct ArgSpec {
  bool is_array = false;
  const DType *dtype = nullptr;
  std::vector<uint8_t> bytes; // scalar
  ArraySpec array;
};

struct LaunchSpec {
  int line = 0;
  std::string name, ptx, entry;
  // `simulator-only <why>`: the simulator found the kernel deadlocked or misusing a warp or a
  // barrier, which hangs a GPU or is undefined there: the runner does not run it.
  std::string simulator_only;
  // `order-free <why>`: its arrays may hold their elements in another order on the GPU (the
  // order atomics are served in decides where values go): an array with the simulator's
  // elements in another order matches.
  std::string order_free;
  // `undefined <why>`: the simulator saw the kernel read values CUDA leaves undefined (a
  // shuffle from a lane outside its mask): its arrays are not compared, its fault is.
  std::string undefined;
  // `free-arrays <entry>`: the kernel allocates arrays (np.empty and kin): the module's kernel
  // that frees them runs after each launch, as simt's GPU target runs it.
  std::string free_arrays;
  Dim3 grid, block;
  uint64_t shared = 0;
  bool cooperative = false;
  double rtol = 1e-5, atol = 1e-8;
  int32_t fault = 0; // the simulator's fault code, 0: none
  std::vector<ArgSpec> args;
};

int64_t parse_int(const std::string &token, const std::string &where) {
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(token.c_str(), &end, 10);
  if (token.empty() || *end != '\0' || errno != 0)
    throw ManifestError(where + ": '" + token + "' is not an integer");
  return value;
}

double parse_double(const std::string &token, const std::string &where) {
  char *end = nullptr;
  double value = std::strtod(token.c_str(), &end);
  if (token.empty() || *end != '\0' || !(value >= 0))
    throw ManifestError(where + ": '" + token + "' is not a non-negative number");
  return value;
}

bool parse_flag(const std::string &token, const std::string &where) {
  if (token != "0" && token != "1")
    throw ManifestError(where + ": '" + token + "' is not 0 or 1");
  return token == "1";
}

Dim3 parse_dim3(const std::string &token, const std::string &where) {
  std::vector<int64_t> parts;
  std::stringstream in(token);
  std::string part;
  while (std::getline(in, part, ','))
    parts.push_back(parse_int(part, where));
  if (parts.empty() || parts.size() > 3)
    throw ManifestError(where + ": '" + token + "' is not x[,y[,z]]");
  parts.resize(3, 1);
  for (int64_t p : parts)
    if (p < 1 || p > int64_t(UINT32_MAX))
      throw ManifestError(where + ": '" + token + "' has an extent out of range");
  return Dim3{unsigned(parts[0]), unsigned(parts[1]), unsigned(parts[2])};
}

std::vector<uint8_t> parse_hex(const std::string &token, const std::string &where) {
  if (token.size() % 2 != 0)
    throw ManifestError(where + ": '" + token + "' is not hex bytes");
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i < token.size(); i += 2) {
    char pair[3] = {token[i], token[i + 1], '\0'};
    char *end = nullptr;
    unsigned long byte = std::strtoul(pair, &end, 16);
    if (*end != '\0' || !std::isxdigit(static_cast<unsigned char>(pair[0])) ||
        !std::isxdigit(static_cast<unsigned char>(pair[1])))
      throw ManifestError(where + ": '" + token + "' is not hex bytes");
    bytes.push_back(uint8_t(byte));
  }
  return bytes;
}

ArgSpec parse_scalar(const std::vector<std::string> &t, const std::string &where) {
  if (t.size() != 3)
    throw ManifestError(where + ": scalar <type> <hex bytes>");
  ArgSpec a;
  a.dtype = find_dtype(t[1]);
  if (a.dtype == nullptr)
    throw ManifestError(where + ": unknown type '" + t[1] + "'");
  a.bytes = parse_hex(t[2], where);
  if (int64_t(a.bytes.size()) != a.dtype->itemsize)
    throw ManifestError(where + ": a " + t[1] + " is " + std::to_string(a.dtype->itemsize) +
                        " bytes, not " + std::to_string(a.bytes.size()));
  return a;
}

// `earlier`: the launch's arguments before this one (an alias names one of them).
ArgSpec parse_array(const std::vector<std::string> &t, const std::string &where,
                    const std::vector<ArgSpec> &earlier) {
  const std::string form = where + ": array <dtype> <ndim> <shape...> <strides...> <input file> "
                                   "<expected file|-> <copy-back 0|1> [alias <arg> <bytes>]";
  if (t.size() < 3)
    throw ManifestError(form);
  ArgSpec a;
  a.is_array = true;
  a.dtype = a.array.dtype = find_dtype(t[1]);
  if (a.dtype == nullptr)
    throw ManifestError(where + ": unknown dtype '" + t[1] + "'");
  int64_t ndim = parse_int(t[2], where);
  const size_t fields = size_t(6 + 2 * ndim);
  if (ndim < 0 || ndim > 32 || (t.size() != fields && t.size() != fields + 3))
    throw ManifestError(form);
  for (int64_t d = 0; d < ndim; ++d) {
    a.array.shape.push_back(parse_int(t[size_t(3 + d)], where));
    a.array.strides.push_back(parse_int(t[size_t(3 + ndim + d)], where));
    if (a.array.shape.back() < 0)
      throw ManifestError(where + ": negative extent");
  }
  a.array.input = t[size_t(3 + 2 * ndim)];
  a.array.expected = t[size_t(4 + 2 * ndim)];
  a.array.copy_back = parse_flag(t[size_t(5 + 2 * ndim)], where);
  if (t.size() == fields + 3) {
    const int64_t k = parse_int(t[fields + 1], where);
    if (t[fields] != "alias" || k < 0 || size_t(k) >= earlier.size() ||
        !earlier[size_t(k)].is_array || earlier[size_t(k)].array.alias >= 0)
      throw ManifestError(where + ": 'alias <arg> <bytes>' names an earlier array argument "
                                  "that is no alias itself");
    a.array.alias = int(k);
    a.array.alias_offset = parse_int(t[fields + 2], where);
  }
  return a;
}

std::vector<LaunchSpec> parse_manifest(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw ManifestError(path + ": cannot be read");
  std::vector<LaunchSpec> launches;
  double rtol = 1e-5, atol = 1e-8;
  bool header = false;
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    std::string where = path + ":" + std::to_string(number);
    std::vector<std::string> t;
    std::stringstream words(text);
    for (std::string w; words >> w;)
      t.push_back(w);
    if (t.empty() || t[0][0] == '#')
      continue;
    if (!header) {
      if (t.size() != 2 || t[0] != "simt-bundle")
        throw ManifestError(where + ": a manifest starts with 'simt-bundle 1'");
      if (t[1] != "1")
        throw ManifestError(where + ": bundle format version " + t[1] +
                            " is not one this runner reads (1)");
      header = true;
      continue;
    }
    const std::string &kind = t[0];
    if (kind == "tolerance") {
      if (t.size() != 3)
        throw ManifestError(where + ": tolerance <rtol> <atol>");
      rtol = parse_double(t[1], where);
      atol = parse_double(t[2], where);
    } else if (kind == "launch") {
      if (t.size() != 8)
        throw ManifestError(where + ": launch <name> <ptx file> <entry> <grid x,y,z> "
                                    "<block x,y,z> <shared bytes> <cooperative 0|1>");
      LaunchSpec l;
      l.line = number;
      l.name = t[1];
      l.ptx = t[2];
      l.entry = t[3];
      l.grid = parse_dim3(t[4], where);
      l.block = parse_dim3(t[5], where);
      int64_t shared = parse_int(t[6], where);
      if (shared < 0)
        throw ManifestError(where + ": negative shared memory");
      l.shared = uint64_t(shared);
      l.cooperative = parse_flag(t[7], where);
      l.rtol = rtol;
      l.atol = atol;
      launches.push_back(l);
    } else if (kind == "fault" || kind == "scalar" || kind == "array" || kind == "simulator-only" ||
               kind == "order-free" || kind == "undefined" || kind == "free-arrays") {
      if (launches.empty())
        throw ManifestError(where + ": '" + kind + "' before the first launch");
      LaunchSpec &l = launches.back();
      if (kind == "fault") {
        if (t.size() != 2)
          throw ManifestError(where + ": fault <none|IndexError|exception|code>");
        l.fault = t[1] == "none"         ? 0
                  : t[1] == "IndexError" ? index_error_code
                  : t[1] == "exception"  ? any_raise
                                         : int32_t(parse_int(t[1], where));
      } else if (kind == "free-arrays") {
        if (t.size() != 2)
          throw ManifestError(where + ": free-arrays <entry>");
        l.free_arrays = t[1];
      } else if (kind == "simulator-only" || kind == "order-free" || kind == "undefined") {
        if (t.size() < 2)
          throw ManifestError(where + ": " + kind + " <why>");
        std::string &why = kind == "simulator-only" ? l.simulator_only
                           : kind == "order-free"   ? l.order_free
                                                    : l.undefined;
        why = text.substr(text.find(t[1]));
      } else if (kind == "scalar") {
        l.args.push_back(parse_scalar(t, where));
      } else {
        l.args.push_back(parse_array(t, where, l.args));
      }
    } else {
      throw ManifestError(where + ": unknown record '" + kind + "'");
    }
  }
  if (!header)
    throw ManifestError(path + ": empty manifest (no 'simt-bundle 1' line)");
  return launches;
}

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(path + " cannot be read");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(float(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(float(mantissa | 0x400), int(exponent) - 25);
  return sign ? -magnitude : magnitude;
}

// An element as a double (a complex number's part `part`); integers go through format/equal.
double float_value(const DType &d, const uint8_t *p, int part = 0) {
  switch (d.itemsize) {
  case 2: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    if (d.name[0] != 'f') { // bfloat16: float32's top half
      const uint32_t bits = uint32_t(h) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    return half_to_float(h);
  }
  case 4: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case 8:
    if (d.kind == 'c') {
      float f;
      std::memcpy(&f, p + 4 * part, 4);
      return f;
    } else {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
  default: {
    double v;
    std::memcpy(&v, p + 8 * part, 8);
    return v;
  }
  }
}

std::string format(const DType &d, const uint8_t *p) {
  char text[96];
  if (d.kind == 'b')
    return p[0] ? "True" : "False";
  if (d.kind == 'i' || d.kind == 'u') {
    uint64_t bits = 0;
    std::memcpy(&bits, p, size_t(d.itemsize));
    if (d.kind == 'i' && d.itemsize < 8 && (bits >> (8 * d.itemsize - 1)) & 1)
      bits |= ~uint64_t(0) << (8 * d.itemsize); // sign-extend
    if (d.kind == 'i')
      std::snprintf(text, sizeof text, "%" PRId64, int64_t(bits));
    else
      std::snprintf(text, sizeof text, "%" PRIu64, bits);
    return text;
  }
  int64_t part = d.kind == 'c' ? d.itemsize / 2 : d.itemsize; // bytes of one float
  int digits = part == 2 ? 5 : part == 4 ? 9 : 17;
  if (d.kind == 'c')
    std::snprintf(text, sizeof text, "(%.*g%+.*gj)", digits, float_value(d, p, 0), digits,
                  float_value(d, p, 1));
  else
    std::snprintf(text, sizeof text, "%.*g", digits, float_value(d, p));
  return text;
}

bool close(double gpu, double sim, double rtol, double atol) {
  if (std::isnan(gpu) || std::isnan(sim))
    return std::isnan(gpu) && std::isnan(sim);
  if (std::isinf(gpu) || std::isinf(sim))
    return gpu == sim;
  return std::fabs(gpu - sim) <= atol + rtol * std::fabs(sim);
}

bool equal(const DType &d, const uint8_t *gpu, const uint8_t *sim, double rtol, double atol) {
  switch (d.kind) {
  case 'b':
    return (gpu[0] != 0) == (sim[0] != 0);
  case 'i':
  case 'u':
    return std::memcmp(gpu, sim, size_t(d.itemsize)) == 0;
  case 'c':
    return close(float_value(d, gpu, 0), float_value(d, sim, 0), rtol, atol) &&
           close(float_value(d, gpu, 1), float_value(d, sim, 1), rtol, atol);
  default:
    return close(float_value(d, gpu), float_value(d, sim), rtol, atol);
  }
}

// Calls visit(C-order element number, byte offset from element [0,...,0]) for every element.
template <class F>
void for_each_element(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides,
                      F visit) {
  int64_t n = 1;
  for (int64_t extent : shape)
    n *= extent;
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      offset += index[d] * strides[d];
    visit(k, offset);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

std::string index_text(const std::vector<int64_t> &shape, int64_t k) {
  if (shape.empty())
    return "()";
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] == 0 ? 0 : k % shape[d];
    k = shape[d] == 0 ? 0 : k / shape[d];
  }
  std::string text;
  for (size_t d = 0; d < index.size(); ++d)
    text.append(d ? "," : "").append(std::to_string(index[d]));
  return text;
}

std::string one_line(std::string text) {
  for (size_t at; (at = text.find('\n')) != std::string::npos;)
    text.replace(at, 1, " | ");
  return text;
}

struct Counts {
  int ok = 0, diff = 0, fault = 0, error = 0, hang = 0, skipped = 0;
};

struct Options {
  std::string bundle;
  int device = 0;
  bool time = false;
  size_t resume = 0; // the first launch to run (after a re-exec)
  Counts counts;     // of the launches before `resume`
  // A launch that has not ended after this long hangs: reported as HANG, the rest run on in a
  // new process (the hung kernel's context is lost).
  std::chrono::milliseconds limit{20000};
  bool dry_run = false; // validate the bundle, run nothing (no GPU needed)
};

enum class Outcome { Ok, Diff, Fault, Error, Sticky, Hang, Skipped };

// A launch's arguments on the host: each array's elements placed by its strides in a buffer
// covering its span (and its aliases' spans: they are views of the same buffer), and the
// simulator's results to compare with.
struct HostArguments {
  std::vector<std::vector<uint64_t>> buffers; // by argument; empty for scalars and aliases
  std::vector<KernelArgument> args;
  std::vector<std::string> expected; // by argument; empty when not compared
};

std::string read_elements(const std::string &dir, const std::string &file, int64_t bytes,
                          size_t arg) {
  std::string data = read_file(dir + file);
  if (int64_t(data.size()) != bytes)
    throw std::runtime_error(file + " has " + std::to_string(data.size()) + " bytes, not the " +
                             std::to_string(bytes) + " of arg " + std::to_string(arg));
  return data;
}

HostArguments host_arguments(const LaunchSpec &l, const std::string &dir) {
  HostArguments h;
  h.buffers.resize(l.args.size());
  h.expected.resize(l.args.size());
  // Each array's span relative to its own element [0, ...], then each buffer's: the union of its
  // array's and its aliases' spans, relative to the array's element [0, ...].
  std::vector<ByteSpan> spans(l.args.size()), buffer_spans(l.args.size());
  for (size_t i = 0; i < l.args.size(); ++i)
    if (l.args[i].is_array) {
      const ArraySpec &s = l.args[i].array;
      spans[i] = byte_span(s.shape, s.strides, s.dtype->itemsize);
      const size_t root = s.alias >= 0 ? size_t(s.alias) : i;
      const int64_t begin = spans[i].begin + (s.alias >= 0 ? s.alias_offset : 0);
      ByteSpan &b = buffer_spans[root];
      if (root == i) { // the first of its buffer's arrays
        b = ByteSpan{begin, spans[i].size};
        continue;
      }
      const int64_t end = std::max(b.begin + b.size, begin + spans[i].size);
      b.begin = std::min(b.begin, begin);
      b.size = end - b.begin;
    }
  for (size_t i = 0; i < l.args.size(); ++i) {
    const ArgSpec &a = l.args[i];
    if (!a.is_array) {
      h.args.push_back(
          KernelArgument::scalar(a.bytes.data(), a.bytes.size(), a.dtype->kind == 'c' ? 2 : 1));
      continue;
    }
    const ArraySpec &s = a.array;
    const int64_t itemsize = s.dtype->itemsize;
    char *data;
    if (s.alias < 0) {
      h.buffers[i].assign(size_t(buffer_spans[i].size + 7) / 8 + 1, 0);
      data = reinterpret_cast<char *>(h.buffers[i].data()) - buffer_spans[i].begin;
    } else {
      data = static_cast<char *>(h.args[size_t(s.alias)].array.data) + s.alias_offset;
    }
    HostArray view;
    view.data = data;
    view.shape = s.shape;
    view.strides = s.strides;
    view.itemsize = itemsize;
    view.copy_back = s.copy_back;
    const int64_t bytes = view.nitems() * itemsize;
    const std::string input = read_elements(dir, s.input, bytes, i);
    for_each_element(s.shape, s.strides, [&](int64_t k, int64_t offset) {
      std::memcpy(data + offset, input.data() + k * itemsize, size_t(itemsize));
    });
    if (s.copy_back && s.expected != "-")
      h.expected[i] = read_elements(dir, s.expected, bytes, i);
    h.args.push_back(KernelArgument::of(view));
  }
  return h;
}

// Whether the `n` elements at `data` (laid out as `s` says) are the simulator's `expected` ones in
// some order, byte for byte.
bool same_elements(const ArraySpec &s, const char *data, const std::string &expected) {
  const auto itemsize = size_t(s.dtype->itemsize);
  std::vector<std::string> gpu, sim;
  for_each_element(s.shape, s.strides, [&](int64_t k, int64_t offset) {
    gpu.emplace_back(data + offset, itemsize);
    sim.emplace_back(expected.data() + size_t(k) * itemsize, itemsize);
  });
  std::sort(gpu.begin(), gpu.end());
  std::sort(sim.begin(), sim.end());
  return gpu == sim;
}

// After a launch without a fault: prints the first array that differs from the simulator's
// (a DIFF line) and says whether one did. An order-free launch's arrays that hold the same
// elements in another order match; `note` then says so.
bool print_first_difference(const LaunchSpec &l, const HostArguments &h, const std::string &timing,
                            std::string &note) {
  for (size_t i = 0; i < l.args.size(); ++i) {
    if (h.expected[i].empty())
      continue;
    const ArraySpec &s = l.args[i].array;
    const DType &d = *s.dtype;
    const char *data = static_cast<const char *>(h.args[i].array.data);
    int64_t first = -1, differing = 0, n = 0;
    std::string gpu_text, sim_text;
    for_each_element(s.shape, s.strides, [&](int64_t k, int64_t offset) {
      ++n;
      const auto *gpu = reinterpret_cast<const uint8_t *>(data + offset);
      const auto *sim = reinterpret_cast<const uint8_t *>(h.expected[i].data()) + k * d.itemsize;
      if (equal(d, gpu, sim, l.rtol, l.atol))
        return;
      if (differing++ == 0) {
        first = k;
        gpu_text = format(d, gpu);
        sim_text = format(d, sim);
      }
    });
    if (differing != 0 && !l.order_free.empty() && same_elements(s, data, h.expected[i])) {
      note += " (arg " + std::to_string(i) +
              ": the same elements in another order: " + l.order_free + ")";
      continue;
    }
    if (differing != 0) {
      std::printf("DIFF %s arg %zu index %s gpu=%s sim=%s (%" PRId64 " of %" PRId64
                  " elements differ)%s\n",
                  l.name.c_str(), i, index_text(s.shape, first).c_str(), gpu_text.c_str(),
                  sim_text.c_str(), differing, n, timing.c_str());
      return true;
    }
  }
  return false;
}

// Runs one launch and prints its line.
Outcome run(const LaunchSpec &l, const Options &options) {
  if (!l.simulator_only.empty()) {
    std::printf("SKIP %s simulator-only (%s)\n", l.name.c_str(), l.simulator_only.c_str());
    return Outcome::Skipped;
  }
  HostArguments h;
  try {
    h = host_arguments(l, options.bundle + "/");
  } catch (const std::exception &e) {
    std::printf("ERROR %s %s\n", l.name.c_str(), one_line(e.what()).c_str());
    return Outcome::Error;
  }
  std::vector<KernelArgument> &args = h.args;
  const std::string dir = options.bundle + "/";

  std::optional<DeviceFault> fault;
  float ms = 0;
  try {
    Driver &driver = Driver::get();
    driver.make_current(options.device);
    const Module module(read_file(dir + l.ptx), driver);
    fault = launch_kernel(module, l.entry, l.grid, l.block, l.shared, l.cooperative, args,
                          options.time ? &ms : nullptr, options.limit);
    if (!l.free_arrays.empty()) {
      std::vector<KernelArgument> none;
      launch_kernel(module, l.free_arrays, Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, false, none, nullptr,
                    options.limit);
    }
  } catch (const GpuUnavailable &) {
    throw;
  } catch (const DriverError &e) {
    if (e.result() == cu::CUDA_ERROR_LAUNCH_TIMEOUT) {
      std::printf("HANG %s (not ended after %g s)\n", l.name.c_str(),
                  double(options.limit.count()) / 1000);
      return Outcome::Hang;
    }
    std::printf("FAULT %s cuda: %s\n", l.name.c_str(), one_line(e.what()).c_str());
    return e.sticky() ? Outcome::Sticky : Outcome::Fault;
  } catch (const std::exception &e) {
    std::printf("ERROR %s %s\n", l.name.c_str(), one_line(e.what()).c_str());
    return Outcome::Error;
  }
  std::string timing;
  if (options.time) {
    char text[48];
    std::snprintf(text, sizeof text, " time=%.3fms", double(ms));
    timing = text;
  }
  int32_t gpu_fault = fault ? fault->code : 0;
  const bool same_fault =
      l.fault == any_raise ? gpu_fault >= first_raise_code : gpu_fault == l.fault;
  if (!same_fault) {
    std::printf("FAULT %s gpu=%s sim=%s%s\n", l.name.c_str(),
                fault ? describe(*fault).c_str() : "none",
                l.fault == 0           ? "none"
                : l.fault == any_raise ? "exception"
                                       : fault_kind(l.fault).c_str(),
                timing.c_str());
    return Outcome::Fault;
  }
  // After a fault the threads that ran on differ between the GPU and the simulator (which stops
  // every thread): the arrays are not compared, the fault's kind is.
  std::string note;
  if (!l.undefined.empty())
    note = " (results not compared: " + l.undefined + ")";
  else if (gpu_fault == 0 && print_first_difference(l, h, timing, note))
    return Outcome::Diff;
  std::printf("ok %s%s%s\n", l.name.c_str(), note.c_str(), timing.c_str());
  return Outcome::Ok;
}

// Runs the self-test kernel (selftest_ptx.h) on a contiguous and on a reversed array, checks the
// elements and the exception record.
int selftest(const Options &options) {
  const int n = 1000;
  const Dim3 grid{4, 1, 1}, block{256, 1, 1}; // thread 1000 is block 3's thread 232
  Driver &driver = Driver::get();
  bool cooperative = driver.cooperative_launch(options.device);
  std::string failures;
  for (int pass = 0; pass < 2; ++pass) {
    bool reversed = pass == 1;
    float factor = reversed ? -1.0f : 2.5f;
    std::vector<float> buffer(n);
    for (int i = 0; i < n; ++i)
      buffer[size_t(i)] = float(i);
    HostArray a;
    a.data = reversed ? &buffer[n - 1] : buffer.data();
    a.shape = {n};
    a.strides = {reversed ? -4 : 4};
    a.itemsize = 4;
    std::vector<KernelArgument> args = {KernelArgument::of(a), KernelArgument::scalar(factor)};
    std::string what = reversed ? "reversed array" : "array";
    std::optional<DeviceFault> fault;
    try {
      fault = launch_kernel(selftest_ptx, "simt_selftest", grid, block, 0, reversed && cooperative,
                            args, nullptr, options.device);
    } catch (const DriverError &e) {
      std::printf("selftest FAILED; %s: %s\n", what.c_str(), one_line(e.what()).c_str());
      return 1;
    }
    for (int i = 0; i < n; ++i)
      if (buffer[size_t(i)] != float(i) * factor) {
        failures += "; " + what + " element " + std::to_string(i) + " is " +
                    std::to_string(buffer[size_t(i)]) + ", not " +
                    std::to_string(float(i) * factor);
        break;
      }
    std::string expected = "IndexError at location 7, tid=[232, 0, 0] ctaid=[3, 0, 0]";
    std::string got = fault ? describe(*fault) : "none";
    if (got != expected)
      failures += "; " + what + ": the fault is " + got + ", not " + expected;
  }
  if (!failures.empty()) {
    std::printf("selftest FAILED%s\n", failures.c_str());
    return 1;
  }
  std::printf("selftest ok (2 launches%s)\n", cooperative ? ", one cooperative" : "");
  return 0;
}

int usage() {
  std::fprintf(stderr, "usage: simt-gpu-run [--device N] [--time] [--timeout SECONDS] BUNDLE_DIR\n"
                       "       simt-gpu-run --dry-run BUNDLE_DIR   (checks it; no GPU needed)\n"
                       "       simt-gpu-run [--device N] --info | --selftest\n"
                       "Runs the launches of BUNDLE_DIR/manifest.txt on the GPU and compares "
                       "their arrays with the simulator's (gpu/runner/README.md); a launch not "
                       "ended after --timeout (default 20) seconds is a HANG.\n"
                       "Exit status: 0 all ok (or simulator-only), 1 a DIFF, FAULT, ERROR or "
                       "HANG, 2 an unreadable bundle or usage, 3 no GPU.\n");
  return 2;
}

std::string counts_text(const Counts &c) {
  return std::to_string(c.ok) + "," + std::to_string(c.diff) + "," + std::to_string(c.fault) + "," +
         std::to_string(c.error) + "," + std::to_string(c.hang) + "," + std::to_string(c.skipped);
}

Counts parse_counts(const std::string &text) {
  Counts c;
  if (std::sscanf(text.c_str(), "%d,%d,%d,%d,%d,%d", &c.ok, &c.diff, &c.fault, &c.error, &c.hang,
                  &c.skipped) != 6)
    throw ManifestError("--counts takes ok,diff,fault,error,hang,skipped");
  return c;
}

// The options, or nullopt after a usage error. `info`/`self`: --info, --selftest.
std::optional<Options> parse_options(int argc, char **argv, bool &info, bool &self) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--device" && i + 1 < argc)
      options.device = int(parse_int(argv[++i], "--device"));
    else if (a == "--time")
      options.time = true;
    else if (a == "--timeout" && i + 1 < argc)
      options.limit = std::chrono::milliseconds(
          std::max<int64_t>(1, int64_t(parse_double(argv[++i], "--timeout") * 1000)));
    else if (a == "--dry-run")
      options.dry_run = true;
    else if (a == "--info")
      info = true;
    else if (a == "--selftest")
      self = true;
    else if (a == "--resume" && i + 1 < argc) // internal: after a lost context
      options.resume = size_t(parse_int(argv[++i], "--resume"));
    else if (a == "--counts" && i + 1 < argc) // internal: the counts before --resume
      options.counts = parse_counts(argv[++i]);
    else if (!a.empty() && a[0] != '-' && options.bundle.empty())
      options.bundle = a;
    else
      return std::nullopt;
  }
  if (options.bundle.empty() == !(info || self) || (options.dry_run && (info || self)))
    return std::nullopt;
  return options;
}

// Prints the device line; for --info and --selftest, does that and returns the exit status.
std::optional<int> describe_device(const Options &options, bool info, bool self) {
  try {
    Driver &driver = Driver::get();
    if (info || self || options.resume == 0) {
      if (driver.device_count() == 0)
        throw GpuUnavailable("simt: no GPU: the driver sees no device");
      auto cc = driver.compute_capability(options.device);
      int version = driver.version();
      std::printf("# device %d: %s, sm_%d%d, %d SMs, driver %d.%d%s\n", options.device,
                  driver.device_name(options.device).c_str(), cc.first, cc.second,
                  driver.multiprocessor_count(options.device), version / 1000, version % 1000 / 10,
                  driver.cooperative_launch(options.device) ? ", cooperative launch" : "");
      if (info)
        return 0;
    }
    if (self)
      return selftest(options);
  } catch (const GpuUnavailable &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 3;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "simt-gpu-run: %s\n", one_line(e.what()).c_str());
    return 3;
  }
  return std::nullopt;
}

// --dry-run: every launch's files read and checked as a run would (the PTX, each array's input
// and expected elements); an ERROR line for each that fails. Exit status 0 all valid, 1 not.
int check_bundle(const std::vector<LaunchSpec> &launches, const Options &options) {
  const std::string dir = options.bundle + "/";
  int valid = 0;
  for (const LaunchSpec &l : launches) {
    try {
      if (read_file(dir + l.ptx).find(".entry " + l.entry) == std::string::npos)
        throw std::runtime_error(l.ptx + " has no .entry " + l.entry);
      if (l.simulator_only.empty())
        host_arguments(l, dir);
      ++valid;
    } catch (const std::exception &e) {
      std::printf("ERROR %s %s\n", l.name.c_str(), one_line(e.what()).c_str());
    }
  }
  std::printf("dry run: %d of %zu launches valid\n", valid, launches.size());
  return valid == int(launches.size()) ? 0 : 1;
}

// After a launch that lost this process's context (an illegal address, a hang): the launches
// from `next` on run in a fresh process, which prints the summary. Returns only if it cannot.
void run_rest_in_a_new_process(const char *program, size_t next, const Counts &counts,
                               const Options &options) {
  std::fflush(stdout);
  const std::string resume = std::to_string(next), c = counts_text(counts),
                    device = std::to_string(options.device),
                    limit = std::to_string(double(options.limit.count()) / 1000);
  std::vector<const char *> args = {program,        "--resume",  resume.c_str(),
                                    "--counts",     c.c_str(),   "--device",
                                    device.c_str(), "--timeout", limit.c_str()};
  if (options.time)
    args.push_back("--time");
  args.push_back(options.bundle.c_str());
  args.push_back(nullptr);
  execv("/proc/self/exe", const_cast<char *const *>(args.data()));
  std::fprintf(stderr,
               "simt-gpu-run: cannot restart itself (%s); the launches from #%zu on are "
               "not run\n",
               std::strerror(errno), next);
}

} // namespace

int main(int argc, char **argv) {
  bool info = false, self = false;
  std::optional<Options> parsed;
  try {
    parsed = parse_options(argc, argv, info, self);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "simt-gpu-run: %s\n", e.what());
  }
  if (!parsed)
    return usage();
  const Options &options = *parsed;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (!options.dry_run)
    if (std::optional<int> status = describe_device(options, info, self))
      return *status;

  std::vector<LaunchSpec> launches;
  try {
    launches = parse_manifest(options.bundle + "/manifest.txt");
  } catch (const ManifestError &e) {
    std::fprintf(stderr, "simt-gpu-run: %s\n", e.what());
    return 2;
  }
  if (options.dry_run)
    return check_bundle(launches, options);
  Counts counts = options.counts;
  for (size_t i = options.resume; i < launches.size(); ++i) {
    Outcome outcome;
    try {
      outcome = run(launches[i], options);
    } catch (const GpuUnavailable &e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 3;
    }
    int Counts::*count[] = {&Counts::ok,    &Counts::diff, &Counts::fault,  &Counts::error,
                            &Counts::fault, &Counts::hang, &Counts::skipped};
    ++(counts.*count[int(outcome)]);
    if ((outcome == Outcome::Sticky || outcome == Outcome::Hang) && i + 1 < launches.size()) {
      run_rest_in_a_new_process(argv[0], i + 1, counts, options);
      counts.error += int(launches.size() - i - 1);
      break;
    }
  }
  std::printf("summary: %d ok, %d diff, %d fault, %d error, %d hang, %d simulator-only, of %zu "
              "launches\n",
              counts.ok, counts.diff, counts.fault, counts.error, counts.hang, counts.skipped,
              launches.size());
  return counts.ok + counts.skipped == int(launches.size()) ? 0 : 1;
}
