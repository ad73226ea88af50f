#include "crawler/persist/journal.h"

#include <system_error>

#include <spdlog/spdlog.h>

#include "base/checksum.h"
#include "base/coding.h"
#include "base/data_error.h"
#include "base/durable_file.h"
#include "base/file_system.h"

namespace bloomcrawl {
namespace {

// Covers the length too, so a damaged length is caught rather than trusted.
uint32_t record_checksum(std::string_view length_type_payload) { return uint32_t(checksum64(length_type_payload)); }

}  // namespace

void JournalBatch::add(uint8_t type, std::string_view payload) {
  const size_t start = bytes_.size();
  bytes_.append(4, '\0');  // checksum, filled below
  put_le(bytes_, payload.size(), 4);
  bytes_.push_back(char(type));
  bytes_.append(payload);
  const uint32_t sum = record_checksum(std::string_view(bytes_).substr(start + 4));
  store_u32(reinterpret_cast<uint8_t*>(bytes_.data() + start), sum);
  ++count_;
}

JournalWriter::JournalWriter(std::filesystem::path path, JournalOptions options, SyncOutputs sync_outputs)
    : path_(std::move(path)), options_(options), sync_outputs_(std::move(sync_outputs)) {
  FileSystem& fs = file_system();
  if (const int error = fs.open_for_write(path_, FileSystem::Mode::kTruncate, &fd_)) {
    throw_file_error(path_, "cannot create journal", error);
  }
  int error = fs.write(fd_, kJournalMagic.data(), kJournalMagic.size());
  if (error == 0) error = fs.sync(fd_);
  if (error != 0) {
    fs.close(fd_);  // the write's failure is the one reported
    throw_file_error(path_, "cannot write journal header", error);
  }
  bytes_ = kJournalMagic.size();
  try {
    sync_directory(path_.parent_path());
  } catch (const CheckpointError&) {
    fs.close(fd_);  // no destructor runs for an object whose constructor throws
    throw;
  }
  syncer_ = std::thread([this] { sync_loop(); });
}

JournalWriter::~JournalWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  wake_.notify_all();
  syncer_.join();
  commit(false);  // a failure is logged by fail_locked: whoever needed the journal durable called sync()
  if (const int error = file_system().close(fd_)) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_locked("close failed", error);
  }
}

void JournalWriter::fail_locked(const std::string& failure) {
  if (!failure_.empty()) return;
  pending_entries_ = 0;  // nothing more will be synced: the background thread rests
  held_.clear();         // never written: their outputs may not be durable
  failure_ = failure;
  spdlog::error("{}: journal {}; disabled, so pages since the last checkpoint may be fetched again after a crash",
                path_.string(), failure_);
}

void JournalWriter::fail_locked(const std::string& what, int error) {
  fail_locked(what + ": " + std::generic_category().message(error));
}

void JournalWriter::append(const JournalBatch& batch) {
  if (batch.empty()) return;
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failure_.empty()) return;
    held_ += batch.bytes();
    pending_entries_ += batch.count();
    wake = pending_entries_ >= options_.group_entries;
  }
  if (wake) wake_.notify_one();
}

void JournalWriter::append_now(const JournalBatch& batch) {
  if (batch.empty()) return;
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failure_.empty()) return;
    if (const int error = file_system().write(fd_, batch.bytes().data(), batch.bytes().size())) {
      fail_locked("write failed", error);
      return;
    }
    bytes_ += batch.bytes().size();
    unsynced_ = true;
    pending_entries_ += batch.count();
    wake = pending_entries_ >= options_.group_entries;
  }
  if (wake) wake_.notify_one();
}

