// Revisits end to end (docs/recrawl.md, "Revisits in the crawl"): a loopback site whose pages
// change between two rounds, one with each kind of validator (ETag, a weak ETag, Last-Modified,
// both, neither, a Last-Modified that is no date), one that answers 304 to a request without
// validators, one deleted and one added. The second round (a resume of the first crawl's
// checkpoint, recrawl on and every page due) sends each page's validators exactly as received,
// fetches no URL twice, records each outcome in pages.jsonl, the URL records and report.json,
// finds the added page, and archives the unchanged pages as WARC revisit records warcio reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/output/status_file.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/persist/journal_replay.h"
#include "crawler/pipeline/crawler.h"
#include "records/record_store.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/page_records.h"
#include "tests/support/spawn.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_web_config.h"
#include "tests/support/warcio.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

// What the server saw of one request.
struct Seen {
  int round = 0;
  std::string path;
  std::string if_none_match;      // "-" when absent
  std::string if_modified_since;  // "-" when absent
};

constexpr const char* kLastModified = "Wed, 21 Oct 2015 07:28:00 GMT";

// The site of both rounds. Round 1: "/" links every page. Round 2: /changed has a new body and
// links /added; /deleted is 404; each page with a validator answers 304 when the request sends it
// back exactly; /liar answers 304 to anything; /never answers 304 from its first request on.
class ChangingSite {
 public:
  ChangingSite() {
    server_.server().Get(R"(/.*)", [this](const httplib::Request& req, httplib::Response& res) { serve(req, res); });
    server_.start();
  }
  std::string url(const std::string& path) const { return server_.url(path); }
  void next_round() { ++round_; }
  std::vector<Seen> seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }
  // Waits (at most `timeout`) until `path` has been requested `n` times in all.
  bool wait_for(const std::string& path, size_t n, std::chrono::seconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] {
      return size_t(std::count_if(seen_.begin(), seen_.end(), [&](const Seen& s) { return s.path == path; })) >= n;
    });
  }
  // From now on, the pages requested after `pages` more page requests are held (not answered)
  // until release(): a kill then lands while one is in flight. held() waits for the first.
  void hold_after(size_t pages) {
    std::lock_guard lock(mu_);
    hold_from_ = pages_ + pages;
  }
  bool held(std::chrono::seconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return holding_ > 0; });
  }
  void release() {
    std::lock_guard lock(mu_);
    hold_from_ = SIZE_MAX;
    cv_.notify_all();
  }
  ~ChangingSite() {
    release();
    server_.stop();
  }

 private:
  void serve(const httplib::Request& req, httplib::Response& res) {
    const int round = round_.load();
    const auto header = [&](const char* name) { return req.has_header(name) ? req.get_header_value(name) : "-"; };
    const std::string inm = header("If-None-Match");
    const std::string ims = header("If-Modified-Since");
    {
      std::unique_lock lock(mu_);
      seen_.push_back({round, req.path, inm, ims});
      if (req.path != "/robots.txt" && pages_++ >= hold_from_) {
        ++holding_;
        cv_.notify_all();
        cv_.wait(lock, [&] { return hold_from_ == SIZE_MAX; });
        res.status = 503;  // to a client killed meanwhile
        return;
      }
      cv_.notify_all();
    }
    const std::string& p = req.path;
    if (p == "/robots.txt" || (p == "/deleted" && round == 2) || (p == "/added" && round == 1)) {
      res.status = 404;
      res.set_content("no", "text/plain");
      return;
    }
    std::string etag;
    std::string last_modified;
    if (p == "/etag") etag = "\"e1\"";
    if (p == "/weak") etag = "W/\"w1\"";
    if (p == "/both") etag = "\"b1\"";
    if (p == "/lm" || p == "/both") last_modified = kLastModified;
    if (p == "/baddate") last_modified = "yesterday-ish";
    if (p == "/changed") etag = round == 1 ? "\"c1\"" : "\"c2\"";
    if (!etag.empty()) res.set_header("ETag", etag);
    if (!last_modified.empty()) res.set_header("Last-Modified", last_modified);
    const bool etag_matches = !etag.empty() && inm == etag;
    const bool date_matches = !last_modified.empty() && ims == last_modified;
    if (p == "/never" || (p == "/liar" && round == 2) ||
        ((etag_matches || etag.empty()) && (date_matches || last_modified.empty()) && (etag_matches || date_matches))) {
      res.status = 304;
      return;
    }
    std::string body = "<html><body>" + p;
    if (p == "/") {
      for (const char* page :
           {"/etag", "/weak", "/lm", "/both", "/neither", "/baddate", "/liar", "/changed", "/deleted", "/never"}) {
        body += std::string("<a href='") + page + "'>x</a>";
      }
    }
    if (p == "/changed" && round == 2) body += " new text <a href='/added'>added</a>";
    res.set_content(body + "</body></html>", "text/html");
  }

  testing::LoopbackHttpServer server_;
  std::atomic<int> round_{1};
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Seen> seen_;
  size_t pages_ = 0;  // page requests (robots.txt left out)
  size_t hold_from_ = SIZE_MAX;
  size_t holding_ = 0;
};

