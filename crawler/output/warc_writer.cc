#include "crawler/output/warc_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <exception>
#include <random>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "base/data_error.h"
#include "base/durable_file.h"
#include "crawler/fetch/payload_digest.h"
#include "crawler/output/cdxj.h"
#include "crawler/output/timestamp.h"
#include "crawler/output/warc_gzip.h"

namespace bloomcrawl {

// The file being written. Its own lock orders sync()'s fdatasync against completion, so the
// writers' lock is not held while the disk syncs.
struct WarcWriter::OpenFile {
  explicit OpenFile(const std::filesystem::path& path) : file(path, FileSystem::Mode::kTruncate) {}
  ~OpenFile() { file.abandon(); }  // completed files were closed (checked); others failed already
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  WritableFile file;
  std::mutex mu;
  bool closed = false;
};

namespace {

constexpr size_t kIndexBatchBytes = 64 << 10;

// A record's WARC-Record-ID: "<urn:uuid:...>" of a random (version 4) UUID, formatted here
// rather than by printf, whose format parsing showed in profiles (two IDs per page).
class RecordId {
 public:
  RecordId() {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    const uint64_t hi = (rng() & 0xffffffffffff0fffull) | 0x4000;                 // version 4
    const uint64_t lo = (rng() & 0x3fffffffffffffffull) | 0x8000000000000000ull;  // RFC 4122 variant
    static constexpr std::string_view kPrefix = "<urn:uuid:";
    char* p = std::copy(kPrefix.begin(), kPrefix.end(), text_);
    p = put_hex(p, hi >> 32, 8);
    *p++ = '-';
    p = put_hex(p, hi >> 16, 4);
    *p++ = '-';
    p = put_hex(p, hi, 4);
    *p++ = '-';
    p = put_hex(p, lo >> 48, 4);
    *p++ = '-';
    p = put_hex(p, lo, 12);
    *p = '>';
  }
  std::string_view view() const { return {text_, sizeof text_}; }

