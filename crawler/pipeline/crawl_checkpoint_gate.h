// CheckpointGate: the brief pause in which a crawl checkpoint is cut. Work that changes
// checkpointed state and writes its journal records (admitting links, dispatching, completing a
// fetch, processing a page) runs inside pass(); cut() waits until no such work is running, keeps
// new work out while its function runs, then lets it go. Unlike std::shared_mutex (glibc's
// rwlock prefers readers) a waiting cut is never starved by a steady stream of parse workers.
// Not reentrant: a pass() must not nest in another on the same thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace bloomcrawl {

class CheckpointGate {
 public:
  class Pass {
   public:
    explicit Pass(CheckpointGate& gate) : gate_(gate) { gate_.enter(); }
    ~Pass() { gate_.leave(); }
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;

   private:
    CheckpointGate& gate_;
  };

  template <typename Fn>
  void cut(Fn&& fn) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return !cutting_; });
    cutting_ = true;
    changed_.wait(lock, [&] { return active_ == 0; });
    fn();
    cutting_ = false;
    lock.unlock();
    changed_.notify_all();
  }

 private:
  void enter() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return !cutting_; });
    ++active_;
  }
  void leave() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--active_ == 0) changed_.notify_all();
  }

  std::mutex mu_;
  std::condition_variable changed_;
  uint64_t active_ = 0;
  bool cutting_ = false;
};

}  // namespace bloomcrawl
