// `bloomcrawl lookup` and `bloomcrawl export` end to end: the built binary (BLOOMCRAWL_BIN) on
// records stores written here with RecordStore, in a checkpoint directory (generation G's
// records-G/, the config in CRAWL-G) and in an output directory (records/, the config in
// report.json), the latter while a writer holds it open as a running crawl does.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "records/record_store.h"
#include "tests/support/shell_run.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

// The crawl's config as its manifest or report holds it: sorted query parameters, so that a URL
// found only as the crawl canonicalized it shows that lookup canonicalizes as the crawl did.
nlohmann::json sorting_config() {
  CrawlConfig config;
  config.canonicalization.sort_query = true;
  return to_json(config);
}

UrlRecord cli_record(const std::string& url, UrlOutcome outcome) {
  UrlRecord r;
  r.url = url;
  r.outcome = outcome;
  r.depth = 2;
  r.first_admitted_ms = 1764930000000;
  if (outcome == UrlOutcome::kFetched) r.http_status = 200;
  if (outcome == UrlOutcome::kDropped) r.reason = "robots";
  return r;
}

void write_records(RecordStore& store) {
  store.put(cli_record("https://a.example/page?a=2&b=1", UrlOutcome::kFetched));
  store.put(cli_record("https://a.example/other", UrlOutcome::kQueued));
  store.put(cli_record("https://b.example/", UrlOutcome::kDropped));
}

std::vector<nlohmann::json> json_lines(const std::string& out) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("bloomcrawl", 0) == 0) continue;  // the summary on stderr
    lines.push_back(nlohmann::json::parse(line));
  }
  return lines;
}

testing::ShellRun bloomcrawl(const std::string& args) {
  return testing::run_shell(std::string(BLOOMCRAWL_BIN) + " " + args);
}

void expect_lookup(const fs::path& dir) {
  const testing::ShellRun run = bloomcrawl("lookup " + dir.string() +
                                           " 'HTTPS://A.example/page?b=1&a=2' https://b.example https://c.example/ "
                                           "'http://[bad'");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const std::vector<nlohmann::json> lines = json_lines(run.out);
  ASSERT_EQ(lines.size(), 4u) << run.out;
  EXPECT_EQ(lines[0]["url"], "https://a.example/page?a=2&b=1");
  EXPECT_EQ(lines[0]["admitted"], true);
  EXPECT_EQ(lines[0]["outcome"], "fetched");
  EXPECT_EQ(lines[0]["http_status"], 200);
  EXPECT_EQ(lines[1]["url"], "https://b.example/");
  EXPECT_EQ(lines[1]["outcome"], "dropped");
  EXPECT_EQ(lines[1]["reason"], "robots");
  EXPECT_EQ(lines[2], (nlohmann::json{{"url", "https://c.example/"}, {"admitted", false}}));
  EXPECT_EQ(lines[3]["admitted"], false);
  EXPECT_NE(lines[3]["error"].get<std::string>().find("invalid"), std::string::npos) << lines[3];
}

void expect_export(const fs::path& dir) {
  const testing::ShellRun run = bloomcrawl("export " + dir.string());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  std::set<std::string> urls;
  for (const nlohmann::json& line : json_lines(run.out)) urls.insert(line["url"].get<std::string>());
  EXPECT_EQ(urls,
            (std::set<std::string>{"https://a.example/page?a=2&b=1", "https://a.example/other", "https://b.example/"}));
  EXPECT_NE(run.out.find("bloomcrawl export: 3 records"), std::string::npos) << run.out;
}

TEST(RecordsCliTest, ACheckpointDirectoryIsReadAsOfItsNewestGeneration) {
  testing::TempDir dir;
  {
    RecordStore live(dir.path() / kLiveRecordStoreDirectory, 1 << 20);
    write_records(live);
    live.checkpoint_to(dir.path() / record_store_directory_name(3));
    live.put(cli_record("https://after.example/", UrlOutcome::kQueued));  // after the generation
    live.persist();
  }
  CrawlManifest manifest;
  manifest.generation = 3;
  manifest.config = sorting_config();
  manifest.stats = nlohmann::json::object();
  manifest.counters = nlohmann::json::object();
  manifest.filter_manifest = "MANIFEST-000003";
  manifest.frontier_directory = "frontier-000003";
  std::ofstream(dir.path() / "CRAWL-000003", std::ios::binary) << encode_crawl_manifest(manifest);
  std::ofstream(dir.path() / "CURRENT") << "CRAWL-000003\n";
  ASSERT_TRUE(is_crawl_checkpoint(dir.path()));
  expect_lookup(dir.path());
  expect_export(dir.path());
  EXPECT_EQ(json_lines(bloomcrawl("lookup " + dir.path().string() + " https://after.example/").out)[0]["admitted"],
            false);

  // A generation without records: named.
  fs::remove_all(dir.path() / record_store_directory_name(3));
  const testing::ShellRun run = bloomcrawl("export " + dir.path().string());
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.out.find(dir.path().string() + ": no records store: generation 3 has no records-000003/"),
            std::string::npos)
      << run.out;
}

TEST(RecordsCliTest, AnOutputDirectoryIsReadWhileItsCrawlWritesIt) {
  testing::TempDir dir;
  std::ofstream(dir.path() / "report.json") << nlohmann::json{{"config", sorting_config()}}.dump();
  RecordStore running(dir.path() / kOutputRecordStoreDirectory, 1 << 20);  // holds the store's lock
  write_records(running);
  running.persist();
  expect_lookup(dir.path());
  expect_export(dir.path());
  running.put(cli_record("https://later.example/", UrlOutcome::kQueued));
  running.persist();
  EXPECT_EQ(json_lines(bloomcrawl("lookup " + dir.path().string() + " https://later.example/").out)[0]["outcome"],
            "queued");
}

TEST(RecordsCliTest, ADirectoryWithoutRecordsIsAnErrorNamingIt) {
  testing::TempDir dir;
  for (const std::string command : {"lookup", "export"}) {
    const std::string args = command == "lookup" ? " https://a.example/" : "";
    const testing::ShellRun run = bloomcrawl(command + " " + dir.path().string() + args);
    EXPECT_EQ(run.exit_code, 1) << run.out;
    EXPECT_NE(run.out.find(dir.path().string() + ": no records store"), std::string::npos) << run.out;
    const testing::ShellRun missing = bloomcrawl(command + " " + (dir.path() / "none").string() + args);
    EXPECT_EQ(missing.exit_code, 1) << missing.out;
    EXPECT_NE(missing.out.find("none: not a directory"), std::string::npos) << missing.out;
  }
}

}  // namespace
}  // namespace bloomcrawl
