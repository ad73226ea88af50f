// pages.jsonl read back for crawl tests: every record, grouped by URL in the order written, so a
// test can check that each URL ended as exactly one record and with which outcome.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bloomcrawl::testing {

inline std::map<std::string, std::vector<nlohmann::json>> read_page_records(const std::filesystem::path& out_dir) {
  std::map<std::string, std::vector<nlohmann::json>> records;
  std::ifstream in(out_dir / "pages.jsonl");
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    records[j["url"].get<std::string>()].push_back(std::move(j));
  }
  return records;
}

}  // namespace bloomcrawl::testing
