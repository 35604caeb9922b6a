#include "checker/finding.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>

namespace simt::checker {

namespace {

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

const char *tool_name(Tool tool) {
  switch (tool) {
  case Tool::Race:
    return "racecheck";
  case Tool::Init:
    return "initcheck";
  case Tool::Sync:
    return "synccheck";
  case Tool::Mem:
    return "memcheck";
  }
  return "?";
}

const char *severity_name(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Info:
    return "info";
  }
  return "?";
}

namespace {

// What makes findings the same: tool, severity, kind, kernel, and the sides' actions and lines.
std::string key_of(const Finding &finding) {
  std::string key = std::string(tool_name(finding.tool)) + "|" + severity_name(finding.severity) +
                    "|" + finding.kind + "|" + finding.kernel;
  for (const Side &side : finding.sides)
    key += "|" + side.action + "@" + side.where.file + ":" + std::to_string(side.where.line);
  return key;
}

} // namespace

void Findings::add(Finding finding) {
  std::string key = key_of(finding);
  auto [at, inserted] = index_.emplace(std::move(key), findings_.size());
  const bool in_order = findings_.empty() || findings_.back().order <= finding.order;
  if (inserted) {
    findings_.push_back(std::move(finding));
  } else {
    Finding &kept = findings_[at->second];
    if (finding.order >= kept.order) {
      kept.count += finding.count;
      return;
    }
    finding.count += kept.count; // an earlier instance: it stands for the finding
    kept = std::move(finding);
  }
  if (in_order && inserted)
    return;
  std::stable_sort(findings_.begin(), findings_.end(),
                   [](const Finding &a, const Finding &b) { return a.order < b.order; });
  for (size_t position = 0; position < findings_.size(); ++position)
    index_[key_of(findings_[position])] = position;
}

void Findings::clear() {
  findings_.clear();
  index_.clear();
}

} // namespace simt::checker
