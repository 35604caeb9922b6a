// The checkers' page table (checker/page_table.h) when memory runs out: a page that cannot be
// made leaves the table as it was, and the checkers' out-of-memory error is a std::bad_alloc.
#include "checker/memory_shortage.h"
#include "checker/page_table.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <new>
#include <string>

using namespace simt;

namespace {

// A page whose making fails while `fail` is set, as an allocation out of memory does.
struct FailingPage {
  static inline bool fail = false;
  int value = 0;
  FailingPage() {
    if (fail)
      throw std::bad_alloc();
  }
};

} // namespace

TEST_CASE("page table: a page that cannot be made leaves the table as it was") {
  checker::PageTable<FailingPage> pages;
  const uintptr_t first = 0x7f0000001000, second = first + 0x1000;
  pages.get(first).value = 7;
  FailingPage::fail = true;
  CHECK_THROWS_AS(pages.get(second), std::bad_alloc);
  FailingPage::fail = false;
  CHECK(pages.size() == 1);
  CHECK(pages.find(second) == nullptr);
  int visited = 0;
  pages.for_each([&](uintptr_t start, const FailingPage &page) {
    CHECK(start == first);
    CHECK(page.value == 7);
    ++visited;
  });
  CHECK(visited == 1);
  pages.get(second).value = 8; // made once memory is there
  CHECK(pages.size() == 2);
  CHECK(pages.find(second)->value == 8);
}

TEST_CASE("checkers: running out of shadow memory is a std::bad_alloc with its own message") {
  try {
    throw checker::ShadowOutOfMemory("simt check: racecheck ran out of memory");
  } catch (const std::bad_alloc &error) { // what pybind11 makes a MemoryError of
    CHECK(std::string(error.what()) == "simt check: racecheck ran out of memory");
  }
}

TEST_CASE("initcheck: tracking memory takes a page of states per page it touches") {
  const uint64_t page = uint64_t(1) << sim::WatchedPages::kPageBits;
  CHECK(checker::InitTracker::bytes_for(0) >= page);
  CHECK(checker::InitTracker::bytes_for(256 * page) >= 256 * page);
  CHECK(checker::InitTracker::bytes_for(256 * page) <= 258 * (page + 64));
}
