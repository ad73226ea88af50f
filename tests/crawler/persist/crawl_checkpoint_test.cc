// Crawl checkpoints on disk: a generation round-trips, sealed filter layers are written once,
// retention keeps K generations and the journals (and frontier directories) they need, a damaged
// generation is refused with the file named, falling back to the one before, and a version 1
// generation (a frontier snapshot file) still loads.
#include "crawler/persist/crawl_checkpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/checksum.h"
#include "base/data_error.h"
#include "crawler/persist/audit_set.h"
#include "crawler/persist/journal.h"
#include "frontier/frontier.h"
#include "tests/support/faulty_file_system.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

class CrawlCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("crawl_checkpoint_test_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override {
    frontier_.reset();
    fs::remove_all(dir_);
  }

  // A disk frontier with its live store where a crawl keeps it.
  static FrontierOptions frontier_options(const fs::path& store) {
    FrontierOptions o;
    o.store_directory = store.string();
    return o;
  }
  // A generation of a small crawl: `keys` URLs in the filter (small layers, so several seal),
  // 50 queued in the frontier, an audit set, and manifest fields that must come back.
  CrawlCheckpoint make(uint64_t generation, uint64_t keys) {
    SeenFilterOptions o;
    o.initial_capacity = 1000;
    filter_ = std::make_unique<SeenFilter>(o);
    for (uint64_t i = 0; i < keys; ++i) filter_->insert(url(i));
    if (!frontier_) {
      fs::create_directories(dir_);
      frontier_ = std::make_unique<Frontier>(frontier_options(dir_ / "frontier-live"));
      for (uint64_t i = 0; i < 50; ++i) frontier_->push(host(i), url(i), 1);
    }
    CrawlCheckpoint cp;
    cp.filter = filter_->snapshot();
    cp.audit_enabled = true;
    cp.audit = {1, 5, 9};
    CrawlManifest& m = cp.manifest;
    m.generation = generation;
    m.key_hash = "0123456789abcdef";
    m.config = {{"seeds", {{"urls", {"http://h0/"}}}}};
    m.stats = {{"fetches", {{"pages_fetched", 7}}}};
    m.counters = {{"resumes", 2}};
    m.queued = 50;
    m.pages_done = 7;
    m.requeue = {{"http://h1/x parent", "h1", 3}};
    m.outstanding = {"http://h2/y"};
    return cp;
  }
  // As the crawl's checkpointer saves: the frontier's directory first, then the rest.
  CrawlSaveResult save(CrawlCheckpoint& cp, uint32_t keep) {
    frontier_->checkpoint(dir_ / frontier_directory_name(cp.manifest.generation));
    return save_crawl_checkpoint(cp, dir_, keep);
  }
  std::vector<std::string> frontier_directories() const {
    std::vector<std::string> out = files_named(dir_, "frontier-0");
    for (const std::string& name : out) EXPECT_TRUE(fs::is_directory(dir_ / name)) << name;
    return out;
  }
  static std::string host(uint64_t i) { return std::string("h").append(std::to_string(i % 5)); }
  static std::string url(uint64_t i) {
    return std::string("http://").append(host(i)).append("/page").append(std::to_string(i));
  }

  static void flip_byte(const fs::path& path, size_t offset) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(std::streamoff(offset));
    char c = 0;
    f.get(c);
    f.seekp(std::streamoff(offset));
    f.put(char(c ^ 0x40));
  }

  // The generation a resume gets when CURRENT names `manifest` (loaded from a copy, so that
  // dir_ is untouched); a generation that does not load falls back to an older one.
  uint64_t load_as_current(const std::string& manifest) {
    const TempDir copy;
    fs::copy(dir_, copy.path() / "c", fs::copy_options::recursive);
    std::ofstream(copy.path() / "c" / "CURRENT") << manifest << "\n";
    return load_crawl_checkpoint(copy.path() / "c").manifest.generation;
  }
  static std::vector<std::string> files_named(const fs::path& dir, const std::string& prefix) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().filename().string().starts_with(prefix)) out.push_back(e.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path dir_;
  std::unique_ptr<SeenFilter> filter_;
  std::unique_ptr<Frontier> frontier_;
};

