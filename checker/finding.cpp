#include "checker/finding.h"

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

void Findings::add(Finding finding) {
  std::string key = std::string(tool_name(finding.tool)) + "|" + severity_name(finding.severity) +
                    "|" + finding.kind + "|" + finding.kernel;
  for (const Side &side : finding.sides)
    key += "|" + side.action + "@" + side.where.file + ":" + std::to_string(side.where.line);
  auto [at, inserted] = index_.emplace(std::move(key), findings_.size());
  if (inserted)
    findings_.push_back(std::move(finding));
  else
    findings_[at->second].count += finding.count;
}

void Findings::clear() {
  findings_.clear();
  index_.clear();
}

} // namespace simt::checker
