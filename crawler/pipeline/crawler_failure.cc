// The crawl's one clean stop (crawler.h, fail()): every error that must end the crawl, from any
// thread, and the guard that turns what a stage or a thread throws into one (docs/outcomes.md).
#include <spdlog/spdlog.h>

#include "base/data_error.h"

#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawler.h"

namespace bloomcrawl {

void Crawler::fail(const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(failure_mu_);
    if (!failure_.empty()) return;
    failure_ = why;
  }
  failed_.store(true);
  spdlog::error("{}: the crawl stops; its outputs are incomplete until it is resumed", why);
  stop();
}

std::string Crawler::failure() const {
  std::lock_guard<std::mutex> lock(failure_mu_);
  return failure_;
}

bool Crawler::or_fail(std::string_view where, const std::function<void()>& step) {
  try {
    step();
    return true;
  } catch (const CheckpointError& e) {
    fail(e.what());  // names the file or directory that failed
  } catch (const std::exception& e) {
    fail(std::string(where) + ": " + e.what());
  } catch (...) {
    fail(std::string(where) + ": an exception of unknown type");
  }
  return false;
}

void Crawler::fail_on_store_failure() {
  if (std::string f = checkpointer_->failure(); !f.empty()) fail(f);
  if (std::string f = frontier_.failure(); !f.empty()) fail(f);
}

}  // namespace bloomcrawl
