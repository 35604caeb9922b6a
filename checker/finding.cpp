#include "checker/finding.h"

#include <algorithm>

namespace simt::checker {

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
