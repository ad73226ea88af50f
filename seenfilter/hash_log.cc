#include "seenfilter/hash_log.h"

#include <cerrno>
#include <cstdio>
#include <memory>

#include "base/checksum.h"
#include "base/coding.h"
#include "base/data_error.h"

namespace bloomcrawl::seenfilter {
namespace {

constexpr char kMagic[8] = {'B', 'C', 'S', 'F', 'H', 'L', 'O', 'G'};
constexpr uint32_t kVersion = 1;

std::string encode_header() {
  std::string out(kMagic, sizeof kMagic);
  put_le(out, kVersion, 4);
  put_le(out, 0, 4);
  return out;
}

void check_header(std::string_view header, const std::string& file) {
  if (header.size() < kHashLogHeaderBytes || header.substr(0, 8) != std::string_view(kMagic, 8)) {
    throw CheckpointError(file, "not a hash log (bad magic or truncated header)");
  }
  const uint64_t version = get_le(header, 8, 4);
  if (version != kVersion) throw CheckpointError(file, "unsupported hash log version " + std::to_string(version));
  if (get_le(header, 12, 4) != 0) throw CheckpointError(file, "hash log header: reserved field not zero");
}

uint32_t record_check(const void* payload, size_t bytes) { return static_cast<uint32_t>(checksum64(payload, bytes)); }

// One record's header and payload, or false when they are incomplete or fail the check.
bool parse_record(std::string_view header, std::string_view payload_source, std::vector<uint64_t>& hashes) {
  const auto count = static_cast<uint32_t>(get_le(header, 0, 4));
  if (count == 0 || count > kMaxHashLogRecordKeys || payload_source.size() < size_t{count} * 8) return false;
  const std::string_view payload = payload_source.substr(0, size_t{count} * 8);
  if (record_check(payload.data(), payload.size()) != static_cast<uint32_t>(get_le(header, 4, 4))) return false;
  hashes.resize(count);
  get_le_words<uint64_t>(payload, 0, hashes);
  return true;
}

}  // namespace

HashLogContents decode_hash_log(std::string_view bytes, const std::string& file, const HashLogVisitor& visit) {
  check_header(bytes, file);
  HashLogContents contents;
  contents.valid_bytes = kHashLogHeaderBytes;
  std::vector<uint64_t> hashes;
  size_t at = kHashLogHeaderBytes;
  while (at + kHashLogRecordHeaderBytes <= bytes.size()) {
    const std::string_view header = bytes.substr(at, kHashLogRecordHeaderBytes);
    if (!parse_record(header, bytes.substr(at + kHashLogRecordHeaderBytes), hashes)) break;
    visit(hashes);
    at += kHashLogRecordHeaderBytes + hashes.size() * 8;
    contents.keys += hashes.size();
    contents.valid_bytes = at;
  }
  contents.torn_tail = contents.valid_bytes != bytes.size();
  return contents;
}

HashLogContents read_hash_log(const std::filesystem::path& path, const HashLogVisitor& visit, uint64_t first_key) {
  const std::string file = path.string();
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(file.c_str(), "rb"), &std::fclose);
  if (!in) throw_file_error(path, "cannot open hash log", errno);
  std::string header(kHashLogHeaderBytes, '\0');
  header.resize(std::fread(header.data(), 1, header.size(), in.get()));
  check_header(header, file);
  HashLogContents contents;
  contents.valid_bytes = kHashLogHeaderBytes;
  std::string record(kHashLogRecordHeaderBytes + size_t{kMaxHashLogRecordKeys} * 8, '\0');
  std::vector<uint64_t> hashes;
  for (;;) {
    const size_t got_header = std::fread(record.data(), 1, kHashLogRecordHeaderBytes, in.get());
    if (got_header == 0) break;
    contents.torn_tail = true;  // until the record proves intact
    if (got_header < kHashLogRecordHeaderBytes) break;
    const auto count = static_cast<uint32_t>(get_le(record, 0, 4));
    if (count == 0 || count > kMaxHashLogRecordKeys) break;
    const size_t payload = size_t{count} * 8;
    if (contents.keys + count <= first_key) {
      // Skipped unread: the records before a run's keys were checked by the build that read them.
      if (std::fseek(in.get(), static_cast<long>(payload), SEEK_CUR) != 0) break;
      contents.torn_tail = false;
      contents.keys += count;
      contents.valid_bytes += kHashLogRecordHeaderBytes + payload;
      continue;
    }
    const size_t got = std::fread(record.data() + kHashLogRecordHeaderBytes, 1, payload, in.get());
    const std::string_view view(record.data(), kHashLogRecordHeaderBytes + got);
    if (!parse_record(view.substr(0, kHashLogRecordHeaderBytes), view.substr(kHashLogRecordHeaderBytes), hashes)) {
      break;
    }
    contents.torn_tail = false;
    const uint64_t skip = first_key > contents.keys ? first_key - contents.keys : 0;
    visit(std::span<const uint64_t>(hashes).subspan(skip));
    contents.keys += count;
    contents.valid_bytes += kHashLogRecordHeaderBytes + payload;
  }
  if (std::ferror(in.get()) != 0) throw CheckpointError(file, "read error in hash log");
  return contents;
}

