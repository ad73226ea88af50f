// The crawl journal: framing (torn tails, damaged records), typed records and their replay.
#include "crawler/persist/journal.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <utility>

#include "base/data_error.h"
#include "crawler/persist/journal_records.h"
#include "crawler/persist/journal_replay.h"
#include "tests/support/faulty_file_system.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("journal_test_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A journal of three pages: each admitted, dispatched; the first two completed.
  fs::path write_sample(const std::string& name) {
    fs::path path = dir_ / name;
    JournalWriter writer(path, JournalOptions{});
    for (int i = 0; i < 3; ++i) {
      const std::string url = "http://a.test/" + std::to_string(i);
      JournalBatch batch;
      add_record(batch, AdmittedRecord{"a.test", url, uint32_t(i), true});
      add_record(batch, DispatchedRecord{url});
      if (i < 2) add_record(batch, CompletedRecord{url, 200, 1000, 5});
      writer.append(batch);
    }
    return path;
  }

  // Commits only when sync() asks.
  static JournalOptions background_off() {
    JournalOptions o;
    o.group_interval = std::chrono::hours(1);
    o.group_entries = 1000;
    return o;
  }

  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  static void write(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }

  fs::path dir_;
};

TEST_F(JournalTest, RecordsRoundTripInOrder) {
  const JournalContents c = read_journal_file(write_sample("j.log"));
  EXPECT_TRUE(c.problem.empty()) << c.problem;
  ASSERT_EQ(c.records.size(), 8u);
  const std::optional<JournalEntry> first = decode_record(c.records[0]);
  ASSERT_TRUE(first && std::holds_alternative<AdmittedRecord>(*first));
  const auto& a = std::get<AdmittedRecord>(*first);
  EXPECT_EQ(a.host, "a.test");
  EXPECT_EQ(a.entry, "http://a.test/0");
  EXPECT_TRUE(a.queued);
  const std::optional<JournalEntry> third = decode_record(c.records[2]);
  ASSERT_TRUE(third && std::holds_alternative<CompletedRecord>(*third));
  EXPECT_EQ(std::get<CompletedRecord>(*third).status, 200u);
  EXPECT_EQ(std::get<CompletedRecord>(*third).bytes, 1000u);
}

TEST_F(JournalTest, TornTailIsDetectedAndIgnored) {
  const fs::path path = write_sample("j.log");
  const std::string whole = read(path);
  const JournalContents full = parse_journal(whole, "j.log");
  // Every cut inside the last record keeps exactly the records before it.
  const size_t last_start = whole.size() - (kJournalRecordHeaderBytes + std::string("http://a.test/2").size());
  for (size_t cut = last_start + 1; cut < whole.size(); ++cut) {
    const JournalContents c = parse_journal(std::string_view(whole).substr(0, cut), "j.log");
    EXPECT_EQ(c.records.size(), full.records.size() - 1) << "cut at " << cut;
    EXPECT_EQ(c.valid_bytes, last_start);
    EXPECT_NE(c.problem.find("torn"), std::string::npos) << c.problem;
    EXPECT_NE(c.problem.find("offset " + std::to_string(last_start)), std::string::npos) << c.problem;
  }
}

TEST_F(JournalTest, BadChecksumStopsReadingThere) {
  const fs::path path = write_sample("j.log");
  std::string bytes = read(path);
  const JournalContents full = parse_journal(bytes, "j.log");
  // Damage the payload of the fourth record: the three before it survive, nothing after.
  size_t at = kJournalMagic.size();
  for (int i = 0; i < 3; ++i) at += kJournalRecordHeaderBytes + full.records[size_t(i)].payload.size();
  bytes[at + kJournalRecordHeaderBytes + 2] ^= 0x20;
  const JournalContents c = parse_journal(bytes, "j.log");
  EXPECT_EQ(c.records.size(), 3u);
  EXPECT_NE(c.problem.find("checksum mismatch at offset " + std::to_string(at)), std::string::npos) << c.problem;
}

TEST_F(JournalTest, ADamagedLengthIsCaughtByTheChecksum) {
  std::string bytes = read(write_sample("j.log"));
  bytes[kJournalMagic.size() + 4] ^= 0x01;  // first record's length, one off
  const JournalContents c = parse_journal(bytes, "j.log");
  EXPECT_TRUE(c.records.empty());
  EXPECT_FALSE(c.problem.empty());
}

