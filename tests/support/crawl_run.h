// run_crawl_in_temp_dir(): a whole in-process crawl of `config` (its settings as the CLI makes
// them), the output in a temporary directory removed afterwards; returns the report and pages.jsonl.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/page_records.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl::testing {

// The implicit noexcept move reaches nlohmann::json's noexcept move constructor, whose body clang-tidy reads
// as throwing (json_value's constructor holds a throw that no value type reaches).
struct CrawlRun {  // NOLINT(bugprone-exception-escape): json's noexcept move cannot throw, see above
  nlohmann::json report;
  std::map<std::string, std::vector<nlohmann::json>> records;  // pages.jsonl by URL, in order
};

inline CrawlRun run_crawl_in_temp_dir(CrawlConfig config) {
  const TempDir out;
  config.output.directory = out.path().string();
  CrawlRun run;
  run.report = Crawler(settings_from_config(config)).run();
  run.records = read_page_records(out.path());
  return run;
}

}  // namespace bloomcrawl::testing
