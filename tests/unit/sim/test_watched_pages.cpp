// The pages whose accesses instrumented code reports (sim/watched_pages.h): counted reasons, and
// each page's predecessor watched with it (an access may start there and reach into the page).
#include "sim/watched_pages.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>

using simt::sim::WatchedPages;

namespace {

constexpr uintptr_t kPage = uintptr_t(1) << WatchedPages::kPageBits;

} // namespace

TEST_CASE("watched pages: nothing is watched at first, in any part of the address space") {
  WatchedPages watched;
  for (uintptr_t address : {uintptr_t(0), uintptr_t(0x7fff12345678), uintptr_t(1) << 40})
    CHECK_FALSE(watched.watched(address));
}

TEST_CASE("watched pages: a watched page and the one before it, until every reason is undone") {
  WatchedPages watched;
  const uintptr_t page = uintptr_t(0x7f0012340000);
  watched.watch(page + 100);
  CHECK(watched.watched(page));
  CHECK(watched.watched(page + kPage - 1));
  CHECK(watched.watched(page - kPage)); // an access starting there may end in the page
  CHECK_FALSE(watched.watched(page + kPage));
  CHECK_FALSE(watched.watched(page - 2 * kPage));
  watched.watch(page + kPage); // two reasons for `page` now: its own and its successor's
  watched.unwatch(page);
  CHECK(watched.watched(page));
  CHECK_FALSE(watched.watched(page - kPage));
  watched.unwatch(page + kPage);
  CHECK_FALSE(watched.watched(page));
  CHECK_FALSE(watched.watched(page + kPage));
}

TEST_CASE("watched pages: pages 1 GiB apart are in different leaves of the table") {
  WatchedPages watched;
  const uintptr_t gib = uintptr_t(1) << 30;
  watched.watch(5 * gib); // the page before it is in the previous leaf
  CHECK(watched.watched(5 * gib));
  CHECK(watched.watched(5 * gib - 1));
  CHECK_FALSE(watched.watched(6 * gib));
  CHECK(watched.root()[5] != nullptr);
  CHECK(watched.root()[4] != nullptr);
  CHECK(watched.root()[6] == nullptr);
  // A leaf leaves the root once none of its pages is watched: one load tells code so.
  watched.unwatch(5 * gib);
  CHECK(watched.root()[5] == nullptr);
  CHECK(watched.root()[4] == nullptr);
  watched.watch(5 * gib + kPage);
  CHECK(watched.root()[5] != nullptr);
  CHECK(watched.root()[4] == nullptr);
  CHECK(watched.watched(5 * gib + kPage));
}

TEST_CASE("watched pages: undoing a reason never given is a logic error") {
  WatchedPages watched;
  CHECK_THROWS_AS(watched.unwatch(kPage * 7), std::logic_error);
}