class RevisitCrawlTest : public ::testing::Test {
 protected:
  CrawlConfig config() const {
    CrawlConfig c;
    c.seeds.urls = {site_.url("/")};
    c.scope.allowed_hosts = {"127.0.0.1"};
    c.politeness.delay_ms = 0;
    c.fetch.allowed_ranges = {"127.0.0.0/8"};
    c.output.directory = (dir_.path() / "out").string();
    c.output.warc.enabled = true;
    c.checkpoint.directory = (dir_.path() / "ckpt").string();
    c.recrawl.enabled = true;
    c.logging.progress = "never";
    return c;
  }

  std::map<std::string, UrlRecord> records() const {
    const CrawlManifest m = read_crawl_manifest(dir_.path() / "ckpt");
    std::map<std::string, UrlRecord> out;
    RecordStore::open_read_only(dir_.path() / "ckpt" / m.records_directory)->scan_all([&](const UrlRecord& r) {
      out.emplace(r.url, r);
      return true;
    });
    return out;
  }

  testing::TempDir dir_;
  ChangingSite site_;
};

TEST_F(RevisitCrawlTest, ARoundSendsTheValidatorsRecordsEachOutcomeAndFindsTheNewPage) {
  const CrawlerSettings first_settings = testing::checkpointed_settings(config());
  ASSERT_EQ(Crawler(first_settings).run()["crawl"]["stopped_by"], "done");
  const std::map<std::string, UrlRecord> before = records();
  for (const auto& [url, r] : before) {
    EXPECT_GT(r.next_fetch_ms, r.last_fetched_ms) << url << ": a fetched record gets its next fetch time";
  }
  // A 304 to a URL never fetched is an error recorded, and leaves nothing to revisit.
  const UrlRecord& never = before.at(site_.url("/never"));
  EXPECT_EQ(never.outcome, UrlOutcome::kFailed);
  EXPECT_EQ(never.reason, "untrusted_not_modified");
  EXPECT_EQ(never.http_status, 0);

  site_.next_round();
  CrawlerSettings settings = first_settings;
  settings.revisit_all = true;  // nothing is due for a week: every record due now
  const nlohmann::json report =
      Crawler(settings, std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(dir_.path() / "ckpt"))).run();
  ASSERT_EQ(report["crawl"]["stopped_by"], "done") << report["crawl"].dump();

  // The requests of round 2: each URL once, with its validators exactly as received.
  std::map<std::string, Seen> round2;
  for (const Seen& s : site_.seen()) {
    if (s.round != 2 || s.path == "/robots.txt") continue;
    EXPECT_TRUE(round2.emplace(s.path, s).second) << s.path << " fetched twice in one round";
  }
  const std::map<std::string, std::pair<std::string, std::string>> sent = {
      {"/", {"-", "-"}},
      {"/etag", {"\"e1\"", "-"}},
      {"/weak", {"W/\"w1\"", "-"}},
      {"/lm", {"-", kLastModified}},
      {"/both", {"\"b1\"", kLastModified}},
      {"/neither", {"-", "-"}},
      {"/baddate", {"-", "yesterday-ish"}},
      {"/liar", {"-", "-"}},
      {"/changed", {"\"c1\"", "-"}},
      {"/deleted", {"-", "-"}},
      {"/added", {"-", "-"}},
  };
  ASSERT_EQ(round2.size(), sent.size()) << "/never (no capture) is not revisited";
  for (const auto& [path, headers] : sent) {
    ASSERT_TRUE(round2.contains(path)) << path << " not fetched in round 2";
    EXPECT_EQ(round2[path].if_none_match, headers.first) << path;
    EXPECT_EQ(round2[path].if_modified_since, headers.second) << path;
  }

  // Each page's last line in pages.jsonl, and its URL record.
  const std::map<std::string, std::string> expected = {
      {"/", "unchanged"},
      {"/etag", "not_modified"},
      {"/weak", "not_modified"},
      {"/lm", "not_modified"},
      {"/both", "not_modified"},
      {"/neither", "unchanged"},
      {"/baddate", "not_modified"},
      {"/liar", "untrusted_not_modified"},
      {"/changed", "changed"},
      {"/deleted", "gone"},
      {"/added", "ok"},
  };
  const auto pages = testing::read_page_records(dir_.path() / "out");
  const std::map<std::string, UrlRecord> after = records();
  for (const auto& [path, word] : expected) {
    const std::string url = site_.url(path);
    ASSERT_TRUE(pages.contains(url)) << url;
    EXPECT_EQ(pages.at(url).back()["outcome"], word) << url;
    const UrlRecord& r = after.at(url);
    EXPECT_EQ(r.reason, word == "ok" ? "" : word) << url;
    if (path == "/added") continue;
    const UrlRecord& was = before.at(url);
    EXPECT_EQ(r.fetch_count, 2u) << url;
    EXPECT_GT(r.next_fetch_ms, r.last_fetched_ms) << url;
    if (word == "not_modified" || word == "untrusted_not_modified" || word == "unchanged") {
      EXPECT_EQ(r.payload_sha1, was.payload_sha1) << url << ": the capture's digest is kept";
      EXPECT_EQ(r.http_status, 200) << url;
      EXPECT_EQ(r.etag, was.etag) << url;
    }
  }
  EXPECT_NE(after.at(site_.url("/changed")).payload_sha1, before.at(site_.url("/changed")).payload_sha1);
  EXPECT_EQ(after.at(site_.url("/changed")).etag, "\"c2\"");
  EXPECT_EQ(after.at(site_.url("/deleted")).next_fetch_ms - after.at(site_.url("/deleted")).last_fetched_ms,
            config().recrawl.max_interval_s * 1000)
      << "a page gone is checked again at the maximum interval";
  // Unchanged pages get a longer interval than a changed one.
  const auto interval = [&](const std::string& path) {
    const UrlRecord& r = after.at(site_.url(path));
    return r.next_fetch_ms - r.last_fetched_ms;
  };
  EXPECT_GT(interval("/etag"), interval("/changed"));

  const nlohmann::json& revisits = report["revisits"];
  EXPECT_EQ(revisits["queued"], 10);
  EXPECT_EQ(revisits["revisited"], 9);
  EXPECT_EQ(revisits["not_modified"], 5);
  EXPECT_EQ(revisits["unchanged"], 2);
  EXPECT_EQ(revisits["changed"], 1);
  EXPECT_EQ(revisits["gone"], 1);
  EXPECT_EQ(revisits["untrusted_not_modified"], 1);
  EXPECT_EQ(revisits["new_urls"], 1);
  EXPECT_GT(revisits["bytes_saved"].get<uint64_t>(), 0u);
  EXPECT_GT(revisits["next_due_ms"].get<int64_t>(), 0);

  // The WARC files: a revisit record for each 304 and each identical payload, read by warcio.
  std::vector<fs::path> warcs;
  for (const fs::directory_entry& e : fs::directory_iterator(dir_.path() / "out" / "warc")) {
    if (e.path().string().ends_with(".warc.gz")) warcs.push_back(e.path());
  }
  std::sort(warcs.begin(), warcs.end());
  std::map<std::string, nlohmann::json> revisit_records;
  for (const nlohmann::json& rec : testing::read_with_warcio(warcs)) {
    if (rec["type"] == "revisit") {
      EXPECT_TRUE(revisit_records.emplace(rec["target"], rec).second) << rec["target"];
    }
  }
  ASSERT_EQ(revisit_records.size(), 7u);
  for (const auto& [path, word] : expected) {
    const std::string url = site_.url(path);
    if (word != "not_modified" && word != "unchanged") {
      EXPECT_FALSE(revisit_records.contains(url)) << url;
      continue;
    }
    ASSERT_TRUE(revisit_records.contains(url)) << url;
    const nlohmann::json& h = revisit_records[url];
    EXPECT_EQ(h["profile"], word == "not_modified"
                                ? "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
                                : "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest");
    EXPECT_EQ(h["refers_to_uri"], url);
    EXPECT_EQ(h["payload_digest"], pages.at(url).front()["payload_digest"]) << url;
    EXPECT_EQ(h["refers_to_date"], pages.at(url).front()["fetch_time"]) << url;
    if (word == "unchanged") {
      EXPECT_EQ(h["truncated"], "length") << url;
    }
  }
}