TEST_F(JournalTest, NotAJournalIsAnErrorNamingTheFile) {
  const fs::path path = dir_ / "other.log";
  write(path, "BCSFMANI and more");
  try {
    read_journal_file(path);
    FAIL() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad magic"), std::string::npos) << e.what();
  }
}

TEST_F(JournalTest, AFailedWriteDisablesTheJournalKeepingWhatWasWritten) {
  const fs::path path = dir_ / "j.log";
  testing::FaultyFileSystem faulty;
  {
    JournalWriter writer(path, JournalOptions{});
    JournalBatch first;
    JournalBatch second;
    JournalBatch third;
    add_record(first, DispatchedRecord{"http://a.test/1"});
    add_record(second, DispatchedRecord{"http://a.test/2"});
    add_record(third, DispatchedRecord{"http://a.test/3"});
    writer.append_now(first);
    faulty.fail_write(1, ENOSPC);
    writer.append_now(second);  // logged, not thrown: the crawl goes on
    writer.append_now(third);   // not attempted after a failure
    EXPECT_EQ(faulty.writes(), 3) << "header, first batch, the failed one";
  }
  const JournalContents c = read_journal_file(path);
  EXPECT_TRUE(c.problem.empty()) << c.problem;
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_EQ(std::get<DispatchedRecord>(*decode_record(c.records[0])).url, "http://a.test/1");
}

TEST_F(JournalTest, AFailedFdatasyncIsReportedAndNothingAfterItIsClaimedDurable) {
  const fs::path path = dir_ / "j.log";
  testing::FaultyFileSystem faulty;
  JournalWriter writer(path, background_off());
  JournalBatch first;
  add_record(first, DispatchedRecord{"http://a.test/1"});
  writer.append(first);
  writer.sync();  // durable
  EXPECT_EQ(writer.failure(), "");
  JournalBatch second;
  add_record(second, DispatchedRecord{"http://a.test/2"});
  writer.append(second);
  faulty.fail_sync(1, EIO);
  try {
    writer.sync();
    FAIL() << "a failed fdatasync was reported as durable";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string() + ": journal disabled: fdatasync failed"), std::string::npos)
        << e.what();
  }
  EXPECT_NE(writer.failure().find("fdatasync failed"), std::string::npos);
  // The kernel may have dropped those pages: a later fdatasync that succeeds proves nothing, so
  // the journal takes no more records and never again says they are durable.
  const uint64_t bytes = writer.bytes_written();
  writer.append(second);
  EXPECT_EQ(writer.bytes_written(), bytes);
  EXPECT_THROW(writer.sync(), CheckpointError);
}

TEST_F(JournalTest, AFailedGroupFdatasyncMakesTheNextSyncFail) {
  testing::FaultyFileSystem faulty;
  JournalOptions every_record;
  every_record.group_entries = 1;  // the background thread syncs at once
  JournalWriter writer(dir_ / "j.log", every_record);
  faulty.fail_sync(1, ENOSPC);
  JournalBatch batch;
  add_record(batch, DispatchedRecord{"http://a.test/1"});
  writer.append(batch);
  // Whichever fdatasync meets the failure, the background one or sync()'s own, sync() reports it.
  EXPECT_THROW(writer.sync(), CheckpointError);
  EXPECT_NE(writer.failure().find("fdatasync failed: No space left on device"), std::string::npos) << writer.failure();
}

// Durable before done: a held record reaches the file only in a group commit, after the outputs it
// describes were synced; one commit covers the whole group with one output sync and one fdatasync.
TEST_F(JournalTest, HeldRecordsReachTheFileAfterTheOutputsSyncOncePerGroup) {
  const fs::path path = dir_ / "j.log";
  testing::FaultyFileSystem faulty;
  int output_syncs = 0;
  uint64_t size_at_output_sync = 0;
  JournalWriter writer(path, background_off(), [&] {
    ++output_syncs;
    size_at_output_sync = fs::file_size(path);
  });
  const int syncs_at_start = faulty.syncs();  // the header's
  JournalBatch dispatched;
  add_record(dispatched, DispatchedRecord{"http://a.test/0"});
  writer.append_now(dispatched);  // in the file at once: a kill -9 keeps it
  const uint64_t with_dispatch = fs::file_size(path);
  EXPECT_GT(with_dispatch, kJournalMagic.size());
  for (int i = 0; i < 50; ++i) {
    JournalBatch batch;
    add_record(batch, CompletedRecord{"http://a.test/" + std::to_string(i), 200, 10, 1});
    writer.append(batch);
  }
  EXPECT_EQ(fs::file_size(path), with_dispatch) << "a completion reached the file before its outputs were synced";
  writer.sync();
  EXPECT_EQ(output_syncs, 1);
  EXPECT_EQ(size_at_output_sync, with_dispatch);
  EXPECT_EQ(faulty.syncs() - syncs_at_start, 1) << "one fdatasync for the group";
  EXPECT_EQ(read_journal_file(path).records.size(), 51u);
  writer.sync();  // nothing held: the outputs are not synced again
  EXPECT_EQ(output_syncs, 1);
}

