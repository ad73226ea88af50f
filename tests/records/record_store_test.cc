// RecordStore (records/record_store.h): put, get and get_many (the pending batch included), the
// ordered scan, checkpoints by hard link, clone, read-only and secondary opens, and reopening.
#include "records/record_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/data_error.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

constexpr size_t kStoreBudget = 4 << 20;

UrlRecord admitted(const std::string& url, uint32_t depth = 1) {
  UrlRecord r;
  r.url = url;
  r.depth = depth;
  r.parent_hash = url_record_hash("https://parent/");
  r.first_admitted_ms = 1764930000000 + depth;
  return r;
}

std::string page(int host, int i) {
  return "https://www.site" + std::to_string(host) + ".example.com/news/" + std::to_string(i) + ".html";
}

std::map<std::string, UrlRecord> scanned(RecordStore& store) {
  std::map<std::string, UrlRecord> records;
  store.scan_all([&](const UrlRecord& r) {
    EXPECT_TRUE(records.emplace(r.url, r).second) << "visited twice: " << r.url;
    return true;
  });
  return records;
}

class RecordStoreTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  const fs::path live_ = dir_.path() / "records-live";
};

TEST_F(RecordStoreTest, GetSeesThePendingBatchAndTheStore) {
  RecordStore store(live_, kStoreBudget);
  EXPECT_FALSE(store.get("https://a/"));
  store.put(admitted("https://a/"));
  ASSERT_TRUE(store.get("https://a/"));
  EXPECT_EQ(*store.get("https://a/"), admitted("https://a/"));
  store.flush();
  EXPECT_EQ(*store.get("https://a/"), admitted("https://a/"));
  // An outcome replaces the admission's record, in the batch and after it is written.
  UrlRecord fetched = admitted("https://a/");
  fetched.outcome = UrlOutcome::kFetched;
  fetched.http_status = 200;
  store.put(fetched);
  EXPECT_EQ(*store.get("https://a/"), fetched);
  store.flush();
  EXPECT_EQ(*store.get("https://a/"), fetched);
  EXPECT_FALSE(store.get("https://a/other"));
}

TEST_F(RecordStoreTest, GetManyAnswersInOrderFromBatchStoreAndNeither) {
  RecordStore store(live_, kStoreBudget);
  for (int i = 0; i < 3000; ++i) store.put(admitted(page(i % 7, i)));  // more than two batches
  const std::vector<std::string> urls = {page(1, 1), page(0, 2999 - 2999 % 7),     "https://absent/",
                                         page(3, 3), page(2, 2999 - 2999 % 7 + 2), page(5, 5)};
  std::vector<std::string_view> views(urls.begin(), urls.end());
  const std::vector<std::optional<UrlRecord>> found = store.get_many(views);
  ASSERT_EQ(found.size(), urls.size());
  for (size_t i = 0; i < urls.size(); ++i) {
    if (urls[i] == "https://absent/") {
      EXPECT_FALSE(found[i]);
    } else {
      ASSERT_TRUE(found[i]) << urls[i];
      EXPECT_EQ(found[i]->url, urls[i]);
    }
  }
  EXPECT_TRUE(store.get_many({}).empty());
}

TEST_F(RecordStoreTest, ScanVisitsEveryRecordOnceHostByHostWithTheBatchMerged) {
  RecordStore store(live_, kStoreBudget);
  std::map<std::string, UrlRecord> expected;
  for (int i = 0; i < 2500; ++i) {
    const UrlRecord r = admitted(page(i % 13, i), i % 3);
    store.put(r);
    expected[r.url] = r;
  }
  // Updates still pending, over records already written.
  for (int i = 0; i < 50; ++i) {
    UrlRecord r = expected[page(i % 13, i)];
    r.outcome = UrlOutcome::kDropped;
    r.reason = "robots";
    store.put(r);
    expected[r.url] = r;
  }
  std::vector<std::string> order;
  store.scan_all([&](const UrlRecord& r) {
    order.push_back(record_key(r.url));
    return true;
  });
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
  EXPECT_EQ(scanned(store), expected);
  // A host's records are one run of the scan.
  std::vector<std::string> hosts;
  for (const std::string& key : order) {
    if (hosts.empty() || hosts.back() != key.substr(0, 8)) hosts.push_back(key.substr(0, 8));
  }
  EXPECT_EQ(hosts.size(), 13u);
  int visited = 0;
  store.scan_all([&](const UrlRecord&) { return ++visited < 10; });
  EXPECT_EQ(visited, 10);
}