void JournalWriter::commit(bool always_sync) {
  std::lock_guard<std::mutex> one_at_a_time(commit_mu_);
  std::string held;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failure_.empty() || (held_.empty() && !unsynced_ && !always_sync)) return;
    held.swap(held_);
    pending_entries_ = 0;
  }
  // Every held record was appended after the outputs it describes were written, and so before
  // this sync of them began.
  if (!held.empty() && sync_outputs_) {
    try {
      sync_outputs_();
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(mu_);
      fail_locked(std::string("not committed, its outputs not durable: ") + e.what());
      return;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failure_.empty()) return;  // append_now() failed meanwhile
    if (!held.empty()) {
      if (const int error = file_system().write(fd_, held.data(), held.size())) {
        fail_locked("write failed", error);
        return;
      }
      bytes_ += held.size();
    }
    unsynced_ = false;
    // append_now()s since the first block are in the file, so this fdatasync covers them. With
    // nothing held either, nothing is pending: a count left standing would keep sync_loop's wait
    // satisfied with nothing to commit, and it would spin holding mu_.
    if (held_.empty()) pending_entries_ = 0;
  }
  const int error = file_system().sync_data(fd_);  // outside mu_: appends go on while the disk catches up
  if (error != 0) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_locked("fdatasync failed", error);
  }
}

void JournalWriter::sync() {
  commit(true);
  std::lock_guard<std::mutex> lock(mu_);
  // Also when a background commit failed before: its pages may be among ours.
  if (!failure_.empty()) throw CheckpointError(path_.string(), "journal disabled: " + failure_);
}

uint64_t JournalWriter::bytes_written() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

std::string JournalWriter::failure() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failure_;
}

void JournalWriter::sync_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!closing_) {
    wake_.wait_for(lock, options_.group_interval,
                   [&] { return closing_ || pending_entries_ >= options_.group_entries; });
    if (closing_ || (held_.empty() && !unsynced_)) continue;
    lock.unlock();
    commit(false);
    lock.lock();
  }
}

JournalContents parse_journal(std::string_view bytes, const std::string& name) {
  JournalContents out;
  if (bytes.size() < kJournalMagic.size()) {
    // Created and killed before its header reached the file: an empty journal.
    if (kJournalMagic.substr(0, bytes.size()) != bytes) throw CheckpointError(name, "not a journal (bad magic)");
    out.problem = "torn header (" + std::to_string(bytes.size()) + " bytes): empty journal";
    return out;
  }
  if (bytes.substr(0, kJournalMagic.size()) != kJournalMagic) {
    if (bytes.substr(0, 6) == kJournalMagic.substr(0, 6)) {
      throw CheckpointError(name, "unsupported journal version " + std::to_string(uint8_t(bytes[7])));
    }
    throw CheckpointError(name, "not a journal (bad magic)");
  }
  size_t pos = kJournalMagic.size();
  out.valid_bytes = pos;
  while (pos < bytes.size()) {
    const size_t left = bytes.size() - pos;
    const std::string at = " at offset " + std::to_string(pos);
    if (left < kJournalRecordHeaderBytes) {
      out.problem = "torn record header" + at + " (" + std::to_string(left) + " bytes)";
      break;
    }
    const auto length = uint32_t(get_le(bytes, pos + 4, 4));
    if (length > kJournalMaxPayloadBytes) {
      out.problem = "bad record length " + std::to_string(length) + at;
      break;
    }
    if (left < kJournalRecordHeaderBytes + length) {
      out.problem = "torn record" + at + " (" + std::to_string(left) + " of " +
                    std::to_string(kJournalRecordHeaderBytes + length) + " bytes)";
      break;
    }
    if (record_checksum(bytes.substr(pos + 4, 5 + length)) != get_le(bytes, pos, 4)) {
      out.problem = "checksum mismatch" + at;
      break;
    }
    out.records.push_back({uint8_t(bytes[pos + 8]), std::string(bytes.substr(pos + 9, length))});
    pos += kJournalRecordHeaderBytes + length;
    out.valid_bytes = pos;
  }
  return out;
}

JournalContents read_journal_file(const std::filesystem::path& path) {
  return parse_journal(read_whole_file(path), path.string());
}

}  // namespace bloomcrawl
