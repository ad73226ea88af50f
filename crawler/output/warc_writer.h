// WarcWriter: WARC 1.1 files of response and request records holding HTTP exchanges as received,
// the format web archives (Heritrix, wget --warc-file, pywb) read, each file with a CDXJ index
// beside it. Each record is its own gzip member, so a reader can seek to any record; a file is
// rotated once it passes max_file_bytes. A file being written is named *.warc.gz.open; when it is
// complete it is fsync'd, renamed to *.warc.gz, and its index written.
//
// Safe from many threads. write() builds and compresses the exchange's records on the caller's
// thread; its lock covers only the one write() of the finished bytes, so workers compress in
// parallel. When write() returns, the exchange has reached the kernel (a kill -9 keeps it);
// sync() makes it reach the disk, and the crawl's journal calls it before it marks the page done
// (one fdatasync per journal group). A failed fdatasync fails the writer for good: the file keeps
// its .open name (it is not known to be whole), and every later write(), sync() and close()
// throws. Format and durability: docs/warc.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_system.h"
#include "crawler/fetch/fetcher.h"

namespace bloomcrawl {

struct WarcOptions {
  std::filesystem::path directory;
  uint64_t max_file_bytes = 1000ull << 20;
  std::string prefix = "bloomcrawl";
  std::string software = "bloomcrawl/0.1";
};

// One HTTP exchange as the fetcher saw it. The views must stay valid during write().
struct WarcExchange {
  std::string_view url;
  std::string_view remote_ip;
  std::chrono::system_clock::time_point date;  // when the request was started
  std::string_view request_head;               // request line and fields as sent, ending in an empty line
  std::string_view response_head;              // the final status line and fields as received, ending in an empty line
  std::string_view body;                       // the body as received (content coding, chunk framing included)
  std::string_view payload_digest;             // sha1 of the de-chunked body (FetchResult::payload_digest)
  long status = 0;                             // for the index
  std::string_view content_type;               // for the index: the Content-Type field's value
  bool truncated = false;                      // the body was cut at a limit: WARC-Truncated: length
  // A revisit record instead of a response (warc_revisit.h): its WARC-Profile and the original capture.
  std::string_view revisit_profile;
  std::string_view refers_to_uri;
  std::string_view refers_to_date;
};

// Where an exchange ended: its file (the completed name; *.open while written) and that file's
// length past it.
struct WarcMark {
  std::string file;
  uint64_t end = 0;
};

class WarcWriter {
 public:
  // Throws std::runtime_error naming the directory when it cannot be created.
  explicit WarcWriter(WarcOptions options);
  ~WarcWriter();  // close(); a failure is logged (the crawl called close() before)
  WarcWriter(const WarcWriter&) = delete;
  WarcWriter& operator=(const WarcWriter&) = delete;

  // Appends a response record and its request record (WARC-Concurrent-To the response).
  // Throws CheckpointError naming the file on a write error (or a failed background sync
  // before it); the torn exchange is cut off, the file completed, and every later write throws
  // (the crawl stops: docs/outcomes.md).
  WarcMark write(const WarcExchange& x);
  // fdatasyncs what was written to the open file (once: nothing when all is synced). Throws
  // CheckpointError naming the file when it fails, now or before.
  void sync();
  // Completes the current file (fsync, rename, index, fsync of the directory). Later writes start
  // a new file. Throws CheckpointError naming the file on a failure, now or an earlier sync's.
  void close();

  uint64_t records_written() const;
  uint64_t files_completed() const;

 private:
  struct OpenFile;

  void open_file_locked();
  void close_locked();
  void append_locked(std::string_view bytes);
  void abandon_file_locked(uint64_t whole_bytes);
  // Under mu_: throws if an fdatasync failed.
  void check_synced_locked() const;

  WarcOptions options_;
  mutable std::mutex mu_;
  std::shared_ptr<OpenFile> file_;  // shared with the syncer while it syncs
  std::filesystem::path open_path_;
  std::string filename_;  // the name the file will have when complete
  uint64_t file_bytes_ = 0;
  std::vector<std::string> index_lines_;  // the open file's CDXJ lines, sorted when it is completed
  uint64_t serial_ = 0;
  uint64_t records_ = 0;
  uint64_t files_completed_ = 0;
  bool unsynced_ = false;
  std::string error_;       // the write or sync failure after which nothing more is written
  std::string sync_error_;  // a failed fdatasync: the open file is not completed
};

// The exchange of a fetch made with FetchOptions::capture_headers: views into `result`.
WarcExchange warc_exchange_of(const FetchResult& result);

}  // namespace bloomcrawl
