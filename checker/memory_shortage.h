// When a checker runs out of memory: its hooks cannot throw (they run in the launch's workers),
// so the launch's checking stops there, the kernel runs to its end, and the launch's caller gets
// a MemoryError (ShadowOutOfMemory) naming the tool and the memory it needed. Shared by the
// tools: the first to run out stops them all.
#pragma once

#include "checker/finding.h"
#include "checker/launch_view.h"
#include "checker/race_detector.h"
#include "checker/tracked_memory.h"

#include <atomic>
#include <cstdint>
#include <new>
#include <string>

namespace simt::checker {

// A checker could not allocate its shadow memory: a std::bad_alloc (Python's MemoryError) whose
// message names the tool and the memory it needed.
class ShadowOutOfMemory : public std::bad_alloc {
public:
  explicit ShadowOutOfMemory(std::string message) : message_(std::move(message)) {}
  const char *what() const noexcept override { return message_.c_str(); }

private:
  std::string message_;
};

// "512.0 MiB": `bytes` in the unit that suits it.
std::string size_text(uint64_t bytes);
// The message of `tool` running out of memory while `doing`, which needs `needed` bytes of
// shadow memory (0: unknown), holding `held`; `then` says what happened next.
std::string out_of_memory_text(Tool tool, const std::string &doing, uint64_t needed, uint64_t held,
                               const char *then = "");

class MemoryShortage {
public:
  // What the tools hold: racecheck its shadow (count_shadow), the others `tracked`.
  MemoryShortage(const LaunchView &launch, const TrackedMemory &tracked)
      : launch_(launch), tracked_(tracked) {}
  void count_shadow(const RaceDetector &races) { races_ = &races; }

  // Whether a tool ran out of memory in this launch: its checking stopped.
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }
  // Runs `work`, a part of `tool`'s checking, unless the checking stopped; a std::bad_alloc in
  // it stops the launch's checking.
  template <typename Work> void run(Tool tool, Work &&work) noexcept {
    if (stopped())
      return;
    try {
      work();
    } catch (const std::bad_alloc &) {
      ran_out(tool);
    }
  }
  // After a launch of `kernel`: throws ShadowOutOfMemory when a tool ran out of memory during
  // it (and forgets it).
  void throw_if_out_of_memory(const std::string &kernel);

private:
  // Records what `tool` held and needed when it ran out of memory (allocating nothing).
  void ran_out(Tool tool) noexcept;

  const LaunchView &launch_;
  const TrackedMemory &tracked_;
  const RaceDetector *races_ = nullptr;
  std::atomic<bool> stopped_{false};
  struct {
    Tool tool = Tool::Race;
    uint64_t needed = 0, held = 0, arrays = 0; // `arrays`: the bytes the launch's arrays span
  } shortage_;
};

} // namespace simt::checker
