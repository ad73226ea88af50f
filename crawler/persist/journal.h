// Journal: the append-only log a crawl writes between two checkpoints, replayed on resume so a
// page whose fetch completed before a kill -9 is not fetched again (format:
// docs/checkpoint-format.md, "Journal"). It is framing only: typed records are journal_records.h.
//
// Each record is [checksum u32][length u32][type u8][payload]; the checksum (low 32 bits of
// XXH3-64 over length, type and payload) lets the reader tell a record torn by a crash or
// damaged on disk from a good one. Reading stops at the first bad record and says where and why:
// everything after it is untrusted (LevelDB's log makes the same choice for a torn tail).
//
// Durability, and durable before done: a record that says a page's outputs are written (its
// completion) must not be trusted before those outputs reach the disk, or a power loss could leave
// the page marked done without its record in pages.jsonl (the kernel writes dirty pages back in
// any order). A record that says where its outputs ended (a page's completion) is written at once
// with append_now() and checked against the outputs by a resume (docs/checkpoint-format.md,
// "Durable before done"); one that cannot say is held in memory by append() until the next group
// commit, which runs every `group_interval` or once `group_entries` records are pending, on a
// background thread (or in sync()): it calls `sync_outputs` (which fdatasyncs every output file
// written so far; only when records are held), then writes the held records with one write() and
// fdatasyncs the journal. One commit covers every page of its group: the crawl pays one journal
// sync per group, not per page. append_now() records survive a kill -9 the moment it returns.
// The first failed write or fdatasync (of the journal, or of an output in sync_outputs) disables
// the journal for good: after a failed fdatasync the kernel may have dropped the dirty pages and a
// later one can succeed without them, so nothing written after it could honestly be called
// durable. Held records are then never written, sync() throws, and a crawl checkpoint (which
// needs its journal durable before it commits) fails instead of committing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/data_error.h"

namespace bloomcrawl {

inline constexpr std::string_view kJournalMagic{"BCJRNL\x00\x01", 8};  // version 1
inline constexpr size_t kJournalRecordHeaderBytes = 9;
inline constexpr uint32_t kJournalMaxPayloadBytes = 1u << 24;

// Records framed in memory, written together by one JournalWriter::append().
class JournalBatch {
 public:
  void add(uint8_t type, std::string_view payload);
  bool empty() const { return count_ == 0; }
  size_t count() const { return count_; }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
  size_t count_ = 0;
};

struct JournalOptions {
  std::chrono::milliseconds group_interval{100};
  size_t group_entries = 1024;
};

class JournalWriter {
 public:
  // Makes every output a held record may describe durable, or throws (std::exception naming the
  // file). Called from the commit's thread (the background one, or sync()'s caller).
  using SyncOutputs = std::function<void()>;

  // Creates `path` (truncating any file there), writes the header and makes the file's name
  // durable. Throws CheckpointError naming the path and errno. `sync_outputs` may be empty
  // (nothing to sync first).
  JournalWriter(std::filesystem::path path, JournalOptions options, SyncOutputs sync_outputs = {});
  ~JournalWriter();  // commits what is held, then closes; failures are logged
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  // Thread-safe. Held until the next group commit, which syncs the outputs first. A failed commit
  // is logged once and the journal disabled; failure() then says why, and the crawler stops the
  // crawl cleanly (its final checkpoint covers what the journal lost).
  void append(const JournalBatch& batch);
  // Thread-safe. Written at once (it survives a kill -9 when this returns), synced with the next
  // group. For records that claim nothing about outputs.
  void append_now(const JournalBatch& batch);
  // Commits now: every record appended so far is durable when it returns, its outputs first;
  // throws CheckpointError naming the journal if it cannot, or if the journal was disabled (by a
  // failed write or fdatasync, now or before).
  void sync();
  const std::filesystem::path& path() const { return path_; }
  uint64_t bytes_written() const;  // written to the file, held records not yet
  // Why the journal disabled itself ("fdatasync failed: ..."), empty while it works.
  std::string failure() const;

 private:
  void sync_loop();
  // One group commit (sync_outputs, write the held records, fdatasync); failures disable the
  // journal. Serialised, so that a commit that returns covers everything appended before it began.
  // With nothing held or unsynced it does nothing, unless `always_sync` (sync(): the caller is
  // told about a disk that fails).
  void commit(bool always_sync);
  // Under mu_: disables the journal, logging why once.
  void fail_locked(const std::string& failure);
  void fail_locked(const std::string& what, int error);

  std::filesystem::path path_;
  JournalOptions options_;
  SyncOutputs sync_outputs_;
  int fd_ = -1;
  std::mutex commit_mu_;  // one commit at a time
  mutable std::mutex mu_;
  std::condition_variable wake_;
  uint64_t bytes_ = 0;
  std::string held_;            // framed records waiting for the next commit
  size_t pending_entries_ = 0;  // held or written since the last commit
  bool unsynced_ = false;       // the file holds bytes not yet fdatasync'd
  std::string failure_;         // empty while the journal works
  bool closing_ = false;
  std::thread syncer_;
};

struct JournalRecord {
  uint8_t type = 0;
  std::string payload;
};

struct JournalContents {
  std::vector<JournalRecord> records;  // the good records, in order
  uint64_t valid_bytes = 0;            // up to the end of the last good record
  std::string problem;                 // empty, or why reading stopped early and where
};

// Parses a whole journal. A bad header (not a journal) throws CheckpointError naming `name`;
// a torn or damaged record ends the records and is described in `problem`.
JournalContents parse_journal(std::string_view bytes, const std::string& name);
JournalContents read_journal_file(const std::filesystem::path& path);

}  // namespace bloomcrawl
