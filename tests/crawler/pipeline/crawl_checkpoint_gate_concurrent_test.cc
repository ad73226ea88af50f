// CheckpointGate when a cut throws (a failed frontier store, exhausted memory): the gate opens
// again and wakes every pass and cut that waited for it, instead of leaving the crawl's threads
// waiting for good. Waits are on the events themselves; the futures' time limits only turn a
// hang into a failure.
#include "crawler/pipeline/crawl_checkpoint_gate.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <stdexcept>

namespace bloomcrawl {
namespace {

constexpr std::chrono::seconds kHang{30};

TEST(CheckpointGateTest, ACutThatThrowsOpensTheGateForThePassesWaitingOnIt) {
  CheckpointGate gate;
  std::promise<void> cutting;
  std::promise<void> release_cut;
  std::future<void> cut = std::async(std::launch::async, [&] {
    gate.cut([&] {
      cutting.set_value();
      release_cut.get_future().wait();
      throw std::runtime_error("the frontier store failed");
    });
  });
  cutting.get_future().wait();  // the cut holds the gate
  std::future<void> pass = std::async(std::launch::async, [&] { CheckpointGate::Pass entered(gate); });
  // Not a synchronisation: the pass must not get in while the cut runs, however long we look.
  EXPECT_EQ(pass.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout) << "a pass ran in a cut";
  release_cut.set_value();
  EXPECT_THROW(cut.get(), std::runtime_error);
  ASSERT_EQ(pass.wait_for(kHang), std::future_status::ready) << "a pass still waits on a cut that threw";
}

TEST(CheckpointGateTest, AfterACutThatThrewPassesAndCutsGoOn) {
  CheckpointGate gate;
  EXPECT_THROW(gate.cut([] { throw std::bad_alloc(); }), std::bad_alloc);
  bool ran = false;
  std::future<void> next = std::async(std::launch::async, [&] {
    { CheckpointGate::Pass pass(gate); }
    gate.cut([&] { ran = true; });
  });
  ASSERT_EQ(next.wait_for(kHang), std::future_status::ready) << "the gate stayed shut";
  next.get();
  EXPECT_TRUE(ran);
}

// A cut waiting for another that throws runs once that one ends.
TEST(CheckpointGateTest, ACutWaitingBehindOneThatThrowsRuns) {
  CheckpointGate gate;
  std::promise<void> first_running;
  std::promise<void> release_first;
  std::future<void> first = std::async(std::launch::async, [&] {
    gate.cut([&] {
      first_running.set_value();
      release_first.get_future().wait();
      throw std::runtime_error("no");
    });
  });
  first_running.get_future().wait();
  bool second_ran = false;
  std::future<void> second = std::async(std::launch::async, [&] { gate.cut([&] { second_ran = true; }); });
  release_first.set_value();
  EXPECT_THROW(first.get(), std::runtime_error);
  ASSERT_EQ(second.wait_for(kHang), std::future_status::ready) << "the second cut never ran";
  second.get();
  EXPECT_TRUE(second_ran);
}

}  // namespace
}  // namespace bloomcrawl
