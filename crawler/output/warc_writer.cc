#include "crawler/output/warc_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>

#include <openssl/sha.h>
#include <zlib.h>

#include "base/data_error.h"

namespace bloomcrawl {
namespace {

std::string iso_date(std::chrono::system_clock::time_point t) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

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

std::string gzip_member(const std::string& data) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("zlib: deflateInit2 failed");
  }
  std::string out(deflateBound(&zs, uLong(data.size())) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = uInt(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = uInt(out.size());
  int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("zlib: deflate did not finish");
  return out;
}

bool header_is(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  }
  return true;
}

}  // namespace

std::string warc_sha1_digest(const std::string& data) {
  unsigned char sha[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(data.data()), data.size(), sha);
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out = "sha1:";
  uint64_t buffer = 0;
  int bits = 0;
  for (unsigned char c : sha) {  // 160 bits: exactly 32 base32 digits, no padding
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 5) {
      out.push_back(alphabet[(buffer >> (bits - 5)) & 31]);
      bits -= 5;
    }
  }
  return out;
}

std::string warc_response_head(const std::string& head, size_t payload_length) {
  std::string out;
  size_t pos = 0;
  bool first = true;
  while (pos < head.size()) {
    size_t end = head.find('\n', pos);
    if (end == std::string::npos) end = head.size();
    std::string_view line(head.data() + pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (!first && (header_is(line, "content-encoding") || header_is(line, "transfer-encoding") ||
                   header_is(line, "content-length"))) {
      continue;
    }
    first = false;
    out.append(line).append("\r\n");
  }
  out.append("Content-Length: ").append(std::to_string(payload_length)).append("\r\n\r\n");
  return out;
}

WarcWriter::WarcWriter(WarcOptions options) : options_(std::move(options)) {
  std::error_code ec;
  std::filesystem::create_directories(options_.directory, ec);
  if (ec) throw std::runtime_error(options_.directory.string() + ": cannot create WARC directory: " + ec.message());
}

WarcWriter::~WarcWriter() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() already reported nothing better to do
  }
}

void WarcWriter::open_file() {
  char stamp[32];
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
  char name[256];
  std::snprintf(name, sizeof name, "%s-%s-%05llu-%d.warc.gz.open", options_.prefix.c_str(), stamp,
                (unsigned long long)serial_++, int(getpid()));
  open_path_ = options_.directory / name;
  file_ = std::make_unique<WritableFile>(open_path_, FileSystem::Mode::kTruncate);
  file_bytes_ = 0;
  std::string info = "software: " + options_.software + "\r\nformat: WARC File Format 1.1\r\n" +
                     "conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n";
  std::string filename = open_path_.filename().string();
  filename.resize(filename.size() - 5);  // without ".open": the name the file will have
  append_record("WARC-Type: warcinfo\r\nWARC-Record-ID: " + record_id() +
                    "\r\nWARC-Date: " + iso_date(std::chrono::system_clock::now()) + "\r\nWARC-Filename: " + filename +
                    "\r\nContent-Type: application/warc-fields\r\n",
                info);
}

void WarcWriter::append_record(const std::string& warc_headers, const std::string& block) {
  std::string record = "WARC/1.1\r\n" + warc_headers + "Content-Length: " + std::to_string(block.size()) + "\r\n\r\n" +
                       block + "\r\n\r\n";
  std::string member = gzip_member(record);
  file_->append(member);
  file_bytes_ += member.size();
  ++records_;
}

void WarcWriter::write(const WarcExchange& exchange) {
  const std::string response_id = record_id();
  const std::string date = iso_date(exchange.date);
  std::string response_block = warc_response_head(exchange.response_head, exchange.payload.size()) + exchange.payload;
  std::string common = "WARC-Date: " + date + "\r\nWARC-Target-URI: " + exchange.url + "\r\n";
  if (!exchange.remote_ip.empty()) common += "WARC-IP-Address: " + exchange.remote_ip + "\r\n";
  std::string response_headers = "WARC-Type: response\r\nWARC-Record-ID: " + response_id + "\r\n" + common +
                                 "WARC-Payload-Digest: " + warc_sha1_digest(exchange.payload) +
                                 "\r\nWARC-Block-Digest: " + warc_sha1_digest(response_block) +
                                 "\r\nContent-Type: application/http;msgtype=response\r\n";
  std::string request_headers = "WARC-Type: request\r\nWARC-Record-ID: " + record_id() + "\r\n" + common +
                                "WARC-Concurrent-To: " + response_id +
                                "\r\nWARC-Block-Digest: " + warc_sha1_digest(exchange.request_head) +
                                "\r\nContent-Type: application/http;msgtype=request\r\n";
  std::lock_guard<std::mutex> lock(mu_);
  if (!error_.empty())
    throw CheckpointError(options_.directory.string(), "not written after an earlier failure: " + error_);
  const uint64_t whole_bytes = file_ ? file_bytes_ : 0;
  const uint64_t whole_records = records_;
  try {
    if (!file_) open_file();
    append_record(response_headers, response_block);
    append_record(request_headers, exchange.request_head);
  } catch (const CheckpointError& e) {
    error_ = e.what();
    records_ = whole_records;
    abandon_file_locked(whole_bytes);
    throw;
  }
  if (file_bytes_ >= options_.max_file_bytes) close_locked();
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
  const std::unique_ptr<WritableFile> file = std::move(file_);
  file->sync();
  file->close();
  std::filesystem::path done = open_path_;
  done.replace_extension();  // drop ".open"
  if (const int error = file_system().rename(open_path_, done)) throw_file_error(done, "rename failed", error);
  ++files_completed_;
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
