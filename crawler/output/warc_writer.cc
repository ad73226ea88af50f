#include "crawler/output/warc_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>
#include <stdexcept>

#include "base/data_error.h"
#include "base/durable_file.h"
#include "crawler/fetch/payload_digest.h"
#include "crawler/output/cdxj.h"
#include "crawler/output/timestamp.h"
#include "crawler/output/warc_gzip.h"

namespace bloomcrawl {

// The file being written. Its own lock orders the syncer's fdatasync against completion, so the
// writers' lock is not held while the disk syncs.
struct WarcWriter::OpenFile {
  explicit OpenFile(const std::filesystem::path& path) : file(path, FileSystem::Mode::kTruncate) {}
  WritableFile file;
  std::mutex mu;
  bool closed = false;
};

namespace {

std::string record_id() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng();
  uint64_t lo = rng();
  hi = (hi & 0xffffffffffff0fffull) | 0x4000;                 // version 4
  lo = (lo & 0x3fffffffffffffffull) | 0x8000000000000000ull;  // RFC 4122 variant
  char buf[64];
  std::snprintf(buf, sizeof buf, "<urn:uuid:%08x-%04x-%04x-%04x-%012llx>", uint32_t(hi >> 32),
                uint32_t(hi >> 16) & 0xffff, uint32_t(hi) & 0xffff, uint32_t(lo >> 48),
                (unsigned long long)(lo & 0xffffffffffffull));
  return buf;
}

// The WARC header block of a record: its fields, the block's length and the empty line.
std::string record_head(const std::string& fields, size_t block_length) {
  return "WARC/1.1\r\n" + fields + "Content-Length: " + std::to_string(block_length) + "\r\n\r\n";
}

// A worker's compressor and the buffer its exchange's records are built in, reused across
// exchanges (and writers) so that archiving a page allocates almost nothing.
struct ThreadScratch {
  WarcGzip gzip;
  PayloadDigest digest;
  std::string bytes;

  // `bytes` emptied; a buffer grown by a rare large record is freed rather than kept by the thread.
  std::string& empty_bytes() {
    bytes.clear();
    if (bytes.capacity() > kWarcGzipKeepBytes) std::string().swap(bytes);
    return bytes;
  }
};

ThreadScratch& thread_scratch() {
  thread_local ThreadScratch scratch;
  return scratch;
}

// The final response head: captured heads include any 1xx responses before it.
std::string_view last_response_head(std::string_view heads) {
  size_t end = heads.size();
  while (end >= 4 && heads.compare(end - 4, 4, "\r\n\r\n") == 0) end -= 2;
  size_t start = heads.rfind("\r\n\r\n", end > 4 ? end - 4 : 0);
  return start == std::string_view::npos || start + 4 > end ? heads : heads.substr(start + 4);
}

}  // namespace

WarcExchange warc_exchange_of(const FetchResult& result) {
  return {.url = result.url,
          .remote_ip = result.remote_ip,
          .date = result.fetch_time,
          .request_head = result.request_headers,
          .response_head = last_response_head(result.response_headers),
          .body = received_body(result),
          .payload_digest = result.payload_digest,
          .status = result.status,
          .content_type = result.content_type};
}

WarcWriter::WarcWriter(WarcOptions options) : options_(std::move(options)) {
  std::error_code ec;
  std::filesystem::create_directories(options_.directory, ec);
  if (ec) throw std::runtime_error(options_.directory.string() + ": cannot create WARC directory: " + ec.message());
  syncer_ = std::thread([this] { sync_loop(); });
}

WarcWriter::~WarcWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  wake_.notify_all();
  syncer_.join();
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() already reported nothing better to do
  }
}

void WarcWriter::open_file_locked() {
  char stamp[32];
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
  char name[256];
  std::snprintf(name, sizeof name, "%s-%s-%05llu-%d.warc.gz", options_.prefix.c_str(), stamp,
                (unsigned long long)serial_++, int(getpid()));
  filename_ = name;
  open_path_ = options_.directory / (filename_ + ".open");
  file_ = std::make_shared<OpenFile>(open_path_);
  file_bytes_ = 0;
  index_lines_.clear();
  const std::string info = "software: " + options_.software + "\r\nformat: WARC File Format 1.1\r\n" +
                           "conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/"
                           "warc-1.1/\r\n";
  const std::string fields = "WARC-Type: warcinfo\r\nWARC-Record-ID: " + record_id() +
                             "\r\nWARC-Date: " + rfc3339_utc_ms(std::chrono::system_clock::now()) +
                             "\r\nWARC-Filename: " + filename_ + "\r\nContent-Type: application/warc-fields\r\n";
  // Its own buffer: the thread's holds the exchange that opens the file.
  std::string bytes;
  thread_scratch().gzip.append_member({record_head(fields, info.size()), info, "\r\n\r\n"}, &bytes);
  append_locked(bytes);
  ++records_;
}

void WarcWriter::append_locked(std::string_view bytes) {
  file_->file.append(bytes);
  file_bytes_ += bytes.size();
  unsynced_ = true;
}

