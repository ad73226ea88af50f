// PageLog: pages.jsonl (one JSON record per admitted URL: its fetch, or why it was not fetched;
// docs/outcomes.md; its fields: docs/pages-format.md) and optionally edges.jsonl (the link graph: one record per page
// with the canonical URLs of its in-scope links). Safe from many threads; each record is one line, written whole and
// at once (a kill -9 keeps it). Bytes reach the OS through base/file_system.h. A failed write throws CheckpointError
// naming the file, and that file takes no more writes: every later write throws too, since a line appended after a
// torn one would be glued to it. Opening cuts each file back to its last complete line, so a record torn by a failed
// write or a kill is dropped (its page was not marked done, and a resume writes it again).
// Durability: sync() makes every line written so far reach the disk (a file that failed a write is still synced: its
// whole lines are good); the crawl's journal calls it before it marks those pages done (crawler/persist/journal.h). A
// failed fdatasync fails its file for good, for writes and syncs alike: the kernel may have dropped what it held.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/file_system.h"
#include "crawler/fetch/fetcher.h"

namespace bloomcrawl {

struct PageRecord {
  std::string url;
  std::string parent;  // the page this URL was found on; empty for seeds
  uint32_t depth = 0;
  long status = 0;      // 0 when no response was received
  std::string outcome;  // "ok", a fetch outcome ("timeout", ...) or why it was not fetched (docs/outcomes.md)
  std::string error;
  std::string content_type;
  uint64_t bytes = 0;  // decoded body bytes received
  double fetch_ms = 0;
  std::string location;  // redirect target, canonical, when the status is 3xx
  uint32_t links_found = 0;
  uint32_t links_new = 0;
  bool links_truncated = false;  // part of the page was not parsed for links (docs/links.md)
  // Content seen (docs/content-seen.md): the URL the same 200 body was first fetched at; the
  // earlier page whose text's SimHash is within 3 bits.
  std::string duplicate_of;
  std::string near_duplicate_of;
  // Set when a request was sent; the fields after it are written only then, each if known.
  std::optional<std::chrono::system_clock::time_point> fetch_time;
  std::string ip;
  std::string http_version;
  uint64_t wire_bytes = 0;     // header lines and body as received
  std::string payload_digest;  // FetchResult::payload_digest, WARC's
  bool truncated = false;      // FetchResult::body_truncated: the body was cut at a limit
  // The response's validators as received, for the URL's record (a revisit sends them back); not
  // written to pages.jsonl.
  std::string etag;
  std::string last_modified;
};

// Copies the fetch attempt's fields (fetch_time and after) from the fetcher's result.
void record_fetch(const FetchResult& result, PageRecord* record);

// Where pages.jsonl and edges.jsonl ended once a page's line was written.
struct PageLogEnds {
  uint64_t pages = 0;  // the end of the line just written
  uint64_t edges = 0;  // edges.jsonl's length (0 without edges): past any edges line written before
};

class PageLog {
 public:
  // Appends to DIR/pages.jsonl (and DIR/edges.jsonl when `edges`), creating DIR. Throws
  // std::runtime_error (CheckpointError) naming the file when it cannot be opened or cut back.
  PageLog(const std::filesystem::path& dir, bool edges);
  ~PageLog();  // syncs and closes both files; a failure is logged (the crawl called sync() before)
  PageLog(const PageLog&) = delete;
  PageLog& operator=(const PageLog&) = delete;

  // A crawl's journal keeps the returned ends in the page's completed record (a resume trusts it
  // only if the files reach them).
  PageLogEnds write_page(const PageRecord& record);
  void write_edges(const std::string& from, const std::vector<std::string>& to);
  // fdatasyncs both files, outside the writers' lock; throws CheckpointError naming the file whose
  // fdatasync fails, now or failed before.
  void sync();

 private:
  struct Output {
    std::filesystem::path path;
    // Shared with a sync() in progress, so that a failure meanwhile cannot close it under the sync.
    std::shared_ptr<WritableFile> file;
    std::string write_error;  // the failed write after which nothing more is written
    std::string sync_error;   // the failed fdatasync after which nothing is written or synced
    uint64_t bytes = 0;       // the file's length: its length when opened and the lines written since
  };
  static void open(Output& out, const std::filesystem::path& path);
  // Writes `bytes` to `out`; throws on failure and from then on.
  static void write(Output& out, const std::string& bytes);
  // fdatasyncs `file` (taken from `out` under mu_); on failure, closes `out` for good and throws.
  void sync_output(Output& out, const std::shared_ptr<WritableFile>& file);

  std::mutex mu_;
  Output pages_;
  Output edges_;
};

}  // namespace bloomcrawl
