// initcheck's view of memory (checker/init_tracker.h): the poison tracked memory is filled with,
// the state of each byte, and the host writes found by comparing elements with the poison.
#include "checker/init_tracker.h"

#include "tests/unit/checker/bits.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

using namespace simt;
using checker::InitTracker;

using checker::testing::bits_of;

namespace {

uintptr_t address_of(const void *p) { return reinterpret_cast<uintptr_t>(p); }

} // namespace

TEST_CASE("initcheck: poison fills floats with a NaN payload and other elements with 0xCD") {
  SUBCASE("float32") {
    float data[4] = {1, 2, 3, 4};
    checker::poison(data, sizeof data, Scalar::F32);
    for (float value : data) {
      CHECK(value != value); // a NaN
      CHECK(bits_of(value) == 0x7fffdeadu);
    }
  }
  SUBCASE("float64") {
    double data[3] = {1, 2, 3};
    checker::poison(data, sizeof data, Scalar::F64);
    for (double value : data) {
      CHECK(value != value);
      CHECK(bits_of(value) == 0x7fffdeaddeaddeadull);
    }
  }
  SUBCASE("complex64: both parts") {
    float data[4] = {};
    checker::poison(data, sizeof data, Scalar::C64);
    for (float value : data)
      CHECK(bits_of(value) == 0x7fffdeadu);
  }
  SUBCASE("float16: a NaN") {
    uint16_t data[2] = {};
    checker::poison(data, sizeof data, Scalar::F16);
    CHECK(data[0] == 0x7fff);
    CHECK(data[1] == 0x7fff);
  }
  SUBCASE("int8 and int32: 0xCD bytes") {
    int8_t small[5] = {};
    checker::poison(small, sizeof small, Scalar::I8);
    for (int8_t value : small)
      CHECK(uint8_t(value) == 0xcd);
    int32_t words[2] = {};
    checker::poison(words, sizeof words, Scalar::I32);
    CHECK(uint32_t(words[0]) == 0xcdcdcdcdu);
    CHECK(uint32_t(words[1]) == 0xcdcdcdcdu);
  }
  SUBCASE("bytes past the last whole element: 0xCD") {
    uint8_t data[10] = {};
    checker::poison(data, sizeof data, Scalar::F32);
    CHECK(bits_of(reinterpret_cast<float *>(data)[0]) == 0x7fffdeadu);
    CHECK(data[8] == 0xcd);
    CHECK(data[9] == 0xcd);
  }
}

TEST_CASE("initcheck: track poisons memory and marks every byte uninitialised") {
  std::vector<float> data(8, 1.0f);
  const uintptr_t start = address_of(data.data());
  sim::WatchedPages watched;
  InitTracker tracker(watched, 1u << InitTracker::Uninitialised);
  tracker.track(start, 32, Scalar::F32);
  for (float value : data)
    CHECK(bits_of(value) == 0x7fffdeadu);
  CHECK(tracker.find(start, 32, InitTracker::Uninitialised) == start);
  CHECK(tracker.find(start + 31, 1, InitTracker::Uninitialised) == start + 31);
  CHECK(tracker.find(start, 32, InitTracker::Initialised) == 0);
  CHECK(tracker.find(start, 32, InitTracker::Freed) == 0);
}

TEST_CASE("initcheck: find names the first byte in the state asked for, or 0") {
  std::vector<float> data(16);
  const uintptr_t start = address_of(data.data());
  sim::WatchedPages watched;
  InitTracker tracker(watched, 1u << InitTracker::Uninitialised);
  CHECK(tracker.find(start, 64, InitTracker::Uninitialised) == 0); // nothing tracked yet
  tracker.track(start, 64, Scalar::F32);
  tracker.written(start, 16); // elements 0..3
  CHECK(tracker.find(start, 64, InitTracker::Uninitialised) == start + 16);
  CHECK(tracker.find(start, 16, InitTracker::Uninitialised) == 0);
  CHECK(tracker.find(start, 64, InitTracker::Initialised) == start);
  CHECK(tracker.find(start + 16, 48, InitTracker::Initialised) == 0);
  tracker.written(start + 40, 4); // element 10
  CHECK(tracker.find(start + 16, 48, InitTracker::Initialised) == start + 40);
}

