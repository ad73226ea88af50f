// WarcWriter: WARC 1.1 files of request and response records, the format web archives
// (Heritrix, wget --warc-file, pywb) read. Each record is its own gzip member, so a reader can
// seek to any record; a file is rotated once it passes max_file_bytes. A file being written is
// named *.warc.gz.open and renamed to *.warc.gz, after an fsync, when it is complete.
// Safe from many threads. Format decisions (decoded payloads, digests): docs/warc.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "base/file_system.h"

namespace bloomcrawl {

struct WarcOptions {
  std::filesystem::path directory;
  uint64_t max_file_bytes = 1000ull << 20;
  std::string prefix = "bloomcrawl";
  std::string software = "bloomcrawl/0.1";
};

// One HTTP exchange as the fetcher saw it.
struct WarcExchange {
  std::string url;
  std::string remote_ip;
  std::chrono::system_clock::time_point date;
  std::string request_head;   // request line and headers as sent, ending in an empty line
  std::string response_head;  // status line and headers as received, ending in an empty line
  std::string payload;        // the entity body, after content decoding
};

class WarcWriter {
 public:
  // Throws std::runtime_error naming the directory when it cannot be created.
  explicit WarcWriter(WarcOptions options);
  ~WarcWriter();
  WarcWriter(const WarcWriter&) = delete;
  WarcWriter& operator=(const WarcWriter&) = delete;

  // Appends a response record and its request record (WARC-Concurrent-To the response).
  // Throws CheckpointError naming the file on a write error; the torn exchange is cut off, the
  // file completed, and every later write throws (the crawl stops: docs/outcomes.md).
  void write(const WarcExchange& exchange);
  // Completes the current file (fsync, rename). Later writes start a new file.
  void close();

  uint64_t records_written() const;
  uint64_t files_completed() const;

 private:
  void open_file();
  void close_locked();
  void append_record(const std::string& warc_headers, const std::string& block);
  void abandon_file_locked(uint64_t whole_bytes);

  WarcOptions options_;
  mutable std::mutex mu_;
  std::unique_ptr<WritableFile> file_;
  std::filesystem::path open_path_;
  uint64_t file_bytes_ = 0;
  uint64_t serial_ = 0;
  uint64_t records_ = 0;
  uint64_t files_completed_ = 0;
  std::string error_;  // the write failure after which nothing more is written
};

// The HTTP response head to archive with a decoded payload: Content-Encoding and
// Transfer-Encoding no longer describe the stored bytes, so they are dropped and
// Content-Length is set to the payload's length.
std::string warc_response_head(const std::string& response_head, size_t payload_length);

// "sha1:" and the RFC 4648 base32 SHA-1 of `data`, the digest form WARC readers expect.
std::string warc_sha1_digest(const std::string& data);

}  // namespace bloomcrawl
