// Crash and resume end to end: the `bloomcrawl` binary crawls the local test web (in this
// process) and is killed with SIGKILL at random moments, each time while transfers are in flight
// (the server holds its responses, so the kill lands mid-transfer), then resumed. At the end the
// pages fetched are the ground truth, the server saw no more duplicate fetches than transfers
// were in flight at the kills, every page has its record in pages.jsonl, and the checkpoint
// verifies. Every crawl here runs its frontier at the minimum memory limit (1 MB), so its URLs
// live in the store on disk and each resume reopens them from a checkpoint. Also: SIGTERM's final checkpoint, a
// refused resume after a canonicalization change, falling back past a corrupted generation.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/persist/journal_replay.h"
#include "tests/support/spawn.h"
#include "tests/support/test_web.h"
#include "tests/support/warcio.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testweb::TestWeb;
using testweb::TestWebOptions;

class ResumeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("resume_test_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (child_ > 0) kill_child(SIGKILL);
    if (!HasFailure()) fs::remove_all(dir_);
  }

  fs::path checkpoint_dir() const { return dir_ / "ckpt"; }
  fs::path out_dir() const { return dir_ / "out"; }

  // The crawl of the test web's three hosts, checkpointed every 25 pages, its frontier at the
  // minimum memory limit; `patch` (JSON merge patch) changes what a test needs.
  void write_config(const TestWeb& web, const nlohmann::json& patch = nlohmann::json::object()) {
    nlohmann::json c = {
        {"seeds", {{"urls", {web.seed_url()}}}},
        {"scope", {{"allowed_hosts", web.options().hosts}, {"max_depth", -1}}},
        {"politeness", {{"delay_ms", 0}, {"concurrency_per_host", 4}}},
        {"fetch", {{"allowed_ranges", {"127.0.0.0/8"}}, {"connect_timeout_ms", 5000}, {"total_timeout_ms", 20000}}},
        {"seen_filter", {{"initial_capacity", 1000}}},
        {"frontier", {{"memory_limit_mb", 1}}},
        {"output", {{"directory", out_dir().string()}}},
        {"checkpoint", {{"directory", checkpoint_dir().string()}, {"interval_s", 0}, {"interval_pages", 25}}},
        {"logging", {{"progress", "never"}}},
    };
    c.merge_patch(patch);
    std::ofstream(dir_ / "crawl.json") << c.dump(2);
  }

  void start(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {BLOOMCRAWL_BIN, "crawl", "-c", (dir_ / "crawl.json").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string log = (dir_ / ("run" + std::to_string(runs_++) + ".log")).string();
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    ASSERT_EQ(testing::spawn_program(std::move(args), actions, &child_), 0);
    posix_spawn_file_actions_destroy(&actions);
  }

  int wait_child() {
    int status = 0;
    waitpid(child_, &status, 0);
    child_ = -1;
    return status;
  }
  int kill_child(int sig) {
    kill(child_, sig);
    return wait_child();
  }
  bool child_exited() {
    int status = 0;
    if (waitpid(child_, &status, WNOHANG) != child_) return false;
    child_ = -1;
    exit_status_ = status;
    return true;
  }

  // Runs the crawl to its end; returns the exit code.
  int run(const std::vector<std::string>& extra) {
    start(extra);
    return WEXITSTATUS(wait_child());
  }

  std::string last_log() const { return run_log(runs_ - 1); }
  std::string run_log(int run) const {
    std::ifstream in(dir_ / ("run" + std::to_string(run) + ".log"));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  nlohmann::json report() const {
    std::ifstream in(out_dir() / "report.json");
    return nlohmann::json::parse(in);
  }

  // Sends `sig` to the crawl once the server has received `pages` page requests, while it holds
  // the responses from that request on; then answers them again and waits for the crawl's exit
  // (its status in `status`). The hold is set before the wait, so the crawl cannot end first
  // however late this thread runs (a wait for that many requests followed by a kill could wake
  // after the crawl's end). False, with nothing sent, if the crawl finished before that request.
  bool signal_in_flight(TestWeb& web, uint64_t pages, int sig, int* status = nullptr) {
    web.hold_responses_from_page_request(pages);
    if (!wait_for_hold(web)) {
      web.release_responses();
      return false;
    }
    kill(child_, sig);
    web.release_responses();  // a stopping crawl's transfers end (a killed one's are gone)
    const int exit_status = wait_child();
    if (status != nullptr) *status = exit_status;
    return true;
  }

  // Waits until that hold has begun, or for the child to exit first. The wait is on the server's
  // request events; it wakes every 100 ms only to notice a child that finished its crawl.
  bool wait_for_hold(const TestWeb& web) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (web.wait_for_hold(std::chrono::milliseconds(100))) return true;
      if (child_exited()) return false;
    }
    ADD_FAILURE() << "the crawl made no progress for 30 s";
    return false;
  }

  // The crawler's transfers in flight at a kill, as its journal shows them: dispatched by the
  // killed run (whose journals start at `first_generation`) and not completed. (The server's log
  // cannot tell: a request sent just before the kill may be read by the server much later.)
  uint64_t in_flight_at_kill(uint64_t first_generation, std::map<std::string, uint64_t>& by_url) const {
    JournalReplay run = replay_journals(journals_since(checkpoint_dir(), first_generation), {});
    for (const std::string& url : run.outstanding) ++by_url[url];
    return run.outstanding.size();
  }

  // `bloomcrawl inspect` of the checkpoint: its stdout and, unless `stderr_to` names a file, its stderr.
  int inspect(std::string* out, const fs::path& stderr_to = {}) {
    const std::string cmd = std::string(BLOOMCRAWL_BIN) + " inspect " + checkpoint_dir().string() +
                            (stderr_to.empty() ? " 2>&1" : " 2>" + stderr_to.string());
    FILE* p = popen(cmd.c_str(), "r");
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out->append(buf, n);
    return WEXITSTATUS(pclose(p));
  }

  // After a kill -9: `status` says the crawl stopped without a final status, and `inspect` counts
  // the journal after the last generation. Returns inspect's "resume".
  nlohmann::json inspect_after_kill() {
    const std::string status_cmd = std::string(BLOOMCRAWL_BIN) + " status --json " + out_dir().string();
    FILE* p = popen(status_cmd.c_str(), "r");
    std::string text;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
    EXPECT_EQ(WEXITSTATUS(pclose(p)), 0) << text;
    const nlohmann::json status = nlohmann::json::parse(text, nullptr, false);
    EXPECT_EQ(status["state"], "stopped") << text;
    EXPECT_EQ(status["written_state"], "running") << text;
    EXPECT_EQ(status["clean_exit"], false) << text;
    EXPECT_EQ(status["alive"], false) << text;

    std::string out;
    EXPECT_EQ(inspect(&out, dir_ / "inspect.err"), 0) << out;
    const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
    const nlohmann::json& resume = j["resume"];
    EXPECT_GE(resume["queued"].get<uint64_t>(), j["queued"].get<uint64_t>()) << out;
    std::ifstream err(dir_ / "inspect.err");
    std::stringstream summary;
    summary << err.rdbuf();
    EXPECT_NE(summary.str().find("a resume continues from " + resume["pages_done"].dump() + " pages done, " +
                                 resume["queued"].dump() + " queued"),
              std::string::npos)
        << summary.str();
    EXPECT_NE(summary.str().find("bits per key of capacity"), std::string::npos) << summary.str();
    return resume;
  }

  fs::path dir_;
  pid_t child_ = -1;
  int exit_status_ = 0;
  int runs_ = 0;
};