TEST_F(CrawlCheckpointTest, RoundTrip) {
  CrawlCheckpoint saved = make(1, 5000);
  const CrawlSaveResult r = save(saved, 3);
  EXPECT_EQ(r.manifest_file, "CRAWL-000001");
  EXPECT_TRUE(is_crawl_checkpoint(dir_));

  const CrawlCheckpoint loaded = load_crawl_checkpoint(dir_);
  const CrawlManifest& m = loaded.manifest;
  EXPECT_EQ(m.generation, 1u);
  EXPECT_EQ(m.key_hash, "0123456789abcdef");
  EXPECT_EQ(m.config, saved.manifest.config);
  EXPECT_EQ(m.stats, saved.manifest.stats);
  EXPECT_EQ(m.counters, saved.manifest.counters);
  EXPECT_EQ(m.pages_done, 7u);
  ASSERT_EQ(m.requeue.size(), 1u);
  EXPECT_EQ(m.requeue[0].url, "http://h1/x parent");
  EXPECT_EQ(m.requeue[0].host, "h1");
  EXPECT_EQ(m.requeue[0].depth, 3u);
  EXPECT_EQ(m.outstanding, saved.manifest.outstanding);
  EXPECT_EQ(m.frontier_directory, "frontier-000001");
  EXPECT_EQ(m.queued, 50u);
  EXPECT_EQ(loaded.frontier_directory, dir_ / "frontier-000001");
  EXPECT_TRUE(loaded.frontier.empty());
  const TempDir store;
  EXPECT_EQ(Frontier::open_checkpoint(loaded.frontier_directory, frontier_options(store.path() / "s")).stats().queued,
            50u);
  EXPECT_EQ(loaded.audit, saved.audit);
  SeenFilter restored(loaded.filter);
  for (uint64_t i = 0; i < 5000; ++i) ASSERT_TRUE(restored.contains(url(i))) << i;
  EXPECT_EQ(restored.size(), 5000u);
}

TEST_F(CrawlCheckpointTest, SealedLayersAreWrittenOnce) {
  CrawlCheckpoint first = make(1, 20000);
  const uint64_t first_bytes = save(first, 3).bytes_written;
  for (uint64_t i = 20000; i < 20100; ++i) filter_->insert(url(i));
  first.filter = filter_->snapshot();
  first.manifest.generation = 2;
  const uint64_t second_bytes = save(first, 3).bytes_written;
  ASSERT_GT(first.filter.layers.size(), 2u);
  const uint64_t active_layer = first.filter.layers.back().bits->word_count() * 8;
  EXPECT_LT(second_bytes, first_bytes);
  // The frontier did not change: its store's SSTs are not written again, only small files.
  EXPECT_LT(second_bytes, active_layer + uint64_t{64} * 1024);
}

TEST_F(CrawlCheckpointTest, RetentionKeepsTheNewestGenerationsAndTheirJournals) {
  fs::create_directories(dir_);
  for (uint64_t g = 1; g <= 5; ++g) {
    { const JournalWriter created(journal_path(dir_, g), JournalOptions{}); }  // an empty journal, closed
    CrawlCheckpoint cp = make(g, 100);
    save(cp, 2);
  }
  EXPECT_FALSE(fs::exists(dir_ / "CRAWL-000003"));
  EXPECT_EQ(frontier_directories(), (std::vector<std::string>{"frontier-000004", "frontier-000005"}));
  EXPECT_FALSE(fs::exists(dir_ / "journal-000003.log"));
  EXPECT_TRUE(fs::exists(dir_ / "CRAWL-000004"));
  EXPECT_TRUE(fs::exists(dir_ / "journal-000004.log"));
  EXPECT_EQ(journals_since(dir_, 4), (std::vector<fs::path>{journal_path(dir_, 4), journal_path(dir_, 5)}));
  EXPECT_EQ(next_generation(dir_), 6u);
  EXPECT_EQ(load_crawl_checkpoint(dir_).manifest.generation, 5u);
}

