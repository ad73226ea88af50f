// RecordStore when RocksDB's I/O fails (docs/records.md, "When the store fails"), through a file
// system that fails creates, writes, syncs, renames, links and reads on cue
// (FaultyStoreFileSystem): the failure names the store's directory and is sticky, a put that
// throws has recorded nothing, every record a put accepted is still found, and a damaged
// checkpoint is found when it is opened or verified.
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "base/data_error.h"
#include "records/record_store.h"
#include "tests/support/faulty_store_file_system.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testing::FaultyStoreFileSystem;
using Op = FaultyStoreFileSystem::Op;

UrlRecord fault_record(int i) {
  UrlRecord r;
  r.url = "https://h" + std::to_string(i % 10) + ".example/a-long-enough-path/to-fill-the-memtable/page" +
          std::to_string(i);
  r.depth = 1;
  r.first_admitted_ms = 1764930000000 + i;
  return r;
}

// Puts records until a put throws (the memtable fills, its flush fails, the next batch write is
// refused) or, when none has, persist() does; returns the error and fills `accepted` with every
// URL a put accepted.
std::string put_until_failure(RecordStore& store, std::set<std::string>* accepted) {
  try {
    for (int i = 0; i < 20000; ++i) {
      store.put(fault_record(i));
      accepted->insert(fault_record(i).url);
    }
    store.persist();
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "no failure";
}

std::set<std::string> all_urls(RecordStore& store) {
  std::set<std::string> urls;
  store.scan_all([&](const UrlRecord& r) {
    urls.insert(r.url);
    return true;
  });
  return urls;
}

struct WriteFault {
  Op op;
  int error;
  const char* expected;  // in the message
};

class RecordStoreFaultTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  const fs::path live_ = dir_.path() / "records-live";
  testing::StoreFaults faults_;
};

// One kind of failed write per test: a failed store takes a second to close (RocksDB waits that
// long before it retries a failed flush), which ctest then spends on each in parallel.
class RecordStoreWriteFaultTest : public RecordStoreFaultTest, public ::testing::WithParamInterface<WriteFault> {};

TEST_P(RecordStoreWriteFaultTest, IsStickyNamesTheDirectoryAndLosesNoRecord) {
  const WriteFault& fault = GetParam();
  RecordStore store(live_, 1 << 20);
  faults_->fail(fault.op, live_.string(), 1, fault.error, /*every_later=*/true);
  std::set<std::string> accepted;
  const std::string error = put_until_failure(store, &accepted);
  EXPECT_NE(error.find(live_.string() + ": records store: "), std::string::npos) << error;
  EXPECT_NE(error.find(fault.expected), std::string::npos) << error;
  EXPECT_EQ(store.failure(), error);
  // Sticky: refused with the same error before RocksDB is asked, even with the disk healed.
  faults_->clear();
  try {
    store.put(fault_record(-1));
    ADD_FAILURE() << "a put to a failed store was accepted";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(std::string(e.what()), error);
  }
  EXPECT_FALSE(store.get(fault_record(-1).url)) << "a put that threw recorded its record";
  EXPECT_THROW(store.flush(), CheckpointError);
  EXPECT_THROW(store.checkpoint_to(dir_.path() / "gen"), CheckpointError);
  // Every record accepted is still there: in the store, or in the batch its failed write kept.
  EXPECT_EQ(all_urls(store), accepted);
  EXPECT_TRUE(store.get(*accepted.rbegin()));
}

INSTANTIATE_TEST_SUITE_P(EveryKind, RecordStoreWriteFaultTest,
                         ::testing::Values(WriteFault{Op::kWrite, ENOSPC, "No space left on device"},
                                           WriteFault{Op::kWrite, EIO, "Input/output error"},
                                           WriteFault{Op::kSync, EIO, "Input/output error"},
                                           WriteFault{Op::kSync, ENOSPC, "No space left on device"},
                                           WriteFault{Op::kCreate, ENOSPC, "No space left on device"}));

TEST_F(RecordStoreFaultTest, AFailedCheckpointNamesWhatFailedAndKeepsEveryRecord) {
  for (const Op op : {Op::kLink, Op::kRename}) {
    const fs::path live = live_ / std::to_string(static_cast<int>(op));
    const fs::path gen = dir_.path() / ("records-00000" + std::to_string(static_cast<int>(op)));
    RecordStore store(live, 1 << 20);
    for (int i = 0; i < 2000; ++i) store.put(fault_record(i));
    store.persist();  // a table file for the checkpoint to link
    faults_->fail(op, gen.filename().string(), 1, EIO);
    try {
      store.checkpoint_to(gen);
      ADD_FAILURE() << "a checkpoint without its files";
    } catch (const CheckpointError& e) {
      const std::string error = e.what();
      EXPECT_NE(error.find(live.string() + ": records store: "), std::string::npos) << error;
      EXPECT_NE(error.find(gen.string()), std::string::npos) << error;
    }
    EXPECT_EQ(faults_->failures(), static_cast<int>(op == Op::kLink ? 1 : 2));
    faults_->clear();
    EXPECT_FALSE(fs::exists(gen / "CURRENT")) << "a failed checkpoint looks complete";
    EXPECT_EQ(all_urls(store).size(), 2000u);
  }
}

TEST_F(RecordStoreFaultTest, AFailedReadThrowsWithoutFailingTheStore) {
  RecordStore store(live_, 1 << 20);
  for (int i = 0; i < 100; ++i) store.put(fault_record(i));
  store.persist();  // the records are in a table file now, not the memtable
  faults_->fail(Op::kRead, live_.string() + "/", 1, EIO, /*every_later=*/true);
  EXPECT_THROW(store.get_many({fault_record(5).url, fault_record(6).url}), CheckpointError);
  EXPECT_GT(faults_->failures(), 0);
  faults_->clear();
  EXPECT_EQ(store.failure(), "");
  EXPECT_TRUE(store.get(fault_record(5).url));
  store.put(fault_record(1000));
  EXPECT_NO_THROW(store.flush());
}

std::vector<fs::path> sst_files(const fs::path& dir) {
  std::vector<fs::path> tables;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".sst") tables.push_back(entry.path());
  }
  return tables;
}

TEST_F(RecordStoreFaultTest, ADamagedCheckpointIsFoundWhenItIsOpenedOrVerified) {
  const fs::path gen = dir_.path() / "records-000001";
  {
    RecordStore store(live_, 1 << 20);
    for (int i = 0; i < 3000; ++i) store.put(fault_record(i));
    store.checkpoint_to(gen);
  }
  const std::vector<fs::path> tables = sst_files(gen);
  ASSERT_FALSE(tables.empty());
  EXPECT_NO_THROW(RecordStore::verify(gen));

  // A read failing at open: named.
  faults_->fail(Op::kRead, gen.string() + "/MANIFEST", 1, EIO, /*every_later=*/true);
  try {
    RecordStore::open_read_only(gen);
    ADD_FAILURE() << "an unreadable manifest opened";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find(gen.string() + ": records store: "), std::string::npos) << e.what();
  }
  faults_->clear();

  // A block whose bytes changed on disk (a new file: the checkpoint's are hard links).
  testing::corrupt_store_file(tables.front());
  try {
    RecordStore::verify(gen);
    ADD_FAILURE() << "a corrupted table file passed the check";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find(tables.front().filename().string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("records store: Corruption"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace bloomcrawl
