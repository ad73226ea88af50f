// PageLog: pages.jsonl (one JSON record per fetch) and optionally edges.jsonl (the link graph:
// one record per page with the canonical URLs of its in-scope links). Safe from many threads;
// each record is one line written whole, so a crash leaves at most a torn last line. Bytes reach
// the OS through base/file_system.h; a failed write is logged once and that file given up (the
// crawl goes on, as for the journal).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/file_system.h"

namespace bloomcrawl {

struct PageRecord {
  std::string url;
  std::string parent;  // the page this URL was found on; empty for seeds
  uint32_t depth = 0;
  long status = 0;      // 0 when no response was received
  std::string outcome;  // "ok", a fetch outcome ("timeout", ...) or "robots_disallowed"
  std::string error;
  std::string content_type;
  uint64_t bytes = 0;  // decoded body bytes received
  double fetch_ms = 0;
  std::string location;  // redirect target, canonical, when the status is 3xx
  uint32_t links_found = 0;
  uint32_t links_new = 0;
};

class PageLog {
 public:
  // Appends to DIR/pages.jsonl (and DIR/edges.jsonl when `edges`), creating DIR. Throws
  // std::runtime_error (CheckpointError) naming the file when it cannot be opened.
  PageLog(const std::filesystem::path& dir, bool edges);
  ~PageLog();  // writes the edges still buffered

  void write_page(const PageRecord& record);
  void write_edges(const std::string& from, const std::vector<std::string>& to);
  void flush();

 private:
  // Writes `bytes` to `file`; after a failure, logs it and drops the file.
  static void write_or_give_up(std::unique_ptr<WritableFile>& file, const std::string& bytes);
  void flush_edges_locked();

  std::mutex mu_;
  std::unique_ptr<WritableFile> pages_;
  std::unique_ptr<WritableFile> edges_;
  std::string edges_buffer_;  // edges are not needed after a crash: written in large pieces
};

}  // namespace bloomcrawl