// A record written at once (append_now) while a group commit syncs the outputs is covered by that
// commit's fdatasync. Its count must go with it: left standing, it kept the background thread's
// wait satisfied with nothing to commit, and that thread spun holding the journal's lock, so the
// crawl hung at its next append (seen under TSan in ResumeConcurrentTest).
TEST_F(JournalTest, ARecordWrittenDuringAGroupCommitLeavesNothingPending) {
  const fs::path path = dir_ / "j.log";
  JournalOptions by_count;
  by_count.group_interval = std::chrono::hours(1);
  by_count.group_entries = 2;
  std::promise<void> outputs_syncing;
  bool first = true;
  std::unique_ptr<JournalWriter> writer;
  writer = std::make_unique<JournalWriter>(path, by_count, [&] {
    if (!std::exchange(first, false)) return;
    JournalBatch dispatched;
    add_record(dispatched, DispatchedRecord{"http://a.test/2"});
    add_record(dispatched, DispatchedRecord{"http://a.test/3"});
    writer->append_now(dispatched);  // a whole group's worth, written during the commit
    outputs_syncing.set_value();
  });
  JournalBatch completed;
  add_record(completed, CompletedRecord{"http://a.test/0", 200, 10, 1});
  add_record(completed, CompletedRecord{"http://a.test/1", 200, 10, 1});
  writer->append(completed);  // a group: the background thread commits it
  outputs_syncing.get_future().wait();
  writer->sync();  // waits for the background commit, then needs the lock the spin held
  EXPECT_EQ(read_journal_file(path).records.size(), 4u);
  EXPECT_EQ(writer->failure(), "");
  writer.reset();
}

// An output whose fdatasync fails: the held records are never written (their pages' records may be
// lost), the journal disables itself naming the output, and sync() says so.
TEST_F(JournalTest, AFailedOutputSyncDropsTheHeldRecordsAndDisablesTheJournal) {
  const fs::path path = dir_ / "j.log";
  {
    JournalWriter writer(path, background_off(),
                         [] { throw CheckpointError("out/pages.jsonl", "fdatasync failed: Input/output error"); });
    JournalBatch dispatched;
    add_record(dispatched, DispatchedRecord{"http://a.test/1"});
    writer.append_now(dispatched);
    JournalBatch completed;
    add_record(completed, CompletedRecord{"http://a.test/1", 200, 10, 1});
    writer.append(completed);
    try {
      writer.sync();
      FAIL() << "a group whose outputs are not durable was committed";
    } catch (const CheckpointError& e) {
      EXPECT_NE(
          std::string(e.what()).find(path.string() + ": journal disabled: not committed, its outputs not durable: "
                                                     "out/pages.jsonl: fdatasync failed"),
          std::string::npos)
          << e.what();
    }
    writer.append(completed);  // not taken after a failure
  }
  const JournalContents c = read_journal_file(path);
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<DispatchedRecord>(*decode_record(c.records[0])));
}

