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

  // Runs `fn` while no pass runs. Whatever `fn` does, throwing included, the gate opens again
  // when it ends and every waiting pass and cut is woken: a cut that threw (a failed frontier
  // store, exhausted memory) must not leave every thread of the crawl waiting for good.
  template <typename Fn>
  void cut(Fn&& fn) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return !cutting_; });
    cutting_ = true;
    const Reopen reopen{*this, lock};
    changed_.wait(lock, [&] { return active_ == 0; });
    fn();
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

  // Ends a cut on every path out of it, an exception's included (the lock is held on each).
  struct Reopen {
    Reopen(CheckpointGate& g, std::unique_lock<std::mutex>& l) : gate(g), lock(l) {}
    Reopen(const Reopen&) = delete;
    Reopen& operator=(const Reopen&) = delete;
    ~Reopen() {
      gate.cutting_ = false;
      lock.unlock();
      gate.changed_.notify_all();
    }
    CheckpointGate& gate;
    std::unique_lock<std::mutex>& lock;
  };

  std::mutex mu_;
  std::condition_variable changed_;
  uint64_t active_ = 0;
  bool cutting_ = false;
};

}  // namespace bloomcrawl
