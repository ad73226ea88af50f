// run_concurrently: `threads` threads that start `body(thread_index)` together (behind a latch, so
// they overlap as much as they can) and are all joined before it returns. For concurrency tests,
// which also run under TSan.
#pragma once

#include <functional>
#include <latch>
#include <thread>
#include <vector>

namespace bloomcrawl::testing {

inline void run_concurrently(int threads, const std::function<void(int)>& body) {
  std::latch start(threads);
  std::vector<std::thread> running;
  running.reserve(threads);
  for (int t = 0; t < threads; ++t) {
    running.emplace_back([&, t] {
      start.arrive_and_wait();
      body(t);
    });
  }
  for (std::thread& thread : running) thread.join();
}

}  // namespace bloomcrawl::testing
