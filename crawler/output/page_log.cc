#include "crawler/output/page_log.h"

#include <stdexcept>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "base/data_error.h"

namespace bloomcrawl {
namespace {

constexpr size_t kEdgesBufferBytes = 64 << 10;

std::unique_ptr<WritableFile> open_append(const std::filesystem::path& path) {
  return std::make_unique<WritableFile>(path, FileSystem::Mode::kAppend);
}

}  // namespace

PageLog::PageLog(const std::filesystem::path& dir, bool edges) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir.string() + ": cannot create output directory: " + ec.message());
  pages_ = open_append(dir / "pages.jsonl");
  if (edges) edges_ = open_append(dir / "edges.jsonl");
}

PageLog::~PageLog() { flush(); }

void PageLog::write_page(const PageRecord& r) {
  nlohmann::json j = {{"url", r.url},
                      {"status", r.status},
                      {"outcome", r.outcome},
                      {"content_type", r.content_type},
                      {"bytes", r.bytes},
                      {"depth", r.depth},
                      {"parent", r.parent},
                      {"fetch_ms", r.fetch_ms},
                      {"links_found", r.links_found},
                      {"links_new", r.links_new}};
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.location.empty()) j["location"] = r.location;
  // Invalid UTF-8 from a hostile server is replaced, never thrown.
  std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.push_back('\n');
  std::lock_guard<std::mutex> lock(mu_);
  // Written through at once: a page the journal records as done must be in pages.jsonl even
  // after a kill -9 (one write per page is nothing next to its fetch).
  write_or_give_up(pages_, line);
}

void PageLog::write_edges(const std::string& from, const std::vector<std::string>& to) {
  if (!edges_) return;
  nlohmann::json j = {{"from", from}, {"to", to}};
  std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.push_back('\n');
  std::lock_guard<std::mutex> lock(mu_);
  edges_buffer_ += line;
  if (edges_buffer_.size() >= kEdgesBufferBytes) flush_edges_locked();
}

void PageLog::flush() {
  std::lock_guard<std::mutex> lock(mu_);
  flush_edges_locked();
}

void PageLog::flush_edges_locked() {
  write_or_give_up(edges_, edges_buffer_);
  edges_buffer_.clear();
}

void PageLog::write_or_give_up(std::unique_ptr<WritableFile>& file, const std::string& bytes) {
  if (!file || bytes.empty()) return;
  try {
    file->append(bytes);
  } catch (const CheckpointError& e) {
    spdlog::error("{}; no more records are written to it", e.what());
    file.reset();
  }
}

}  // namespace bloomcrawl
