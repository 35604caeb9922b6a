#include "checker/report.h"

namespace simt::checker {

void Report::launch_started() {
  ++launches_;
  findings_in_launch_ = 0;
  block_findings_.clear();
}

void Report::add(const sim::ThreadContext *ctx, Tool tool, Severity severity, std::string kind,
                 std::string subject, std::vector<Side> sides) {
  std::array<uint64_t, 3> order{launches_, 0, findings_in_launch_++};
  if (launch_.parallel())
    order = ctx != nullptr ? std::array<uint64_t, 3>{launches_, linear_block(*ctx),
                                                     block_findings_[linear_block(*ctx)]++}
                           : std::array<uint64_t, 3>{launches_, ~uint64_t(0), 0};
  const sim::KernelCode *kernel = launch_.kernel();
  findings_.add(Finding{tool, severity, std::move(kind), std::move(subject), std::move(sides),
                        kernel != nullptr ? kernel->name : "", 1, order});
}

} // namespace simt::checker