TEST_F(CrawlCheckpointTest, EveryFailedStepOfASaveLeavesThePreviousGenerationLoadable) {
  CrawlCheckpoint first = make(1, 3000);
  save(first, 2);
  uint64_t g = 2;
  int failures = 0;
  for (int nth = 1;; ++nth, ++g) {
    CrawlCheckpoint cp = make(g, 3000 + 10 * g);
    // The frontier's own steps fail in FailedSavesInARow... and in the frontier's tests.
    frontier_->checkpoint(dir_ / frontier_directory_name(g));
    testing::FaultyFileSystem faulty;
    faulty.fail_step(nth, ENOSPC);
    try {
      save_crawl_checkpoint(cp, dir_, 2);
    } catch (const CheckpointError& e) {
      ++failures;
      EXPECT_EQ(load_as_current("CRAWL-000001"), 1u) << "step " << nth << ": " << e.what();
      // CURRENT names generation 1, or (the switch done, its directory sync failed) the new one.
      const uint64_t loaded = load_crawl_checkpoint(dir_).manifest.generation;
      EXPECT_TRUE(loaded == 1 || loaded == g) << "step " << nth << ": " << e.what();
      // Copied by each load_as_current: left, they would make this loop quadratic. (Retention of
      // failed generations' frontier directories: FailedSavesInARow...)
      if (loaded != g) fs::remove_all(dir_ / frontier_directory_name(g));
      continue;
    }
    break;
  }
  EXPECT_GE(failures, 20) << "the filter's files, the frontier, audit and crawl manifests, CURRENT";
  EXPECT_EQ(load_crawl_checkpoint(dir_).manifest.generation, g);
  // Retention, once the save succeeded: two generations, and nothing the failed saves left.
  const std::vector<std::string> manifests = files_named(dir_, "CRAWL-");
  ASSERT_EQ(manifests.size(), 2u);
  EXPECT_NE(load_as_current(manifests[0]), g) << "the older kept generation loads too";
  EXPECT_EQ(frontier_directories().size(), 2u);
  EXPECT_EQ(files_named(dir_ / "filter", "MANIFEST-").size(), 2u);
  for (const auto& e : fs::recursive_directory_iterator(dir_)) EXPECT_NE(e.path().extension(), ".tmp") << e.path();
}

TEST_F(CrawlCheckpointTest, FailedSavesInARowNeverOrphanTheLastGoodGeneration) {
  for (uint64_t g = 1; g <= 2; ++g) {
    CrawlCheckpoint cp = make(g, 3000 + 10 * g);
    save(cp, 2);
  }
  // A disk that fails at each point after the filter's own save in turn, twice over: each failed
  // generation leaves a frontier directory and a newer filter manifest, and some a crawl manifest.
  const std::vector<std::string> targets{"frontier-state", "audit-", "CRAWL-", (dir_ / "CURRENT").string()};
  uint64_t g = 3;
  for (int round = 0; round < 2; ++round) {
    for (const std::string& target : targets) {
      CrawlCheckpoint cp = make(g, 3000 + 10 * g);
      testing::FaultyFileSystem faulty;
      faulty.fail_creating(target, ENOSPC);
      EXPECT_THROW(save(cp, 2), CheckpointError) << target;
      EXPECT_EQ(load_crawl_checkpoint(dir_).manifest.generation, 2u) << "failed at " << target;
      EXPECT_EQ(load_as_current("CRAWL-000001"), 1u) << "failed at " << target;
      ++g;
    }
  }
  CrawlCheckpoint cp = make(g, 3000 + 10 * g);
  save(cp, 2);
  EXPECT_EQ(load_crawl_checkpoint(dir_).manifest.generation, g);
  // Kept: g and the newest manifest before it (one whose CURRENT switch failed is complete).
  const std::vector<std::string> manifests = files_named(dir_, "CRAWL-");
  ASSERT_EQ(manifests.size(), 2u);
  EXPECT_EQ(load_as_current(manifests[0]), g - 1);
  EXPECT_EQ(frontier_directories(),
            (std::vector<std::string>{"frontier-" + manifests[0].substr(6), "frontier-" + manifests[1].substr(6)}));
  EXPECT_EQ(files_named(dir_ / "filter", "MANIFEST-").size(), 2u);
}

TEST_F(CrawlCheckpointTest, CorruptedNewestGenerationFallsBackToThePreviousOne) {
  for (uint64_t g = 1; g <= 2; ++g) {
    CrawlCheckpoint cp = make(g, 100);
    save(cp, 3);
  }
  flip_byte(dir_ / "frontier-000002" / "frontier-state", 20);
  EXPECT_EQ(load_crawl_checkpoint(dir_).manifest.generation, 1u);
  // Both damaged: an error naming what is wrong with each.
  flip_byte(dir_ / "CRAWL-000001", 30);
  try {
    load_crawl_checkpoint(dir_);
    FAIL() << "loaded a damaged checkpoint";
  } catch (const CheckpointError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("frontier-000002/frontier-state"), std::string::npos) << what;
    EXPECT_NE(what.find("CRAWL-000001: checksum mismatch"), std::string::npos) << what;
  }
}

TEST_F(CrawlCheckpointTest, AMissingCurrentFallsBackToTheNewestManifest) {
  CrawlCheckpoint cp = make(4, 100);
  save(cp, 3);
  fs::remove(dir_ / "CURRENT");
  EXPECT_FALSE(is_crawl_checkpoint(dir_));
  EXPECT_EQ(load_crawl_checkpoint(dir_).manifest.generation, 4u);
}