TEST_CASE("initcheck: written changes only uninitialised bytes") {
  std::vector<int32_t> data(12);
  const uintptr_t start = address_of(data.data());
  sim::WatchedPages watched;
  InitTracker tracker(watched, 1u << InitTracker::Uninitialised);
  tracker.track(start + 8, 16, Scalar::I32);      // elements 2..5 tracked; the rest untracked
  tracker.set(start + 16, 4, InitTracker::Freed); // element 4 freed
  tracker.written(start, 48);
  CHECK(tracker.find(start, 48, InitTracker::Initialised) == start + 8);
  CHECK(tracker.find(start, 8, InitTracker::Initialised) == 0);       // untracked stays so
  CHECK(tracker.find(start + 24, 24, InitTracker::Initialised) == 0); // past the tracked part
  CHECK(tracker.find(start, 48, InitTracker::Freed) == start + 16);   // freed stays freed
  CHECK(tracker.find(start, 48, InitTracker::Uninitialised) == 0);
  CHECK(data[0] == 0); // written() only marks; it does not touch memory
}

TEST_CASE("initcheck: freed memory is found until it is forgotten") {
  std::vector<double> data(4);
  const uintptr_t start = address_of(data.data());
  sim::WatchedPages watched;
  InitTracker tracker(watched, 1u << InitTracker::Uninitialised);
  tracker.track(start, 32, Scalar::F64);
  tracker.written(start, 8);
  tracker.set(start + 8, 24, InitTracker::Freed);
  CHECK(tracker.find(start, 32, InitTracker::Freed) == start + 8);
  CHECK(tracker.find(start, 32, InitTracker::Uninitialised) == 0);
  tracker.forget(start, 32);
  CHECK(tracker.find(start, 32, InitTracker::Freed) == 0);
  CHECK(tracker.find(start, 32, InitTracker::Initialised) == 0);
  CHECK(tracker.find(start, 32, InitTracker::Uninitialised) == 0);
}

TEST_CASE("initcheck: clear forgets every byte") {
  std::vector<float> data(4);
  const uintptr_t start = address_of(data.data());
  sim::WatchedPages watched;
  InitTracker tracker(watched, 1u << InitTracker::Uninitialised);
  tracker.track(start, 16, Scalar::F32, 0, true);
  tracker.clear();
  CHECK(tracker.find(start, 16, InitTracker::Uninitialised) == 0);
  data[1] = 2.0f;
  tracker.notice_host_writes(start, 16); // no longer scanned
  CHECK(tracker.find(start, 16, InitTracker::Initialised) == 0);
}

TEST_CASE("initcheck: the host's writes to host-scanned memory are noticed, element by element") {
  std::vector<float> data(8);
  const uintptr_t start = address_of(data.data());
  sim::WatchedPages watched;
  InitTracker tracker(watched, 1u << InitTracker::Uninitialised);
  tracker.track(start, 32, Scalar::F32, 0, true);
  data[2] = 1.0f; // the host writes element 2 (a NumPy write into mapped memory)
  const uint32_t poison = 0x7fffdead;
  std::memcpy(&data[5], &poison, 4); // element 5 rewritten with the poison itself: unnoticeable
  tracker.notice_host_writes(start, 32);
  CHECK(tracker.find(start, 32, InitTracker::Initialised) == start + 8);
  CHECK(tracker.find(start + 12, 20, InitTracker::Initialised) == 0);
  CHECK(tracker.find(start + 8, 4, InitTracker::Uninitialised) == 0);
  CHECK(tracker.find(start + 20, 4, InitTracker::Uninitialised) == start + 20);
}