uint64_t HashLogWriter::cut(const std::filesystem::path& path, uint64_t keep_keys, std::vector<uint64_t>* partial) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (keep_keys != 0) {
      throw CheckpointError(path.string(),
                            "hash log missing, the checkpoint covers " + std::to_string(keep_keys) + " keys");
    }
    WritableFile file(path, FileSystem::Mode::kTruncate);
    file.append(encode_header());
    file.close();
    return 0;
  }
  // Cut at the first record boundary at or past keep_keys, remembering what of the record that
  // straddles it must be written back.
  uint64_t boundary_bytes = kHashLogHeaderBytes;
  uint64_t boundary_keys = 0;
  bool reached = keep_keys == 0;
  const HashLogContents contents = read_hash_log(path, [&](std::span<const uint64_t> hashes) {
    if (reached) return;
    if (boundary_keys + hashes.size() > keep_keys) {
      partial->assign(hashes.begin(), hashes.begin() + static_cast<std::ptrdiff_t>(keep_keys - boundary_keys));
      reached = true;
      return;
    }
    boundary_keys += hashes.size();
    boundary_bytes += kHashLogRecordHeaderBytes + hashes.size() * 8;
    reached = boundary_keys == keep_keys;
  });
  if (contents.keys < keep_keys) {
    throw CheckpointError(path.string(), "hash log holds " + std::to_string(contents.keys) +
                                             " intact keys, the checkpoint covers " + std::to_string(keep_keys));
  }
  if (const int error = file_system().truncate(path, boundary_bytes); error != 0) {
    throw_file_error(path, "cannot cut hash log", error);
  }
  return boundary_keys + partial->size();
}

HashLogWriter::HashLogWriter(const std::filesystem::path& path, uint64_t keep_keys)
    : keys_(cut(path, keep_keys, &buffer_)), file_(path, FileSystem::Mode::kAppend) {
  flush();  // the kept part of a record the cut went through
  buffer_.reserve(kMaxHashLogRecordKeys);
}

void HashLogWriter::append(std::span<const uint64_t> hashes) {
  while (!hashes.empty()) {
    const size_t room = kMaxHashLogRecordKeys - buffer_.size();
    const size_t take = std::min(room, hashes.size());
    buffer_.insert(buffer_.end(), hashes.begin(), hashes.begin() + static_cast<std::ptrdiff_t>(take));
    hashes = hashes.subspan(take);
    keys_ += take;
    if (buffer_.size() == kMaxHashLogRecordKeys) flush();
  }
}

void HashLogWriter::write_record(std::span<const uint64_t> hashes) {
  std::string record;
  record.reserve(kHashLogRecordHeaderBytes + hashes.size() * 8);
  put_le(record, hashes.size(), 4);
  put_le(record, 0, 4);
  put_le_words(record, hashes);
  store_u32(reinterpret_cast<uint8_t*>(record.data()) + 4,
            record_check(record.data() + kHashLogRecordHeaderBytes, hashes.size() * 8));
  file_.append(record);
}

void HashLogWriter::flush() {
  if (buffer_.empty()) return;
  write_record(buffer_);
  buffer_.clear();
}

void HashLogWriter::sync() {
  flush();
  file_.sync_data();
}

}  // namespace bloomcrawl::seenfilter