RecordOutcome fetched_at(int64_t ms) {
  RecordOutcome o;
  o.outcome = UrlOutcome::kFetched;
  o.fetched_ms = ms;
  o.http_status = 200;
  o.body_bytes = 100 + static_cast<uint64_t>(ms % 1000);
  o.depth = 9;  // for a record the store does not hold
  o.admitted_ms = ms - 1;
  return o;
}

// update(): outcomes without a read, in the batch, as RocksDB merge operands, and in every view of
// the store (point and batched lookups, the scan, a checkpoint, a read-only open, compactions).
TEST_F(RecordStoreTest, UpdatesApplyWhereverTheRecordIs) {
  const fs::path gen = dir_.path() / "records-000001";
  std::map<std::string, UrlRecord> expected;
  std::map<std::string, UrlRecord> in_checkpoint;
  auto expect_update = [&](RecordStore& store, const std::string& url, const RecordOutcome& o) {
    store.update(url, o);
    UrlRecord& r = expected.contains(url) ? expected[url] : (expected[url] = record_made_by(url, o));
    apply_record_outcome(r, o);
  };
  {
    RecordStore store(live_, kStoreBudget);
    for (int i = 0; i < 3000; ++i) {  // written out: more than two batches
      store.put(admitted(page(i % 7, i)));
      expected[page(i % 7, i)] = admitted(page(i % 7, i));
    }
    store.put(admitted("https://pending/"));
    expected["https://pending/"] = admitted("https://pending/");
    expect_update(store, "https://pending/", fetched_at(5000));  // applied in the batch itself
    for (int i = 0; i < 600; ++i) expect_update(store, page(i % 7, i), fetched_at(1000 + i));  // operands
    expect_update(store, page(1, 1), fetched_at(9000));                 // a second operand on the same record
    expect_update(store, "https://never-admitted/", fetched_at(7000));  // no record: made by the operand
    // Pending operands, seen by every lookup.
    EXPECT_EQ(*store.get(page(1, 1)), expected[page(1, 1)]);
    EXPECT_EQ(store.get(page(1, 1))->fetch_count, 2u);
    EXPECT_EQ(*store.get("https://never-admitted/"), expected["https://never-admitted/"]);
    const std::vector<std::string> urls = {page(2, 2), "https://absent/", "https://pending/"};
    const std::vector<std::string_view> asked(urls.begin(), urls.end());
    const std::vector<std::optional<UrlRecord>> found = store.get_many(asked);
    EXPECT_EQ(*found[0], expected[page(2, 2)]);
    EXPECT_FALSE(found[1]);
    EXPECT_EQ(*found[2], expected["https://pending/"]);
    EXPECT_EQ(scanned(store), expected);
    // Written as merges: the same answers from RocksDB.
    store.flush();
    EXPECT_EQ(*store.get(page(1, 1)), expected[page(1, 1)]);
    EXPECT_EQ(*store.get("https://never-admitted/"), expected["https://never-admitted/"]);
    EXPECT_EQ(scanned(store), expected);
    // A put after operands replaces the record whole.
    UrlRecord replaced = admitted(page(3, 3), 4);
    replaced.outcome = UrlOutcome::kDropped;
    store.put(replaced);
    expected[page(3, 3)] = replaced;
    store.checkpoint_to(gen);
    in_checkpoint = expected;
    expect_update(store, page(4, 4), fetched_at(8000));  // after the checkpoint: not in it
    store.persist();
  }
  EXPECT_EQ(scanned(*RecordStore::open_read_only(gen)), in_checkpoint);
  EXPECT_EQ(scanned(*RecordStore::open_read_only(live_)), expected);
}