// Pages revisited twice without a change (a 304, and a 200 with the same body): each revisit
// record refers to the capture that holds the payload, the first round's response, never to the
// revisit record before it, which holds none (WARC 1.1 6.7: a reader follows WARC-Refers-To-* to
// the payload).
TEST_F(RevisitCrawlTest, ARevisitOfARevisitRefersToTheCaptureHoldingThePayload) {
  const CrawlerSettings first_settings = testing::checkpointed_settings(config());
  ASSERT_EQ(Crawler(first_settings).run()["crawl"]["stopped_by"], "done");
  for (int round = 2; round <= 3; ++round) {
    site_.next_round();
    CrawlerSettings settings = first_settings;
    settings.revisit_all = true;
    const nlohmann::json report =
        Crawler(settings, std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(dir_.path() / "ckpt"))).run();
    ASSERT_EQ(report["crawl"]["stopped_by"], "done") << "round " << round;
  }
  const auto pages = testing::read_page_records(dir_.path() / "out");
  std::vector<fs::path> warcs;
  for (const fs::directory_entry& e : fs::directory_iterator(dir_.path() / "out" / "warc")) {
    if (e.path().string().ends_with(".warc.gz")) warcs.push_back(e.path());
  }
  std::sort(warcs.begin(), warcs.end());
  std::map<std::string, std::vector<nlohmann::json>> revisits;
  for (const nlohmann::json& rec : testing::read_with_warcio(warcs)) {
    if (rec["type"] == "revisit") revisits[rec["target"].get<std::string>()].push_back(rec);
  }
  for (const char* path : {"/etag", "/neither"}) {
    const std::string url = site_.url(path);
    ASSERT_EQ(revisits[url].size(), 2u) << url << ": one revisit record a round";
    const nlohmann::json& original = pages.at(url).front();
    for (const nlohmann::json& r : revisits[url]) {
      EXPECT_EQ(r["refers_to_uri"], url);
      EXPECT_EQ(r["refers_to_date"], original["fetch_time"]) << url;
      EXPECT_EQ(r["payload_digest"], original["payload_digest"]) << url;
    }
  }
}