TEST_CASE("initcheck: notice_host_writes looks at host-scanned allocations only") {
  std::vector<float> data(8);
  const uintptr_t start = address_of(data.data());
  sim::WatchedPages watched;
  InitTracker tracker(watched, 1u << InitTracker::Uninitialised);
  tracker.track(start, 32, Scalar::F32); // device-only memory: the host writes it by copies
  data[2] = 1.0f;
  tracker.notice_host_writes(start, 32);
  CHECK(tracker.find(start, 32, InitTracker::Initialised) == 0);
  CHECK(tracker.find(start + 8, 4, InitTracker::Uninitialised) == start + 8);
}

TEST_CASE("initcheck: notice_host_writes looks only within the range it is given") {
  std::vector<float> data(8);
  const uintptr_t start = address_of(data.data());
  sim::WatchedPages watched;
  InitTracker tracker(watched, 1u << InitTracker::Uninitialised);
  tracker.track(start, 32, Scalar::F32, 0, true);
  data[1] = 1.0f;
  data[6] = 2.0f;
  tracker.notice_host_writes(start + 16, 16); // elements 4..7 (an argument array's view)
  CHECK(tracker.find(start, 32, InitTracker::Initialised) == start + 24);
  CHECK(tracker.find(start + 4, 4, InitTracker::Uninitialised) == start + 4);
}

TEST_CASE("initcheck: a forgotten allocation is no longer host-scanned") {
  std::vector<float> data(4);
  const uintptr_t start = address_of(data.data());
  sim::WatchedPages watched;
  InitTracker tracker(watched, 1u << InitTracker::Uninitialised);
  tracker.track(start, 16, Scalar::F32, 0, true);
  tracker.forget(start, 16);
  tracker.set(start, 16, InitTracker::Uninitialised); // tracked again, not scanned
  data[0] = 1.0f;
  tracker.notice_host_writes(start, 16);
  CHECK(tracker.find(start, 16, InitTracker::Initialised) == 0);
}

TEST_CASE("initcheck: records are poisoned with 0xCD and compared whole") {
  constexpr uint64_t kItem = 12; // a record of three int32 fields (dtype U8, itemsize 12)
  std::vector<uint8_t> data(3 * kItem);
  const uintptr_t start = address_of(data.data());
  sim::WatchedPages watched;
  InitTracker tracker(watched, 1u << InitTracker::Uninitialised);
  tracker.track(start, data.size(), Scalar::U8, kItem, true);
  for (uint8_t byte : data)
    CHECK(byte == 0xcd);
  data[kItem + 5] = 0; // one byte of record 1's second field
  tracker.notice_host_writes(start, data.size());
  // The whole of record 1 is initialised, records 0 and 2 none of theirs.
  CHECK(tracker.find(start, data.size(), InitTracker::Initialised) == start + kItem);
  CHECK(tracker.find(start + kItem, kItem, InitTracker::Uninitialised) == 0);
  CHECK(tracker.find(start + 2 * kItem, kItem, InitTracker::Initialised) == 0);
  CHECK(tracker.find(start, kItem, InitTracker::Initialised) == 0);
}