TEST_F(RecordStoreTest, ACheckpointHoldsEveryPutBeforeItAndSharesTableFiles) {
  const fs::path gen1 = dir_.path() / "records-000001";
  const fs::path gen2 = dir_.path() / "records-000002";
  std::map<std::string, UrlRecord> expected;
  {
    RecordStore store(live_, kStoreBudget);
    for (int i = 0; i < 2000; ++i) {
      store.put(admitted(page(i % 5, i)));
      expected[page(i % 5, i)] = admitted(page(i % 5, i));
    }
    store.checkpoint_to(gen1);  // the last batch was pending: the checkpoint flushes it
    store.put(admitted("https://after/"));
    store.checkpoint_to(gen2);
  }
  RecordStore::verify(gen1);
  {
    std::unique_ptr<RecordStore> old = RecordStore::open_read_only(gen1);
    EXPECT_EQ(scanned(*old), expected);
    EXPECT_FALSE(old->get("https://after/"));
    EXPECT_THROW(old->put(admitted("https://x/")), CheckpointError);
  }
  // gen2 links gen1's table file rather than writing it again.
  size_t shared = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(gen2)) {
    if (e.path().extension() == ".sst" && fs::exists(gen1 / e.path().filename())) {
      EXPECT_TRUE(fs::equivalent(e.path(), gen1 / e.path().filename()));
      ++shared;
    }
  }
  EXPECT_GT(shared, 0u);

  // A resume: the live store made anew from the newest generation, written on.
  RecordStore::clone(gen2, live_);
  expected["https://after/"] = admitted("https://after/");
  {
    RecordStore store(live_, kStoreBudget);
    EXPECT_EQ(scanned(store), expected);
    store.put(admitted("https://resumed/"));
    store.persist();
  }
  std::unique_ptr<RecordStore> reopened = RecordStore::open_read_only(live_);
  EXPECT_TRUE(reopened->get("https://resumed/"));
  EXPECT_TRUE(reopened->get(page(1, 1)));
  // The generations did not change.
  EXPECT_FALSE(RecordStore::open_read_only(gen2)->get("https://resumed/"));
}

TEST(RecordStoreNamesTest, GenerationDirectoriesHaveAtLeastSixDigits) {
  EXPECT_EQ(record_store_directory_name(12), "records-000012");
  EXPECT_EQ(record_store_directory_name(1234567), "records-1234567");
}

TEST_F(RecordStoreTest, CloneNamesAMissingCheckpoint) {
  try {
    RecordStore::clone(dir_.path() / "records-000009", live_);
    ADD_FAILURE() << "a clone of nothing";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("records-000009: records store: missing"), std::string::npos) << e.what();
  }
  EXPECT_THROW(RecordStore::open_read_only(dir_.path() / "none"), CheckpointError);
}

TEST_F(RecordStoreTest, ASecondaryReaderSeesWhatTheRunningWriterPersisted) {
  RecordStore writer(live_, kStoreBudget);
  writer.put(admitted("https://one/"));
  writer.persist();
  testing::TempDir scratch;
  std::unique_ptr<RecordStore> reader = RecordStore::open_secondary(live_, scratch.path());
  EXPECT_TRUE(reader->get("https://one/"));
  EXPECT_FALSE(reader->get("https://two/"));
  EXPECT_THROW(reader->flush(), CheckpointError);
  writer.put(admitted("https://two/"));  // the writer goes on, holding its lock
  writer.persist();
  EXPECT_TRUE(writer.get("https://two/"));
}

}  // namespace
}  // namespace bloomcrawl