// kill -9 during a revisit round (the `bloomcrawl` binary, a page held in flight), then a plain
// resume: the round completes, every page revisited, none twice but the transfers in flight at
// the kill (the journal's dispatched and not completed).
TEST_F(RevisitCrawlTest, AKilledRevisitRoundResumesWithoutRevisitingPagesTwice) {
  const CrawlConfig c = config();
  const CrawlerSettings settings = testing::checkpointed_settings(c);
  ASSERT_EQ(Crawler(settings).run()["crawl"]["stopped_by"], "done");
  const fs::path config_file = dir_.path() / "crawl.json";
  std::ofstream(config_file) << to_json(c).dump(2);

  site_.next_round();
  site_.hold_after(4);
  const pid_t child = testing::spawn_to_files(
      {BLOOMCRAWL_BIN, "crawl", "-c", config_file.string(), "--resume", c.checkpoint.directory, "--revisit-all"},
      (dir_.path() / "stdout").string(), (dir_.path() / "stderr").string());
  ASSERT_GT(child, 0);
  ASSERT_TRUE(site_.held(std::chrono::seconds(30))) << "the revisit round never reached its fifth page";
  ASSERT_EQ(kill(child, SIGKILL), 0);
  EXPECT_EQ(testing::wait_exit_code(child), 128 + SIGKILL);
  site_.release();
  // The transfers in flight at the kill, as the killed run's journal shows them: dispatched and not
  // completed (the server's count of held requests misses responses sent and not yet processed).
  const JournalReplay killed = replay_journals(
      journals_since(c.checkpoint.directory, read_crawl_manifest(c.checkpoint.directory).generation), {});
  std::set<std::string> in_flight;
  for (const std::string& url : killed.outstanding) in_flight.insert(url);
  EXPECT_GE(in_flight.size(), 1u) << "the kill found nothing in flight: the test proves nothing";

  const nlohmann::json report =
      Crawler(settings, std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(c.checkpoint.directory))).run();
  ASSERT_EQ(report["crawl"]["stopped_by"], "done") << report["crawl"].dump();
  std::map<std::string, int> requests;
  for (const Seen& s : site_.seen()) {
    if (s.round == 2 && s.path != "/robots.txt") ++requests[s.path];
  }
  for (const char* path :
       {"/", "/etag", "/weak", "/lm", "/both", "/neither", "/baddate", "/liar", "/changed", "/deleted", "/added"}) {
    EXPECT_GE(requests[path], 1) << path << " not revisited";
    EXPECT_LE(requests[path], in_flight.contains(site_.url(path)) ? 2 : 1) << path;
  }
  for (const auto& [url, r] : records()) {
    EXPECT_NE(r.outcome, UrlOutcome::kQueued) << url;
    if (url != site_.url("/added") && url != site_.url("/never")) {  // /never: no capture to revisit
      EXPECT_GE(r.fetch_count, 2u) << url;
    }
  }
}