TEST_F(JournalTest, AFailedHeaderWriteIsAnErrorNamingTheFile) {
  testing::FaultyFileSystem faulty;
  faulty.fail_sync(1, EIO);
  try {
    JournalWriter writer(dir_ / "j.log", JournalOptions{});
    FAIL() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find((dir_ / "j.log").string() + ": cannot write journal header"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(JournalTest, AFailedDirectorySyncAtCreationIsAnErrorNamingTheDirectory) {
  testing::FaultyFileSystem faulty;
  faulty.fail_directory_sync(1, EIO);
  try {
    JournalWriter writer(dir_ / "j.log", JournalOptions{});
    FAIL() << "the journal's name is not durable, and it said nothing";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find(dir_.string() + ": fsync of directory failed"), std::string::npos) << e.what();
  }
}

TEST_F(JournalTest, AHeaderTornAtCreationIsAnEmptyJournal) {
  const JournalContents c = parse_journal(kJournalMagic.substr(0, 3), "j.log");
  EXPECT_TRUE(c.records.empty());
  EXPECT_NE(c.problem.find("torn header"), std::string::npos);
}

TEST_F(JournalTest, MalformedPayloadIsReportedNotTrusted) {
  // A URL length of 5 with only 2 bytes of URL after it.
  JournalRecord r{uint8_t(JournalRecordType::kCompleted), std::string{'\x05', '\0', '\0', '\0', 'a', 'b'}};
  EXPECT_THROW(decode_record(r), std::runtime_error);
  JournalRecord unknown{200, "future"};
  EXPECT_FALSE(decode_record(unknown).has_value());
}

TEST_F(JournalTest, ReplayFoldsJournalsIntoWhatAResumeRedoes) {
  // First run: three pages dispatched, two completed, then killed. Second run: the third page
  // (outstanding) is dispatched again - a refetch - and completes; a fourth is left in flight.
  write_sample("journal-000001.log");
  {
    JournalWriter writer(dir_ / "journal-000002.log", JournalOptions{});
    JournalBatch batch;
    add_record(batch, DispatchedRecord{"http://a.test/2"});
    add_record(batch, CompletedRecord{"http://a.test/2", 404, 10, 1});
    add_record(batch, AdmittedRecord{"a.test", "http://a.test/3", 1, false});
    add_record(batch, DispatchedRecord{"http://a.test/9"});
    add_record(batch, AuditFalsePositiveRecord{42});
    writer.append(batch);
  }
  const JournalReplay r =
      replay_journals({dir_ / "journal-000001.log", dir_ / "journal-000002.log"}, {"http://a.test/9"});
  EXPECT_EQ(r.admitted.size(), 4u);
  EXPECT_FALSE(r.admitted.back().queued);
  EXPECT_EQ(r.completed.size(), 3u);
  EXPECT_EQ(r.pages_fetched, 3u);
  EXPECT_EQ(r.status_counts[2], 2u);
  EXPECT_EQ(r.status_counts[4], 1u);
  EXPECT_EQ(r.bytes_received, 2010u);
  // a.test/2 was re-dispatched while outstanding; a.test/9 was outstanding at the cut and again.
  EXPECT_EQ(r.refetched, 2u);
  EXPECT_EQ(r.outstanding, (std::unordered_set<std::string>{"http://a.test/9"}));
  EXPECT_EQ(r.audit_false_positives, std::vector<uint64_t>{42});
  EXPECT_TRUE(r.problems.empty());
}

// A completed record's outputs are appended to the version 1 payload and optional: one written
// before them decodes without; a replay trusts one that has them only if the caller's check does,
// leaving the page outstanding otherwise.
TEST_F(JournalTest, CompletedRecordsCarryTheirOutputsAndAreTrustedOnlyIfFoundOnDisk) {
  JournalBatch batch;
  add_record(batch, DispatchedRecord{"http://a.test/1"});
  add_record(batch, DispatchedRecord{"http://a.test/2"});
  add_record(batch,
             CompletedRecord{.url = "http://a.test/1",
                             .status = 200,
                             .outputs = CompletedOutputs{.pages_end = 120, .warc_file = "w.warc.gz", .warc_end = 9}});
  add_record(batch,
             CompletedRecord{.url = "http://a.test/2", .status = 200, .outputs = CompletedOutputs{.pages_end = 500}});
  const std::string bytes = std::string(kJournalMagic) + batch.bytes();
  const JournalContents c = parse_journal(bytes, "j.log");
  ASSERT_EQ(c.records.size(), 4u);
  const CompletedRecord first = std::get<CompletedRecord>(*decode_record(c.records[2]));
  ASSERT_TRUE(first.outputs.has_value());
  EXPECT_EQ(first.outputs->pages_end, 120u);
  EXPECT_EQ(first.outputs->edges_end, 0u);
  EXPECT_EQ(first.outputs->warc_file, "w.warc.gz");
  EXPECT_EQ(first.outputs->warc_end, 9u);
  JournalBatch old;  // as written before outputs were recorded
  add_record(old, CompletedRecord{.url = "http://a.test/3", .status = 200});
  const JournalContents o = parse_journal(std::string(kJournalMagic) + old.bytes(), "old.log");
  EXPECT_FALSE(std::get<CompletedRecord>(*decode_record(o.records[0])).outputs.has_value());

  JournalReplay r;
  replay_journal_bytes(bytes, "j.log", r, [](const CompletedRecord& done) { return done.outputs->pages_end <= 200; });
  EXPECT_EQ(r.completed, (std::unordered_set<std::string>{"http://a.test/1"}));
  EXPECT_EQ(r.outputs_lost, (std::unordered_set<std::string>{"http://a.test/2"}));
  EXPECT_EQ(r.outstanding, (std::unordered_set<std::string>{"http://a.test/2"}));
  EXPECT_EQ(r.pages_fetched, 1u);
  JournalReplay trusting;
  replay_journal_bytes(bytes, "j.log", trusting);
  EXPECT_EQ(trusting.completed.size(), 2u);
}

// A completed record's two optional groups, the outputs and what the URL record holds, each with or
// without the other (a mask says which follow), and a mask bit this version does not know refused.
TEST_F(JournalTest, CompletedRecordsCarryTheURLRecordsFieldsWithOrWithoutOutputs) {
  const CompletedRecord with_both{.url = "http://a.test/1",
                                  .status = 200,
                                  .outputs = CompletedOutputs{.pages_end = 7},
                                  .outcome = "ok",
                                  .fetched_ms = 1733390000123,
                                  .payload_digest = "sha1:ABC",
                                  .truncated = true,
                                  .etag = "W/\"v1\"",
                                  .last_modified = "Sat, 05 Dec 2026 10:00:00 GMT"};
  CompletedRecord record_only = with_both;
  record_only.outputs.reset();
  for (const CompletedRecord& in : {with_both, record_only}) {
    JournalBatch batch;
    add_record(batch, in);
    const JournalContents c = parse_journal(std::string(kJournalMagic) + batch.bytes(), "j.log");
    ASSERT_EQ(c.records.size(), 1u);
    const CompletedRecord out = std::get<CompletedRecord>(*decode_record(c.records[0]));
    EXPECT_EQ(out.outputs.has_value(), in.outputs.has_value());
    if (out.outputs) {
      EXPECT_EQ(out.outputs->pages_end, 7u);
    }
    EXPECT_EQ(out.outcome, "ok");
    EXPECT_EQ(out.fetched_ms, in.fetched_ms);
    EXPECT_EQ(out.payload_digest, "sha1:ABC");
    EXPECT_TRUE(out.truncated);
    EXPECT_EQ(out.etag, in.etag);
    EXPECT_EQ(out.last_modified, in.last_modified);
  }
  // The mask follows the fixed fields (str url, u32 status, u64 bytes, u32 fetch ms): a bit no group
  // has yet makes the record malformed, not silently shortened.
  JournalBatch batch;
  add_record(batch, record_only);
  JournalRecord unknown = parse_journal(std::string(kJournalMagic) + batch.bytes(), "u.log").records.at(0);
  unknown.payload[4 + with_both.url.size() + 4 + 8 + 4] |= 4;
  EXPECT_THROW(decode_record(unknown), std::runtime_error);
}

TEST_F(JournalTest, ReplayKeepsTheLastStatsRecord) {
  {
    JournalWriter writer(dir_ / "journal-000001.log", JournalOptions{});
    JournalBatch batch;
    add_record(batch, StatsRecord{R"({"links":{"duplicates":5}})"});
    add_record(batch, StatsRecord{R"({"links":{"duplicates":9}})"});
    add_record(batch, StatsRecord{"not json"});  // ignored: counters are not worth a stop
    writer.append(batch);
  }
  const JournalReplay r = replay_journals({dir_ / "journal-000001.log"}, {});
  EXPECT_EQ(r.last_stats["links"]["duplicates"], 9);
  EXPECT_TRUE(r.problems.empty());
}

TEST_F(JournalTest, ReplayReportsATornTailAndKeepsWhatCameBefore) {
  const fs::path path = write_sample("journal-000001.log");
  const std::string bytes = read(path);
  write(path, bytes.substr(0, bytes.size() - 3));
  const JournalReplay r = replay_journals({path}, {});
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find(path.string()), std::string::npos);
  EXPECT_EQ(r.completed.size(), 2u);
  EXPECT_EQ(r.admitted.size(), 3u);
  EXPECT_TRUE(r.outstanding.empty());  // the third page's dispatch record was the torn one
}

}  // namespace
}  // namespace bloomcrawl