std::set<std::string> page_urls(const TestWeb& web) {
  std::set<std::string> urls;
  for (const testweb::LoggedRequest& r : web.requests()) {
    if (!r.robots_txt) urls.insert(r.canonical_url);
  }
  return urls;
}

TestWebOptions slow_resume_web() {
  TestWebOptions o;
  o.trap = false;
  o.pages_per_host = 40;
  o.response_delay = std::chrono::milliseconds(3);
  return o;
}

TEST_F(ResumeTest, KilledAtRandomMomentsFetchesTheGroundTruthOnce) {
  TestWeb web(slow_resume_web());
  web.start();
  write_config(web);
  const std::vector<std::string> truth_list = web.ground_truth(web.site_depth());
  const std::set<std::string> truth(truth_list.begin(), truth_list.end());

  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("kill points seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint64_t> step(5, truth.size() / 5);
  uint64_t in_flight_at_kills = 0;
  std::map<std::string, uint64_t> in_flight_by_url;
  std::vector<size_t> run_starts;
  int kills = 0;
  uint64_t target = 0;
  nlohmann::json after_first_kill;  // inspect's "resume" then
  for (int round = 0; round < 4; ++round) {
    run_starts.push_back(web.requests().size());
    const uint64_t first_generation = next_generation(checkpoint_dir());
    start(round == 0 ? std::vector<std::string>{} : std::vector<std::string>{"--resume"});
    target = web.summary().page_requests + step(rng);
    if (!signal_in_flight(web, target, SIGKILL)) break;  // done before the kill point
    in_flight_at_kills += in_flight_at_kill(first_generation, in_flight_by_url);
    if (++kills == 1) after_first_kill = inspect_after_kill();
  }
  if (child_ > 0) {
    EXPECT_EQ(WEXITSTATUS(wait_child()), 0) << last_log();
  }
  run_starts.push_back(web.requests().size());
  ASSERT_EQ(run({"--resume"}), 0) << last_log();  // a finished crawl resumes to "done" at once
  EXPECT_GE(kills, 2) << "the crawl finished before most kill points: slow the web down";
  if (kills >= 1) {
    // inspect said what the resume after the first kill (run 1) continued from.
    std::smatch m;
    const std::string log = run_log(1);
    ASSERT_TRUE(
        std::regex_search(log, m, std::regex(R"(resumed from .* generation \d+: (\d+) pages done, (\d+) queued)")))
        << log;
    EXPECT_EQ(after_first_kill["pages_done"].get<uint64_t>(), std::stoull(m[1])) << after_first_kill;
    EXPECT_EQ(after_first_kill["queued"].get<uint64_t>(), std::stoull(m[2])) << after_first_kill;
  }

  const std::set<std::string> fetched = page_urls(web);
  std::vector<std::string> missing;
  std::vector<std::string> extra;
  std::set_difference(truth.begin(), truth.end(), fetched.begin(), fetched.end(), std::back_inserter(missing));
  std::set_difference(fetched.begin(), fetched.end(), truth.begin(), truth.end(), std::back_inserter(extra));
  EXPECT_TRUE(missing.empty()) << "never fetched: " << ::testing::PrintToString(missing);
  EXPECT_TRUE(extra.empty()) << "not in the ground truth: " << ::testing::PrintToString(extra);
  // No silent loss across the kills: every page fetched has its record.
  std::set<std::string> recorded;
  std::ifstream pages(out_dir() / "pages.jsonl");
  for (std::string line; std::getline(pages, line);) {
    const nlohmann::json record = nlohmann::json::parse(line);
    if (record["outcome"] == "ok") recorded.insert(record["url"].get<std::string>());
  }
  std::vector<std::string> unrecorded;
  std::set_difference(truth.begin(), truth.end(), recorded.begin(), recorded.end(), std::back_inserter(unrecorded));
  EXPECT_TRUE(unrecorded.empty()) << "fetched without a record: " << ::testing::PrintToString(unrecorded);

  const testweb::FetchLogSummary s = web.summary();
  RecordProperty("kills", kills);
  RecordProperty("in_flight_at_kills", int(in_flight_at_kills));
  RecordProperty("server_duplicate_fetches", int(s.duplicate_fetches));
  EXPECT_LE(s.duplicate_fetches, in_flight_at_kills);
  for (const testweb::DuplicateUrl& d : s.duplicates) {
    std::string runs;
    const std::vector<testweb::LoggedRequest> requests = web.requests();
    for (size_t i = 0; i < requests.size(); ++i) {
      if (requests[i].canonical_url != d.url) continue;
      size_t run = std::upper_bound(run_starts.begin(), run_starts.end(), i) - run_starts.begin();
      runs += " run" + std::to_string(run) + "(status " + std::to_string(requests[i].status) + ")";
    }
    EXPECT_LE(d.fetches - 1, in_flight_by_url[d.url])
        << d.url << ": fetched again after it completed; requests logged in" << runs;
  }
  EXPECT_EQ(s.robots_violations, 0u);
  const nlohmann::json r = report();
  EXPECT_EQ(r["crawl"]["stopped_by"], "done");
  EXPECT_EQ(r["fetches"]["pages_fetched"].get<uint64_t>(), s.distinct_urls) << "counts across resumes";
  EXPECT_GE(r["duplicates_avoided"]["pages_refetched_after_crash"].get<uint64_t>(), s.duplicate_fetches);
  EXPECT_EQ(r["checkpoint"]["resumes"].get<uint64_t>(), uint64_t(kills));

  std::string inspected;
  EXPECT_EQ(inspect(&inspected), 0) << inspected;
  EXPECT_NE(inspected.find("\"kind\": \"crawl\""), std::string::npos) << inspected;
}

// WARC on (docs/warc.md, "Durability"): a page's records reach the file before the journal marks
// it done, so after kills -9 and resumes every page recorded in pages.jsonl has its response
// record, once, unless it was in flight at a kill and fetched again (then once per fetch, plus
// one if the kill fell between its records and its line). warcio reads every record, from
// completed files and from the .open files the kills left, and every digest verifies.
TEST_F(ResumeTest, KilledWithWarcOnEveryRecordedPageHasItsResponseRecord) {
  TestWeb web(slow_resume_web());
  web.start();
  write_config(web, {{"output", {{"warc", {{"enabled", true}}}}}});
  std::map<std::string, uint64_t> in_flight_by_url;
  int kills = 0;
  for (uint64_t target : {20, 60}) {
    const uint64_t first_generation = next_generation(checkpoint_dir());
    start(kills == 0 ? std::vector<std::string>{} : std::vector<std::string>{"--resume"});
    if (!signal_in_flight(web, target, SIGKILL)) break;
    in_flight_at_kill(first_generation, in_flight_by_url);
    ++kills;
  }
  if (child_ > 0) wait_child();
  ASSERT_EQ(run({"--resume"}), 0) << last_log();
  ASSERT_EQ(kills, 2) << "the crawl finished before the kill points: slow the web down";

  std::map<std::string, uint64_t> lines;  // pages.jsonl records of archived responses, by URL
  std::ifstream pages(out_dir() / "pages.jsonl");
  for (std::string line; std::getline(pages, line);) {
    const nlohmann::json r = nlohmann::json::parse(line);
    if (r["outcome"] == "ok" && r["content_type"].get<std::string>().starts_with("text/html")) {
      ++lines[r["url"].get<std::string>()];
      EXPECT_TRUE(r.contains("payload_digest")) << line;
    }
  }
  ASSERT_FALSE(lines.empty());
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(out_dir() / "warc")) {
    if (e.path().string().find(".warc.gz") != std::string::npos) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::map<std::string, uint64_t> responses;
  for (const nlohmann::json& record : testing::read_with_warcio(files)) {
    if (record["type"] == "warcinfo") continue;
    EXPECT_EQ(record["block_digest"], record["block_digest_computed"]) << record.dump();
    if (record["type"] != "response") continue;
    EXPECT_EQ(record["payload_digest"], record["payload_digest_computed"]) << record.dump();
    ++responses[record["target"].get<std::string>()];
  }
  for (const auto& [url, count] : lines) {
    const uint64_t archived = responses.contains(url) ? responses.at(url) : 0;
    const uint64_t refetches = in_flight_by_url.contains(url) ? in_flight_by_url.at(url) : 0;
    EXPECT_GE(archived, count) << url << ": recorded in pages.jsonl without its response record";
    EXPECT_LE(archived, count + refetches) << url << ": archived more often than it was fetched";
  }
}

TEST_F(ResumeTest, SigtermTakesAFinalCheckpointAndResumeFinishes) {
  TestWeb web(slow_resume_web());
  web.start();
  write_config(web);
  start({});
  int status = 0;
  ASSERT_TRUE(signal_in_flight(web, 30, SIGTERM, &status));
  ASSERT_TRUE(WIFEXITED(status)) << last_log();
  EXPECT_EQ(WEXITSTATUS(status), 0) << last_log();
  const nlohmann::json stopped = report();
  EXPECT_EQ(stopped["crawl"]["stopped_by"], "signal");
  const uint64_t requeued = stopped["fetches"]["requeued_at_stop"].get<uint64_t>();
  const uint64_t pages_at_stop = stopped["fetches"]["pages_fetched"].get<uint64_t>();

  ASSERT_EQ(run({"--resume", checkpoint_dir().string()}), 0) << last_log();
  const nlohmann::json done = report();
  EXPECT_EQ(done["crawl"]["stopped_by"], "done");
  EXPECT_GT(done["fetches"]["pages_fetched"].get<uint64_t>(), pages_at_stop);
  const testweb::FetchLogSummary s = web.summary();
  EXPECT_LE(s.duplicate_fetches, requeued) << "only transfers cancelled at the stop may be repeated";
  EXPECT_EQ(done["fetches"]["pages_fetched"].get<uint64_t>(), s.distinct_urls);
  const std::vector<std::string> truth = web.ground_truth(web.site_depth());
  EXPECT_EQ(page_urls(web), std::set<std::string>(truth.begin(), truth.end()));
}

TEST_F(ResumeTest, ChangedCanonicalizationIsRefusedNamingTheField) {
  TestWeb web(slow_resume_web());
  web.start();
  write_config(web);
  start({});
  ASSERT_TRUE(signal_in_flight(web, 10, SIGTERM));
  write_config(web, {{"canonicalization", {{"sort_query", true}}}});
  EXPECT_NE(run({"--resume"}), 0);
  const std::string log = last_log();
  EXPECT_NE(log.find("/canonicalization/sort_query"), std::string::npos) << log;
  EXPECT_NE(log.find("cannot resume"), std::string::npos) << log;
}

TEST_F(ResumeTest, CorruptedNewestGenerationFallsBackToThePreviousOne) {
  TestWeb web(slow_resume_web());
  web.start();
  write_config(web);
  start({});
  ASSERT_TRUE(signal_in_flight(web, 60, SIGTERM));  // past a few page-count generations
  std::string current;
  std::getline(std::ifstream(checkpoint_dir() / "CURRENT"), current);
  {
    std::fstream f(checkpoint_dir() / current, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('#');  // inside the JSON body: only the checksum notices
  }
  ASSERT_EQ(run({"--resume"}), 0) << last_log();
  const std::string log = last_log();
  EXPECT_NE(log.find(current), std::string::npos) << log;
  EXPECT_NE(log.find("checksum mismatch"), std::string::npos) << log;
  EXPECT_NE(log.find("older generation"), std::string::npos) << log;
  EXPECT_EQ(report()["crawl"]["stopped_by"], "done");
  const std::vector<std::string> truth = web.ground_truth(web.site_depth());
  EXPECT_EQ(page_urls(web), std::set<std::string>(truth.begin(), truth.end()));
}

// With a loose filter (30% target FPR) real false positives happen: the exact audit set counts
// them, across a stop and a resume. Each one is an in-scope URL never fetched; a missed page is
// one of them or reachable only through them.
TEST_F(ResumeTest, AuditCountsRealFalsePositivesAcrossResumes) {
  TestWebOptions o = slow_resume_web();
  o.pages_per_host = 300;  // enough URLs to fill the first layer, where false positives happen
  o.response_delay = std::chrono::milliseconds(0);
  TestWeb web(o);
  web.start();
  // Exact mode off: it would rescue every false positive from the URL records (crawl_records_test).
  write_config(web, {{"seen_filter", {{"target_fpr", 0.3}, {"exact", false}}}, {"audit", true}});
  start({});
  ASSERT_TRUE(signal_in_flight(web, 20, SIGTERM));
  const uint64_t before = report()["audit"]["false_positives"].get<uint64_t>();
  ASSERT_EQ(run({"--resume"}), 0) << last_log();
  const nlohmann::json r = report();
  ASSERT_TRUE(r.contains("audit")) << r.dump(2);
  const uint64_t false_positives = r["audit"]["false_positives"].get<uint64_t>();
  EXPECT_GE(false_positives, before);
  EXPECT_GT(false_positives, 0u) << r["audit"].dump() << r["seen_filter"].dump();
  EXPECT_GT(r["audit"]["filter_estimated_false_positives"].get<double>(), 0.0);
  EXPECT_GE(r["audit"]["exact_urls"].get<uint64_t>(), r["seen_filter"]["keys"].get<uint64_t>());

  const std::vector<std::string> truth_list = web.ground_truth(web.site_depth());
  const std::set<std::string> truth(truth_list.begin(), truth_list.end());
  const std::set<std::string> fetched = page_urls(web);
  std::vector<std::string> missing;
  std::set_difference(truth.begin(), truth.end(), fetched.begin(), fetched.end(), std::back_inserter(missing));
  EXPECT_FALSE(missing.empty()) << "30% FPR and no page missed: is the filter's target ignored?";
  EXPECT_TRUE(std::includes(truth.begin(), truth.end(), fetched.begin(), fetched.end()));
  std::string inspected;
  EXPECT_EQ(inspect(&inspected), 0) << inspected;
  EXPECT_NE(inspected.find("audit-0"), std::string::npos) << "the audit set is checkpointed: " << inspected;
}

TEST_F(ResumeTest, FreshCrawlRefusesACheckpointDirectoryHoldingACrawl) {
  TestWeb web(slow_resume_web());
  web.start();
  write_config(web);
  fs::create_directories(checkpoint_dir());
  std::ofstream(checkpoint_dir() / "CURRENT") << "CRAWL-000001\n";
  EXPECT_NE(run({}), 0);
  EXPECT_NE(last_log().find("--resume"), std::string::npos) << last_log();
}

// What a crawl killed before its first generation leaves (it fetched nothing) is no crawl to
// resume, and must not block a new one.
TEST_F(ResumeTest, FreshCrawlTakesOverWhatACrawlKilledBeforeItsFirstGenerationLeft) {
  TestWeb web(slow_resume_web());
  web.start();
  write_config(web);
  fs::create_directories(checkpoint_dir() / "frontier-live");
  std::ofstream(checkpoint_dir() / "journal-000001.log") << "torn";
  std::ofstream(checkpoint_dir() / "frontier-live" / "000004.log") << "torn";
  EXPECT_NE(run({"--resume"}), 0);
  EXPECT_NE(last_log().find("no crawl checkpoint"), std::string::npos) << last_log();
  ASSERT_EQ(run({}), 0) << last_log();
  EXPECT_EQ(report()["crawl"]["stopped_by"], "done");
  EXPECT_EQ(web.summary().duplicate_fetches, 0u);
  EXPECT_EQ(run({"--resume"}), 0) << last_log();
}

}  // namespace
}  // namespace bloomcrawl