void WarcWriter::write(const WarcExchange& x) {
  const std::string response_id = record_id();
  const std::string date = rfc3339_utc_ms(x.date);
  std::string common = "WARC-Date: " + date + "\r\nWARC-Target-URI: " + std::string(x.url) + "\r\n";
  if (!x.remote_ip.empty()) common += "WARC-IP-Address: " + std::string(x.remote_ip) + "\r\n";
  ThreadScratch& scratch = thread_scratch();
  PayloadDigest& block_digest = scratch.digest;
  block_digest.reset();
  block_digest.update(x.response_head);
  block_digest.update(x.body);
  std::string response_fields = "WARC-Type: response\r\nWARC-Record-ID: " + response_id + "\r\n" + common;
  if (!x.payload_digest.empty()) response_fields += "WARC-Payload-Digest: " + std::string(x.payload_digest) + "\r\n";
  response_fields +=
      "WARC-Block-Digest: " + block_digest.finish() + "\r\nContent-Type: application/http;msgtype=response\r\n";
  const std::string request_fields = "WARC-Type: request\r\nWARC-Record-ID: " + record_id() + "\r\n" + common +
                                     "WARC-Concurrent-To: " + response_id +
                                     "\r\nWARC-Block-Digest: " + sha1_base32_digest(x.request_head) +
                                     "\r\nContent-Type: application/http;msgtype=request\r\n";
  // Compressed here, on the caller's thread: the lock below covers only the write.
  std::string& bytes = scratch.empty_bytes();
  scratch.gzip.append_member(
      {record_head(response_fields, x.response_head.size() + x.body.size()), x.response_head, x.body, "\r\n\r\n"},
      &bytes);
  const uint64_t response_length = bytes.size();
  scratch.gzip.append_member({record_head(request_fields, x.request_head.size()), x.request_head, "\r\n\r\n"}, &bytes);
  const std::string index_start = cdxj_line_start(x.url, date, x.content_type, x.status, x.payload_digest);

  std::lock_guard<std::mutex> lock(mu_);
  if (!error_.empty()) {
    throw CheckpointError(options_.directory.string(), "not written after an earlier failure: " + error_);
  }
  const uint64_t whole_bytes = file_ ? file_bytes_ : 0;
  const uint64_t whole_records = records_;
  try {
    if (!file_) open_file_locked();
    const uint64_t offset = file_bytes_;
    append_locked(bytes);  // one write(): a kill leaves the exchange whole or, at worst, its tail torn
    records_ += 2;
    index_lines_.push_back(index_start + cdxj_line_end(response_length, offset, filename_));
  } catch (const CheckpointError& e) {
    error_ = e.what();
    records_ = whole_records;
    abandon_file_locked(whole_bytes);
    throw;
  }
  if (file_bytes_ < options_.max_file_bytes) return;
  try {
    close_locked();
  } catch (const CheckpointError& e) {
    error_ = e.what();  // the exchange is whole in its file; nothing more is written
    throw;
  }
}

// The exchanges before the failed one are whole: the torn one is cut off and the file completed,
// so what was archived stays readable. If that fails too, the file keeps its .open name, which
// says it is incomplete (docs/warc.md).
void WarcWriter::abandon_file_locked(uint64_t whole_bytes) {
  if (!file_) return;
  try {
    if (whole_bytes == 0) {
      file_.reset();
      file_system().remove(open_path_);
      return;
    }
    if (const int error = file_system().truncate(open_path_, whole_bytes)) {
      throw_file_error(open_path_, "cannot cut a torn record", error);
    }
    file_bytes_ = whole_bytes;
    close_locked();
  } catch (const CheckpointError&) {
    file_.reset();
  }
}

void WarcWriter::close() {
  std::lock_guard<std::mutex> lock(mu_);
  close_locked();
}

void WarcWriter::close_locked() {
  if (!file_) return;
  const std::shared_ptr<OpenFile> open = std::move(file_);
  std::vector<std::string> index_lines = std::move(index_lines_);
  index_lines_.clear();
  {
    std::lock_guard<std::mutex> file_lock(open->mu);
    open->closed = true;
    open->file.sync();
    open->file.close();
  }
  unsynced_ = false;
  const std::filesystem::path done = options_.directory / filename_;
  if (const int error = file_system().rename(open_path_, done)) throw_file_error(done, "rename failed", error);
  ++files_completed_;
  // After the file: when the index cannot be written (a full disk), the records stay readable.
  std::sort(index_lines.begin(), index_lines.end());
  std::string index;
  for (const std::string& line : index_lines) index += line;
  const std::string stem = filename_.substr(0, filename_.size() - std::string_view(".warc.gz").size());
  write_file_durably(options_.directory / (stem + ".cdxj"), index.data(), index.size());
}

// Group commit: one fdatasync covers every record written since the last, off the writers' lock.
void WarcWriter::sync_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!closing_) {
    wake_.wait_for(lock, options_.sync_interval, [&] { return closing_; });
    if (closing_ || !unsynced_ || !file_) continue;
    unsynced_ = false;
    const std::shared_ptr<OpenFile> open = file_;
    lock.unlock();
    std::string failure;
    {
      std::lock_guard<std::mutex> file_lock(open->mu);
      if (!open->closed) {
        try {
          open->file.sync_data();
        } catch (const CheckpointError& e) {
          failure = e.what();
        }
      }
    }
    lock.lock();
    if (!failure.empty() && error_.empty()) error_ = failure;
  }
}

uint64_t WarcWriter::records_written() const {
  std::lock_guard<std::mutex> lock(mu_);
  return records_;
}

uint64_t WarcWriter::files_completed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return files_completed_;
}

}  // namespace bloomcrawl
