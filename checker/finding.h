// What the checkers report: findings, each a distinct hazard or error, kept once with a count of
// its instances (compute-sanitizer's shape; python/simt/check.py prints them with the source).
#pragma once

#include "sim/launch.h"

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace simt::checker {

enum class Tool : uint8_t { Race, Init, Sync, Mem };
enum class Severity : uint8_t { Error, Warning, Info };

// "racecheck", "initcheck", "synccheck", "memcheck"; "error", "warning", "info".
const char *tool_name(Tool tool);
const char *severity_name(Severity severity);

// One side of a finding: what one thread did where.
struct Side {
  std::string action; // "write", "read", "atomic", "barrier", ...
  sim::Dim3 tid, ctaid;
  sim::SourceLocation where;
  std::string value; // a write-after-write's written values, as the array's dtype prints them
};

struct Finding {
  Tool tool = Tool::Race;
  Severity severity = Severity::Error;
  std::string kind; // "write-after-write hazard", "uninitialised read", ...
  // What it is about, following `kind` in a report's first line: "on shared array `buf` (buf[3])
  // in block (0,0,0)", "in block (0,0,0): ...".
  std::string subject;
  std::vector<Side> sides;
  std::string kernel;
  uint64_t count = 1; // instances
  // Which instance it shows, and where it stands among the findings: the earliest by this key.
  // Launches on one worker: (launch, 0, when it was found); launches whose blocks run on several
  // workers at once: (launch, the block's linear index, when it was found in its block), so that
  // the report does not depend on how the workers' work interleaved.
  std::array<uint64_t, 3> order{};
};

// The findings of a run, each distinct one once (by tool, severity, kind, and its sides' actions
// and source lines) as its earliest instance (Finding::order), in that order.
class Findings {
public:
  void add(Finding finding);
  const std::vector<Finding> &all() const { return findings_; }
  void clear();

private:
  std::vector<Finding> findings_;
  std::unordered_map<std::string, size_t> index_;
};

// An element's text as NumPy prints it ("1.5", "-3", "True"), from its bits.
std::string format_value(uint64_t bits, Scalar dtype);

} // namespace simt::checker
