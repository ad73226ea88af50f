// HostQueue and its RecordFifo: breadth-first order, push_front, front-coding round trips, chunk
// growth and release of drained chunks.
#include "frontier/host_queue.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "frontier/host_queue_chunks.h"
#include "tests/support/frontier_testing.h"

namespace bloomcrawl {
namespace {

using testing::numbered;

std::vector<std::pair<std::string, uint32_t>> drain(HostQueue& queue) {
  std::vector<std::pair<std::string, uint32_t>> out;
  std::string url;
  while (!queue.empty()) {
    const uint32_t depth = queue.pop_front(&url);
    out.emplace_back(url, depth);
  }
  return out;
}

TEST(HostQueueTest, LowerDepthFirstFifoWithin) {
  const std::string reference = "https://example.com/";
  HostQueue queue;
  queue.set_reference_prefix(reference);
  queue.push_back("https://example.com/b", 1);
  queue.push_back("https://example.com/", 0);
  queue.push_back("https://example.com/c", 1);
  queue.push_back("https://example.com/x/y", 5);
  queue.push_front("https://example.com/a", 1);
  EXPECT_EQ(queue.size(), 5u);
  const std::vector<std::pair<std::string, uint32_t>> expected{{"https://example.com/", 0},
                                                               {"https://example.com/a", 1},
                                                               {"https://example.com/b", 1},
                                                               {"https://example.com/c", 1},
                                                               {"https://example.com/x/y", 5}};
  std::vector<std::pair<std::string, uint32_t>> visited;
  queue.for_each([&](std::string_view url, uint32_t depth) { visited.emplace_back(url, depth); });
  EXPECT_EQ(visited, expected);
  EXPECT_EQ(drain(queue), expected);
  EXPECT_EQ(queue.allocated_bytes(), 0u) << "a drained queue holds no memory";
}

TEST(HostQueueTest, UrlsNotSharingTheReferenceRoundTrip) {
  const std::string reference = "https://example.com/";
  HostQueue queue;
  queue.set_reference_prefix(reference);
  const std::vector<std::string> urls{
      "", "h", "http://other/", std::string(5000, 'z'), std::string("bin\0ary", 7), "https://example.com/"};
  for (const std::string& url : urls) queue.push_back(url, 0);
  std::vector<std::string> out;
  for (auto& [url, depth] : drain(queue)) out.push_back(url);
  EXPECT_EQ(out, urls);
}

TEST(HostQueueTest, WithoutReferenceStoresWholeUrls) {
  HostQueue queue;
  queue.push_back("abc", 0);
  queue.push_back("abd", 0);
  EXPECT_EQ(drain(queue), (std::vector<std::pair<std::string, uint32_t>>{{"abc", 0}, {"abd", 0}}));
}

TEST(HostQueueTest, FrontCodingStoresOnlySuffixes) {
  const std::string reference = "https://www.example.com/articles/";
  HostQueue queue;
  queue.set_reference_prefix(reference);
  size_t raw = 0;
  for (int i = 0; i < 10000; ++i) {
    const std::string url = numbered(reference, i);
    raw += url.size();
    queue.push_back(url, 0);
  }
  EXPECT_LT(queue.allocated_bytes(), raw / 3);
  std::string url;
  for (int i = 0; i < 10000; ++i) {
    queue.pop_front(&url);
    ASSERT_EQ(url, numbered(reference, i));
  }
}

TEST(RecordFifoTest, InterleavedPushesAndPopsKeepOrderAcrossChunks) {
  RecordFifo fifo;
  int next_in = 0;
  int next_out = 0;
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < 7; ++i, ++next_in) fifo.push_back(next_in % 300, numbered("record-", next_in));
    for (int i = 0; i < 5; ++i, ++next_out) {
      ASSERT_FALSE(fifo.empty());
      const RecordFifo::Record record = fifo.front();
      ASSERT_EQ(record.tag, static_cast<uint32_t>(next_out % 300));
      ASSERT_EQ(record.bytes, numbered("record-", next_out));
      fifo.pop_front();
    }
  }
  EXPECT_EQ(fifo.size(), static_cast<uint32_t>(next_in - next_out));
  EXPECT_GT(fifo.allocated_bytes(), 0u);
}

TEST(RecordFifoTest, PushFrontReusesVacatedSpaceAndNewChunks) {
  RecordFifo fifo;
  fifo.push_back(1, "one");
  fifo.push_back(2, "two");
  const size_t before = fifo.allocated_bytes();
  fifo.pop_front();
  fifo.push_front(1, "one");
  EXPECT_EQ(fifo.allocated_bytes(), before);
  fifo.push_front(0, std::string(100, 'x'));  // no room in front: a chunk of its own
  EXPECT_GT(fifo.allocated_bytes(), before);
  std::vector<std::string> out;
  while (!fifo.empty()) {
    out.emplace_back(fifo.front().bytes);
    fifo.pop_front();
  }
  EXPECT_EQ(out, (std::vector<std::string>{std::string(100, 'x'), "one", "two"}));
  EXPECT_EQ(fifo.allocated_bytes(), 0u);
}

TEST(RecordFifoTest, MoveTransfersOwnership) {
  RecordFifo a;
  a.push_back(7, "x");
  RecordFifo b(std::move(a));
  EXPECT_EQ(b.size(), 1u);
  a = std::move(b);
  EXPECT_EQ(a.front().tag, 7u);
}

}  // namespace
}  // namespace bloomcrawl
