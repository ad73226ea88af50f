// The crawl's URL records (docs/records.md) checked against its pages.jsonl, for crawl tests:
// every page record has its URL record with the same outcome, and no URL record is left queued.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/pipeline/crawl_records.h"
#include "records/record_store.h"
#include "tests/support/page_records.h"

namespace bloomcrawl::testing {

inline std::map<std::string, UrlRecord> read_url_records(const std::filesystem::path& dir) {
  std::map<std::string, UrlRecord> out;
  RecordStore::open_read_only(dir)->scan_all([&](const UrlRecord& r) {
    out.emplace(r.url, r);
    return true;
  });
  return out;
}

// The records store a resume (or `lookup`) of the checkpoint directory reads: CURRENT's.
inline std::filesystem::path current_records(const std::filesystem::path& checkpoints) {
  const CrawlManifest m = read_crawl_manifest(checkpoints);
  EXPECT_FALSE(m.records_directory.empty()) << "generation " << m.generation << " has no records";
  return checkpoints / m.records_directory;
}

// Every URL of pages.jsonl has one record, whose outcome is its last line's, and every record has
// its page line: none is left queued.
inline void expect_records_match_pages(const std::filesystem::path& records_dir, const std::filesystem::path& out) {
  const std::map<std::string, UrlRecord> records = read_url_records(records_dir);
  const auto pages = read_page_records(out);
  ASSERT_FALSE(pages.empty());
  for (const auto& [url, lines] : pages) {
    const auto it = records.find(url);
    if (it == records.end()) {
      ADD_FAILURE() << url << " has a page record and no URL record";
      continue;
    }
    const std::string word = lines.back()["outcome"].get<std::string>();
    const UrlRecord& r = it->second;
    EXPECT_EQ(r.outcome, url_outcome_of(word)) << url << ": " << word;
    if (r.outcome == UrlOutcome::kFetched) {
      EXPECT_EQ(r.http_status, lines.back()["status"].get<int>()) << url << " in " << records_dir;
      EXPECT_GT(r.last_fetched_ms, 0) << url;
      EXPECT_GE(r.fetch_count, 1u) << url;
    } else {
      EXPECT_EQ(r.reason, word) << url;
    }
  }
  for (const auto& [url, r] : records) {
    EXPECT_NE(r.outcome, UrlOutcome::kQueued) << url << " is still queued";
    EXPECT_TRUE(pages.contains(url)) << url << " has a URL record and no page record";
  }
}

}  // namespace bloomcrawl::testing
