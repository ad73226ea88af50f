// The digest index in the records store (records/record_store.h, docs/content-seen.md): first
// captures by payload SHA-1, batched with the records, kept by a checkpoint and a clone (a resume),
// by persist() and a reopen; under the RocksDB fault environment a failure is sticky and every
// entry accepted is still answered, as for the records.
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <set>
#include <string>

#include "base/data_error.h"
#include "records/record_store.h"
#include "tests/support/faulty_store_file_system.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testing::FaultyStoreFileSystem;

std::string sha1_of(int i) {
  std::string sha1(20, '\0');
  for (int b = 0; b < 4; ++b) sha1[size_t(b)] = char(i >> (8 * b));
  return sha1;
}

FirstCapture capture(int i) {
  return {.url = "https://h" + std::to_string(i % 7) + ".example/mirror/of/a/page/" + std::to_string(i),
          .fetched_ms = 1764930000000 + i};
}

TEST(FirstCaptureTest, RoundTripsAndRefusesDamage) {
  EXPECT_EQ(decode_first_capture(encode_first_capture(capture(5)), "x"), capture(5));
  EXPECT_THROW(decode_first_capture("", "x"), CheckpointError);
  EXPECT_THROW(decode_first_capture("\x80", "x"), CheckpointError);
  EXPECT_THROW(decode_first_capture(encode_first_capture({.url = "", .fetched_ms = 1}), "x"), CheckpointError);
}

TEST(DigestIndexTest, KeptByACheckpointACloneAndAReopenBesideTheRecords) {
  testing::TempDir dir;
  const fs::path live = dir.path() / "records-live";
  const fs::path gen = dir.path() / "records-000001";
  {
    RecordStore store(live, 4 << 20);
    for (int i = 0; i < 3000; ++i) store.put_first_capture(sha1_of(i), capture(i));  // several batches
    EXPECT_EQ(store.first_capture(sha1_of(2999)), capture(2999));                    // in the pending batch
    EXPECT_EQ(store.first_capture(sha1_of(7)), capture(7));                          // written
    EXPECT_FALSE(store.first_capture(sha1_of(3000)));
    UrlRecord r;
    r.url = "https://h1.example/";
    store.put(r);
    store.checkpoint_to(gen);
    store.put_first_capture(sha1_of(5000), capture(5000));  // after the cut
  }
  RecordStore::verify(gen);
  RecordStore::clone(gen, live);
  RecordStore resumed(live, 4 << 20);
  for (const int i : {0, 1234, 2999}) EXPECT_EQ(resumed.first_capture(sha1_of(i)), capture(i)) << i;
  EXPECT_FALSE(resumed.first_capture(sha1_of(5000))) << "an entry after the cut is in the checkpoint";
  EXPECT_TRUE(resumed.get("https://h1.example/"));
  resumed.put_first_capture(sha1_of(6000), capture(6000));
  resumed.persist();
}

TEST(DigestIndexTest, APersistedIndexIsThereAfterAReopen) {
  testing::TempDir dir;
  const fs::path live = dir.path() / "records";
  {
    RecordStore store(live, 4 << 20);
    store.put_first_capture(sha1_of(1), capture(1));
    store.persist();
  }
  RecordStore reopened(live, 4 << 20);
  EXPECT_EQ(reopened.first_capture(sha1_of(1)), capture(1));
  EXPECT_FALSE(RecordStore::open_read_only(live)->first_capture(sha1_of(1))) << "a reader holds no index";
}

TEST(DigestIndexFaultTest, AFailedWriteIsStickyAndEveryEntryAcceptedIsStillAnswered) {
  testing::TempDir dir;
  testing::StoreFaults faults;
  const fs::path live = dir.path() / "records-live";
  RecordStore store(live, 1 << 20);
  faults->fail(FaultyStoreFileSystem::Op::kWrite, live.string(), 1, ENOSPC, /*every_later=*/true);
  std::set<int> accepted;
  std::string error = "no failure";
  try {
    for (int i = 0; i < 40000; ++i) {
      store.put_first_capture(sha1_of(i), capture(i));
      accepted.insert(i);
    }
    store.persist();
  } catch (const CheckpointError& e) {
    error = e.what();
  }
  EXPECT_NE(error.find(live.string() + ": records store: "), std::string::npos) << error;
  EXPECT_NE(error.find("No space left on device"), std::string::npos) << error;
  faults->clear();
  EXPECT_THROW(store.put_first_capture(sha1_of(-1), capture(1)), CheckpointError);
  EXPECT_FALSE(store.first_capture(sha1_of(-1))) << "a put that threw recorded its entry";
  EXPECT_THROW(store.checkpoint_to(dir.path() / "gen"), CheckpointError);
  ASSERT_FALSE(accepted.empty());
  for (const int i : {*accepted.begin(), *accepted.rbegin(), int(accepted.size() / 2)}) {
    EXPECT_EQ(store.first_capture(sha1_of(i)), capture(i)) << i;
  }
}

}  // namespace
}  // namespace bloomcrawl
