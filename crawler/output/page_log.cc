#include "crawler/output/page_log.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace bloomcrawl {
namespace {

std::ofstream open_append(const std::filesystem::path& path) {
  std::ofstream out(path, std::ios::app | std::ios::binary);
  if (!out) throw std::runtime_error(path.string() + ": cannot open for writing");
  return out;
}

}  // namespace

PageLog::PageLog(const std::filesystem::path& dir, bool edges) : edges_enabled_(edges) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir.string() + ": cannot create output directory: " + ec.message());
  pages_ = open_append(dir / "pages.jsonl");
  if (edges_enabled_) edges_ = open_append(dir / "edges.jsonl");
}

void PageLog::write_page(const PageRecord& r) {
  nlohmann::json j = {{"url", r.url},           {"status", r.status},   {"outcome", r.outcome},
                      {"content_type", r.content_type}, {"bytes", r.bytes}, {"depth", r.depth},
                      {"parent", r.parent},     {"fetch_ms", r.fetch_ms}, {"links_found", r.links_found},
                      {"links_new", r.links_new}};
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.location.empty()) j["location"] = r.location;
  // Invalid UTF-8 from a hostile server is replaced, never thrown.
  std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.push_back('\n');
  std::lock_guard<std::mutex> lock(mu_);
  // Written through at once: a page the journal records as done must be in pages.jsonl even
  // after a kill -9 (one write per page is nothing next to its fetch).
  pages_ << line << std::flush;
}

void PageLog::write_edges(const std::string& from, const std::vector<std::string>& to) {
  if (!edges_enabled_) return;
  nlohmann::json j = {{"from", from}, {"to", to}};
  std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.push_back('\n');
  std::lock_guard<std::mutex> lock(mu_);
  edges_ << line;
}

void PageLog::flush() {
  std::lock_guard<std::mutex> lock(mu_);
  pages_.flush();
  if (edges_enabled_) edges_.flush();
}

}  // namespace bloomcrawl