 private:
  static char* put_hex(char* out, uint64_t value, int digits) {
    for (int i = digits - 1; i >= 0; --i) {
      out[i] = "0123456789abcdef"[value & 15];
      value >>= 4;
    }
    return out + digits;
  }
  char text_[47];  // "<urn:uuid:" 36 ">"
};

// The fields both records of an exchange start with, after the version line.
void start_record_head(std::string_view type, const RecordId& id, std::string_view date, const WarcExchange& x,
                       std::string* head) {
  head->assign("WARC/1.1\r\nWARC-Type: ").append(type).append("\r\nWARC-Record-ID: ").append(id.view());
  head->append("\r\nWARC-Date: ").append(date).append("\r\nWARC-Target-URI: ").append(x.url).append("\r\n");
  if (!x.remote_ip.empty()) head->append("WARC-IP-Address: ").append(x.remote_ip).append("\r\n");
}

// The fields both end with, and the empty line that ends the header block.
void finish_record_head(std::string_view block_digest, std::string_view msgtype, size_t block_length,
                        std::string* head) {
  head->append("WARC-Block-Digest: ").append(block_digest);
  head->append("\r\nContent-Type: application/http;msgtype=").append(msgtype);
  head->append("\r\nContent-Length: ").append(std::to_string(block_length)).append("\r\n\r\n");
}

// A worker's compressor and the buffer its exchange's records are built in, reused across
// exchanges (and writers) so that archiving a page allocates almost nothing.
struct ThreadScratch {
  WarcGzip gzip;
  // Request records are stored (level 0), not compressed: a few hundred bytes cost libdeflate its
  // whole setup (its 128 KiB hash table and the Huffman codes) for ~200 bytes saved (docs/warc.md).
  WarcGzip store{0};
  PayloadDigest digest;
  std::string head;  // a record's WARC header block
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
          .content_type = result.content_type,
          .truncated = result.body_truncated};
}

WarcWriter::WarcWriter(WarcOptions options) : options_(std::move(options)) {
  std::error_code ec;
  std::filesystem::create_directories(options_.directory, ec);
  if (ec) throw std::runtime_error(options_.directory.string() + ": cannot create WARC directory: " + ec.message());
}

WarcWriter::~WarcWriter() {
  try {
    close();
  } catch (const CheckpointError& e) {
    spdlog::error("{}", e.what());
  }
}

void WarcWriter::open_file_locked() {
  char stamp[32];
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
  // A name no file of the directory has: two writers of one process in one second (a crawl
  // resumed in the process that ran it, as a library user or a test does) share the stamp, the pid
  // and serial 0, and the second file's rename would replace the first, its records lost.
  std::error_code ec;
  do {
    char name[256];
    std::snprintf(name, sizeof name, "%s-%s-%05llu-%d.warc.gz", options_.prefix.c_str(), stamp,
                  (unsigned long long)serial_++, int(getpid()));
    filename_ = name;
  } while (std::filesystem::exists(options_.directory / filename_, ec) ||
           std::filesystem::exists(options_.directory / (filename_ + ".open"), ec));
  open_path_ = options_.directory / (filename_ + ".open");
  file_ = std::make_shared<OpenFile>(open_path_);
  sync_directory(options_.directory);  // its name, before any of its records can be called durable
  file_bytes_ = 0;
  index_lines_.clear();
  const std::string info = "software: " + options_.software + "\r\nformat: WARC File Format 1.1\r\n" +
                           "conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/"
                           "warc-1.1/\r\n";
  const std::string head =
      "WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: " + std::string(RecordId().view()) +
      "\r\nWARC-Date: " + rfc3339_utc_ms(std::chrono::system_clock::now()) + "\r\nWARC-Filename: " + filename_ +
      "\r\nContent-Type: application/warc-fields\r\nContent-Length: " + std::to_string(info.size()) + "\r\n\r\n";
  // Its own buffer: the thread's holds the exchange that opens the file.
  std::string bytes;
  thread_scratch().gzip.append_member({head, info, "\r\n\r\n"}, &bytes);
  append_locked(bytes);
  ++records_;
}

void WarcWriter::append_locked(std::string_view bytes) {
  file_->file.append(bytes);
  file_bytes_ += bytes.size();
  unsynced_ = true;
}

WarcMark WarcWriter::write(const WarcExchange& x) {
  ThreadScratch& scratch = thread_scratch();
  const RecordId response_id;
  const RecordId request_id;
  const std::string date = rfc3339_utc_ms(x.date);
  scratch.digest.reset();
  scratch.digest.update(x.response_head);
  scratch.digest.update(x.body);
  const std::string response_block_digest = scratch.digest.finish();
  // Built and compressed here, on the caller's thread: the lock below covers only the write.
  std::string& head = scratch.head;
  std::string& bytes = scratch.empty_bytes();
  start_record_head(x.revisit_profile.empty() ? "response" : "revisit", response_id, date, x, &head);
  if (!x.revisit_profile.empty()) {
    head.append("WARC-Profile: ").append(x.revisit_profile).append("\r\nWARC-Refers-To-Target-URI: ");
    head.append(x.refers_to_uri).append("\r\nWARC-Refers-To-Date: ").append(x.refers_to_date).append("\r\n");
  }
  if (!x.payload_digest.empty()) head.append("WARC-Payload-Digest: ").append(x.payload_digest).append("\r\n");
  if (x.truncated) head.append("WARC-Truncated: length\r\n");
  finish_record_head(response_block_digest, "response", x.response_head.size() + x.body.size(), &head);
  scratch.gzip.append_member({head, x.response_head, x.body, "\r\n\r\n"}, &bytes);
  const uint64_t response_length = bytes.size();
  start_record_head("request", request_id, date, x, &head);
  head.append("WARC-Concurrent-To: ").append(response_id.view()).append("\r\n");
  finish_record_head(sha1_base32_digest(x.request_head), "request", x.request_head.size(), &head);
  scratch.store.append_member({head, x.request_head, "\r\n\r\n"}, &bytes);
  std::string index_line = cdxj_line_start(x.url, date, x.content_type, x.status, x.payload_digest);

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
    cdxj_finish_line(response_length, offset, filename_, &index_line);
    index_lines_.push_back(std::move(index_line));
  } catch (const CheckpointError& e) {
    error_ = e.what();
    records_ = whole_records;
    abandon_file_locked(whole_bytes);
    throw;
  }
  WarcMark mark{.file = filename_, .end = file_bytes_};
  if (file_bytes_ < options_.max_file_bytes) return mark;
  try {
    close_locked();
  } catch (const CheckpointError& e) {
    error_ = e.what();  // the exchange is whole in its file; nothing more is written
    throw;
  }
  return mark;
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

void WarcWriter::check_synced_locked() const {
  if (!sync_error_.empty()) throw CheckpointError(open_path_.string(), "left incomplete: " + sync_error_);
}

void WarcWriter::sync() {
  std::shared_ptr<OpenFile> open;
  {
    std::lock_guard<std::mutex> lock(mu_);
    check_synced_locked();
    if (!file_ || !unsynced_) return;
    unsynced_ = false;
    open = file_;
  }
  // Off the writers' lock: workers go on writing while the disk catches up.
  std::exception_ptr failure;
  std::string why;
  {
    std::lock_guard<std::mutex> file_lock(open->mu);
    if (open->closed) return;  // completed meanwhile, fsync'd on the way
    try {
      open->file.sync_data();
    } catch (const CheckpointError& e) {
      failure = std::current_exception();
      why = e.what();
    }
  }
  if (!failure) return;
  {
    std::lock_guard<std::mutex> lock(mu_);  // after the file's lock is let go: close_locked() takes them the other way
    sync_error_ = why;
    if (error_.empty()) error_ = why;
  }
  std::rethrow_exception(failure);
}

void WarcWriter::close() {
  std::lock_guard<std::mutex> lock(mu_);
  try {
    close_locked();
  } catch (const CheckpointError& e) {
    if (error_.empty()) error_ = e.what();
    throw;
  }
}

void WarcWriter::close_locked() {
  if (!file_) return;
  check_synced_locked();  // after a failed fdatasync, a later one proves nothing: not completed
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
  const std::string stem = filename_.substr(0, filename_.size() - std::string_view(".warc.gz").size());
  const std::filesystem::path index_path = options_.directory / (stem + ".cdxj");
  DurableFile index(index_path.string() + ".tmp");
  // Written a batch at a time, each line freed once written: the index joined whole would
  // double its memory at the moment it is largest (~250 bytes a record).
  std::string batch;
  for (std::string& line : index_lines) {
    batch += line;
    std::string().swap(line);
    if (batch.size() < kIndexBatchBytes) continue;
    index.append(batch.data(), batch.size());
    batch.clear();
  }
  index.append(batch.data(), batch.size());
  index.commit(index_path);
  sync_directory(options_.directory);  // both renames
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
