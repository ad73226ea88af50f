// config/README.md is the operator's manual, so it is held to the code: every field of the config
// has its row and every row is a field, each row's default is CrawlConfig{}'s, and each integer
// range the type column states is the one the loader enforces (the bounds pass, one past them is
// refused). A field added, renamed or changed without its row fails here. The behaviour each row
// describes is tested where it happens; those tests cite the row ("config/README.md scope...").
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"

namespace bloomcrawl {
namespace {

struct ReadmeRow {
  std::string path;  // JSON pointer: "/politeness/backoff/park_s"
  std::string type;
  std::string default_cell;
};

// The rows of every `| field | type | default | meaning |` table, each under the JSON path its
// heading names ("## seeds" -> /seeds, "### politeness.backoff" -> /politeness/backoff; "## audit
// and logging" holds dotted names from the top).
std::vector<ReadmeRow> readme_rows() {
  std::ifstream in(std::filesystem::path(BLOOMCRAWL_SOURCE_DIR) / "config" / "README.md");
  std::vector<ReadmeRow> rows;
  std::string section;
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("## ") || line.starts_with("### ")) {
      const std::string title = line.substr(line.find(' ') + 1);
      section = title.find(' ') == std::string::npos ? "/" + std::regex_replace(title, std::regex("\\."), "/") : "";
      in_table = false;
      continue;
    }
    if (line.starts_with("| field | type | default |")) {
      in_table = true;
      continue;
    }
    if (!in_table || !line.starts_with("| ") || line.starts_with("|---")) {
      in_table = in_table && line.starts_with("|");
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream s(line.substr(2));
    for (std::string cell; std::getline(s, cell, '|');) cells.push_back(cell.substr(0, cell.find_last_not_of(' ') + 1));
    if (cells.size() < 4) continue;
    for (std::string& c : cells) c.erase(0, c.find_first_not_of(' '));
    rows.push_back({section + "/" + std::regex_replace(cells[0], std::regex("\\."), "/"), cells[1], cells[2]});
  }
  return rows;
}

// Every leaf of the effective config, and every object below a section (backoff, warc).
void collect_paths(const nlohmann::json& j, const std::string& at, std::set<std::string>& out) {
  for (const auto& [key, value] : j.items()) {
    const std::string path = at + "/" + key;
    if (value.is_object()) {
      if (!at.empty()) out.insert(path);
      collect_paths(value, path, out);
    } else {
      out.insert(path);
    }
  }
}

TEST(ConfigReadme, EveryFieldHasARowAndEveryRowIsAField) {
  std::set<std::string> fields;
  collect_paths(to_json(CrawlConfig{}), "", fields);
  std::set<std::string> documented;
  for (const ReadmeRow& row : readme_rows()) documented.insert(row.path);
  for (const std::string& f : fields) EXPECT_TRUE(documented.contains(f)) << f << " has no row in config/README.md";
  for (const std::string& d : documented)
    EXPECT_TRUE(fields.contains(d)) << "config/README.md row " << d << " is no field";
}

// The default cell's values in backticks, read as JSON: `5`, `true`, `"info"`, `[]`, or a list
// written as `a`, `b`, ... (strip_param_names).
std::optional<nlohmann::json> documented_default(const std::string& cell) {
  std::vector<std::string> ticked;
  const std::regex tick("`([^`]*)`");
  for (auto it = std::sregex_iterator(cell.begin(), cell.end(), tick); it != std::sregex_iterator(); ++it) {
    ticked.push_back((*it)[1]);
  }
  if (ticked.empty()) return std::nullopt;  // an object row: its own table follows
  if (ticked.size() > 1) return nlohmann::json(ticked);
  return nlohmann::json::parse(ticked[0], nullptr, false).is_discarded() ? nlohmann::json(ticked[0])
                                                                         : nlohmann::json::parse(ticked[0]);
}

TEST(ConfigReadme, EveryDefaultIsTheCodes) {
  const nlohmann::json defaults = to_json(CrawlConfig{});
  int checked = 0;
  for (const ReadmeRow& row : readme_rows()) {
    const std::optional<nlohmann::json> documented = documented_default(row.default_cell);
    if (!documented || !defaults.contains(nlohmann::json::json_pointer(row.path))) continue;
    const nlohmann::json& actual = defaults.at(nlohmann::json::json_pointer(row.path));
    if (actual.is_number() && documented->is_number()) {
      EXPECT_DOUBLE_EQ(actual.get<double>(), documented->get<double>()) << row.path;
    } else {
      EXPECT_EQ(actual, *documented) << row.path;
    }
    ++checked;
  }
  EXPECT_GT(checked, 80);
}

// `value` at `path` in an otherwise minimal config: accepted?
bool accepted(const std::string& path, long long value) {
  nlohmann::json j = {{"seeds", {{"urls", {"https://example.com/"}}}}};
  j[nlohmann::json::json_pointer(path)] = value;
  // Fields whose range depends on another: keep that other one out of the way.
  if (path == "/cluster/node") j["cluster"]["nodes"] = 1024;
  if (path.starts_with("/cluster/")) {
    j["cluster"]["redis"] = "redis://127.0.0.1:6379";
    j["cluster"]["name"] = "c";
  }
  if (path == "/fetch/connect_timeout_ms") j["fetch"]["total_timeout_ms"] = 2147483647;
  // min_interval_s <= default_interval_s <= max_interval_s: the other two in range and out of the way.
  if (path.starts_with("/recrawl/") && path.ends_with("_interval_s")) {
    constexpr long long kTenYears = 315360000;
    const long long in_range = std::clamp(value, 1LL, kTenYears);
    j["recrawl"] = {{"min_interval_s", path == "/recrawl/max_interval_s" ? in_range : 1},
                    {"default_interval_s", path == "/recrawl/default_interval_s" ? value : in_range},
                    {"max_interval_s", path == "/recrawl/min_interval_s" ? in_range : kTenYears}};
    j[nlohmann::json::json_pointer(path)] = value;
  }
  if (path == "/fetch/total_timeout_ms") j["fetch"]["connect_timeout_ms"] = 1;
  try {
    parse_config(j.dump(), "readme.json");
    return true;
  } catch (const ConfigError&) {
    return false;
  }
}

TEST(ConfigReadme, EveryIntegerRangeIsTheLoaders) {
  const std::regex range("integer (-?[0-9]+)\\.\\.([0-9]+)");
  const std::regex at_least("integer ≥ (-?[0-9]+)");
  int checked = 0;
  for (const ReadmeRow& row : readme_rows()) {
    std::smatch m;
    if (std::regex_search(row.type, m, range)) {
      const long long lo = std::stoll(m[1]);
      const long long hi = std::stoll(m[2]);
      EXPECT_TRUE(accepted(row.path, lo)) << row.path << " " << lo;
      EXPECT_TRUE(accepted(row.path, hi)) << row.path << " " << hi;
      EXPECT_FALSE(accepted(row.path, lo - 1)) << row.path << " " << lo - 1;
      EXPECT_FALSE(accepted(row.path, hi + 1)) << row.path << " " << hi + 1;
      ++checked;
    } else if (std::regex_search(row.type, m, at_least)) {
      const long long lo = std::stoll(m[1]);
      EXPECT_TRUE(accepted(row.path, lo)) << row.path << " " << lo;
      EXPECT_FALSE(accepted(row.path, lo - 1)) << row.path << " " << lo - 1;
      ++checked;
    }
  }
  EXPECT_GT(checked, 40);
}

}  // namespace
}  // namespace bloomcrawl
