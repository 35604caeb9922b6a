// What the checking of a run found so far, shared by the tools: the findings (checker/finding.h),
// each keyed by when it was found, so that the report does not depend on how the workers' work
// interleaved (Finding::order).
#pragma once

#include "checker/finding.h"
#include "checker/launch_view.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace simt::checker {

class Report {
public:
  explicit Report(const LaunchView &launch) : launch_(launch) {}

  void launch_started();
  void block_finished(const sim::ThreadContext &block) {
    block_findings_.erase(linear_block(block));
  }
  // A finding of the thread on `ctx` (null: of the launch, after its blocks).
  void add(const sim::ThreadContext *ctx, Tool tool, Severity severity, std::string kind,
           std::string subject, std::vector<Side> sides);
  const Findings &findings() const { return findings_; }

private:
  const LaunchView &launch_;
  Findings findings_;
  uint64_t launches_ = 0, findings_in_launch_ = 0;
  std::unordered_map<uint64_t, uint64_t> block_findings_; // running blocks': found so far
};

} // namespace simt::checker