TEST_F(CrawlCheckpointTest, ManifestDecodingNamesTheProblem) {
  CrawlCheckpoint cp = make(1, 10);
  const std::string good = encode_crawl_manifest(cp.manifest);
  auto problem = [](std::string_view bytes) {
    try {
      decode_crawl_manifest(bytes, "M");
    } catch (const CheckpointError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(problem(good.substr(0, 10)), "M: truncated: 10 bytes");
  std::string magic = good;
  magic.replace(0, 8, "BCSFMANI");
  EXPECT_EQ(problem(magic), "M: bad magic (not a crawl manifest)");
  std::string v9 = good;
  v9[8] = 9;
  EXPECT_EQ(problem(v9), "M: unsupported format version 9");
  EXPECT_NE(problem(good.substr(0, good.size() - 1)).find("does not match body length"), std::string::npos);
  std::string flipped = good;
  flipped[20] ^= 1;
  EXPECT_EQ(problem(flipped), "M: checksum mismatch");

  // A well-framed body that lies: the field is named.
  CrawlManifest escape = cp.manifest;
  escape.filter_manifest = "MANIFEST-000001";
  escape.frontier_directory = "../../etc";
  EXPECT_EQ(problem(encode_crawl_manifest(escape)), "M: field \"directory\" is not a plain file name");
  escape.frontier_file = "../../etc/passwd";  // version 1
  EXPECT_EQ(problem(encode_crawl_manifest(escape)), "M: field \"file\" is not a plain file name");
}

TEST_F(CrawlCheckpointTest, AMissingFrontierDirectoryFallsBackToThePreviousGeneration) {
  for (uint64_t g = 1; g <= 2; ++g) {
    CrawlCheckpoint cp = make(g, 100);
    save(cp, 3);
  }
  fs::remove_all(dir_ / "frontier-000002" / "store");
  EXPECT_EQ(load_crawl_checkpoint(dir_).manifest.generation, 1u);
  CrawlCheckpoint unwritten = make(3, 100);  // its frontier never written: refused, nothing changed
  EXPECT_THROW(save_crawl_checkpoint(unwritten, dir_, 3), CheckpointError);
  EXPECT_EQ(read_crawl_manifest(dir_).generation, 2u);
}

// Written before the disk frontier: the manifest names a snapshot file, which a resume restores
// into a disk frontier.
TEST_F(CrawlCheckpointTest, AVersion1GenerationStillLoads) {
  CrawlCheckpoint cp = make(1, 100);
  save(cp, 3);
  Frontier ram{FrontierOptions{}};
  for (uint64_t i = 0; i < 30; ++i) ram.push(host(i), url(i), 2);
  const std::string snapshot = ram.snapshot();
  CrawlManifest m = read_crawl_manifest(dir_);
  m.frontier_directory.clear();
  m.frontier_file = "frontier-000001.bin";
  m.frontier_bytes = snapshot.size();
  m.frontier_checksum = checksum64(snapshot);
  std::ofstream(dir_ / m.frontier_file, std::ios::binary) << snapshot;
  const std::string manifest = encode_crawl_manifest(m);
  ASSERT_EQ(manifest[8], 1) << "written as version 1";
  std::ofstream(dir_ / "CRAWL-000001", std::ios::binary | std::ios::trunc) << manifest;
  fs::remove_all(dir_ / "frontier-000001");

  const CrawlCheckpoint loaded = load_crawl_checkpoint(dir_);
  EXPECT_EQ(loaded.manifest.frontier_file, "frontier-000001.bin");
  EXPECT_TRUE(loaded.frontier_directory.empty());
  EXPECT_EQ(loaded.frontier, snapshot);
  const TempDir store;
  Frontier restored = Frontier::restore(loaded.frontier, frontier_options(store.path() / "s"));
  EXPECT_EQ(restored.stats().queued, 30u);
  const std::optional<Lease> first = restored.pop_ready(Clock::now());
  ASSERT_TRUE(first);
  EXPECT_EQ(first->entry.url, url(0));
  restored.drop(*first);
  flip_byte(dir_ / "frontier-000001.bin", 20);
  EXPECT_THROW(load_crawl_checkpoint(dir_), CheckpointError);
}

TEST_F(CrawlCheckpointTest, AuditFileRoundTripAndDamage) {
  const std::string bytes = encode_audit_file({2, 3, 70});
  EXPECT_EQ(decode_audit_file(bytes, "A"), (std::vector<uint64_t>{2, 3, 70}));
  std::string damaged = bytes;
  damaged[17] ^= 1;
  EXPECT_THROW(decode_audit_file(damaged, "A"), CheckpointError);
  EXPECT_THROW(decode_audit_file(bytes.substr(0, 30), "A"), CheckpointError);
}

}  // namespace
}  // namespace bloomcrawl