TEST_CASE("initcheck: a record crossing a page boundary is initialised whole") {
  constexpr uint64_t kItem = 12;
  constexpr uint64_t kRecords = 1024; // 12 KiB
  std::vector<uint8_t> buffer(kItem * kRecords + 4);
  // The records start where one of them straddles the first page boundary past the start.
  uintptr_t start = address_of(buffer.data());
  const uintptr_t boundary = (start | 4095) + 1;
  if ((boundary - start) % kItem == 0)
    start += 4;
  const uint64_t bytes = kItem * kRecords;
  uint8_t *data = reinterpret_cast<uint8_t *>(start);
  sim::WatchedPages watched;
  InitTracker tracker(watched, 1u << InitTracker::Uninitialised);
  tracker.track(start, bytes, Scalar::U8, kItem, true);
  const uint64_t record = (boundary - start) / kItem;
  const uintptr_t first = start + record * kItem;
  REQUIRE(first < boundary);
  REQUIRE(first + kItem > boundary);
  data[record * kItem] = 1; // a byte before the boundary
  tracker.notice_host_writes(start, bytes);
  CHECK(tracker.find(start, bytes, InitTracker::Initialised) == first);
  CHECK(tracker.find(first, kItem, InitTracker::Uninitialised) == 0);
  CHECK(tracker.find(boundary, first + kItem - boundary, InitTracker::Initialised) == boundary);
  CHECK(tracker.find(first + kItem, bytes - (record + 1) * kItem, InitTracker::Initialised) == 0);
}

// A record whose first field the kernel wrote in one launch and whose second field the host then
// wrote (mapped or pinned memory): the element no longer holds the poison and some of its bytes
// are still uninitialised, so those become initialised (not only when its first byte is).
TEST_CASE("initcheck: a host write to a record the kernel wrote in part is noticed") {
  constexpr uint64_t kItem = 12;
  std::vector<uint8_t> data(2 * kItem);
  const uintptr_t start = address_of(data.data());
  sim::WatchedPages watched;
  InitTracker tracker(watched, 1u << InitTracker::Uninitialised);
  tracker.track(start, data.size(), Scalar::U8, kItem, true);
  std::memset(&data[0], 0, 4); // the kernel writes field 0 of record 0...
  tracker.written(start, 4);
  std::memset(&data[4], 0, 4); // ...and the host field 1
  tracker.notice_host_writes(start, data.size());
  CHECK(tracker.find(start + 4, 4, InitTracker::Uninitialised) == 0);
}

TEST_CASE("initcheck: pages holding a watched state are watched until no byte is in one") {
  sim::WatchedPages watched;
  InitTracker tracker(watched, 1u << InitTracker::Uninitialised | 1u << InitTracker::Freed);
  constexpr uintptr_t page = uintptr_t(1) << sim::WatchedPages::kPageBits;
  std::vector<float> data(3 * page / sizeof(float) + page / sizeof(float));
  // The second and third whole pages of `data`.
  const uintptr_t start = (address_of(data.data()) + page - 1) & ~(page - 1);
  tracker.track(start + page - 8, 16, Scalar::F32); // 8 bytes in each of two pages
  CHECK(watched.watched(start));                    // the page before an access may reach into
  CHECK(watched.watched(start + page));
  CHECK_FALSE(watched.watched(start + 2 * page));
  tracker.written(start + page - 8, 8); // the first page's bytes all written
  CHECK(watched.watched(start));        // still: the next page has uninitialised bytes
  CHECK(watched.watched(start + page));
  tracker.written(start + page, 8);
  CHECK_FALSE(watched.watched(start));
  CHECK_FALSE(watched.watched(start + page));
  tracker.set(start + page, 4, InitTracker::Freed); // freed memory: memcheck's to watch
  CHECK(watched.watched(start + page));
  tracker.forget(start + page, 4);
  CHECK_FALSE(watched.watched(start + page));
  tracker.track(start, 4, Scalar::F32);
  tracker.clear(); // forgets what it watched
  CHECK_FALSE(watched.watched(start));
}

TEST_CASE("initcheck: only the states asked for are watched") {
  sim::WatchedPages watched;
  InitTracker tracker(watched, 1u << InitTracker::Freed);
  std::vector<float> data(16);
  tracker.track(address_of(data.data()), 64, Scalar::F32);
  CHECK_FALSE(watched.watched(address_of(data.data())));
  tracker.set(address_of(data.data()), 4, InitTracker::Freed);
  CHECK(watched.watched(address_of(data.data())));
}
