#include "config/seeds_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "config/config_error.h"
#include "config/field_rules.h"

namespace bloomcrawl::config_detail {
namespace {

std::string_view trim(std::string_view text) {
  size_t start = text.find_first_not_of(" \t\r\f\v");
  if (start == std::string_view::npos) return {};
  size_t end = text.find_last_not_of(" \t\r\f\v");
  return text.substr(start, end - start + 1);
}

}  // namespace

std::string read_text_file(const std::filesystem::path& file, const char* what) {
  std::error_code error;
  if (std::filesystem::is_directory(file, error)) {
    throw ConfigError(file.string(), "", std::string("cannot read ") + what + ": is a directory");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(file.string(), "", std::string("cannot read ") + what + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(file.string(), "", std::string("error reading ") + what + ": " + std::strerror(errno));
  return text.str();
}

std::vector<std::string> read_seeds_file(const std::filesystem::path& file) {
  std::string text = read_text_file(file, "seeds file");
  std::vector<std::string> urls;
  std::istringstream lines(text);
  std::string raw;
  int line_number = 0;
  while (std::getline(lines, raw)) {
    ++line_number;
    std::string_view line = raw;
    if (line_number == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);  // UTF-8 BOM
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    size_t comment = line.find_first_of(" \t");
    if (comment != std::string_view::npos && trim(line.substr(comment)).starts_with('#')) {
      line = trim(line.substr(0, comment));
    }
    std::string url(line);
    if (std::optional<std::string> problem = check_seed_url(url)) {
      throw ConfigError(file.string(), "", *problem, line_number);
    }
    urls.push_back(std::move(url));
  }
  return urls;
}

}  // namespace bloomcrawl::config_detail