// recrawl.continuous with second-scale intervals: the crawl does not end when nothing is queued;
// it revisits each page when it falls due, until stopped, and stops with a checkpoint.
TEST_F(RevisitCrawlTest, AContinuousCrawlRevisitsWhatFallsDueUntilStopped) {
  CrawlConfig c = config();
  c.recrawl.continuous = true;
  c.recrawl.min_interval_s = 1;
  c.recrawl.default_interval_s = 1;
  c.recrawl.max_interval_s = 2;
  Crawler crawler(testing::checkpointed_settings(c));
  nlohmann::json report;
  std::thread run([&] { report = crawler.run(); });
  const bool revisited = site_.wait_for("/etag", 3, std::chrono::seconds(30));
  crawler.stop();
  run.join();
  ASSERT_TRUE(revisited) << "no second revisit of /etag";
  EXPECT_EQ(report["crawl"]["stopped_by"], "signal");
  EXPECT_GE(report["revisits"]["not_modified"].get<uint64_t>(), 2u);
  std::vector<std::string> sent;
  for (const Seen& s : site_.seen()) {
    if (s.path == "/etag") sent.push_back(s.if_none_match);
  }
  EXPECT_EQ(sent[0], "-");
  EXPECT_EQ(sent[1], "\"e1\"");
  EXPECT_EQ(sent[2], "\"e1\"");
  for (const auto& [url, r] : records()) EXPECT_GT(r.fetch_count, 0u) << url;
  // The status file says when the next page falls due.
  const CrawlStatus status = read_status_file(dir_.path() / "out");
  EXPECT_GE(status.revisited, 2u);
  EXPECT_GT(status.revisit_next_due_ms, 0);
}

}  // namespace
}  // namespace bloomcrawl
