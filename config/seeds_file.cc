#include "config/seeds_file.h"

#include <cerrno>
#include <fstream>
#include <system_error>

#include "config/config_error.h"
#include "config/field_rules.h"

namespace bloomcrawl::config_detail {
namespace {

// Far longer than any URL worth crawling, short enough that a binary file fails fast.
constexpr std::size_t kMaxSeedLineBytes = std::size_t{64} * 1024;

std::string_view trim(std::string_view text) {
  size_t start = text.find_first_not_of(" \t\r\f\v");
  if (start == std::string_view::npos) return {};
  size_t end = text.find_last_not_of(" \t\r\f\v");
  return text.substr(start, end - start + 1);
}

std::ifstream open_for_reading(const std::filesystem::path& file, const char* what) {
  std::error_code error;
  if (std::filesystem::is_directory(file, error)) {
    throw ConfigError(file.string(), "", std::string("cannot read ") + what + ": is a directory");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw ConfigError(file.string(), "",
                      std::string("cannot read ") + what + ": " + std::generic_category().message(errno));
  return in;
}

// The URL on one seeds-file line, or "" for a blank or comment line.
std::string_view seed_on_line(std::string_view line, bool first_line) {
  if (first_line && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);  // UTF-8 BOM
  line = trim(line);
  if (line.empty() || line.front() == '#') return {};
  size_t gap = line.find_first_of(" \t");
  if (gap != std::string_view::npos && trim(line.substr(gap)).starts_with('#')) line = trim(line.substr(0, gap));
  return line;
}

}  // namespace

std::string read_text_file(const std::filesystem::path& file, const char* what, std::size_t max_bytes) {
  std::ifstream in = open_for_reading(file, what);
  std::string text(max_bytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad())
    throw ConfigError(file.string(), "",
                      std::string("error reading ") + what + ": " + std::generic_category().message(errno));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > max_bytes) {
    throw ConfigError(file.string(), "", std::string(what) + " is larger than " + std::to_string(max_bytes) + " bytes");
  }
  return text;
}

std::vector<std::string> read_seeds_file(const std::filesystem::path& file) {
  std::ifstream in = open_for_reading(file, "seeds file");
  std::vector<std::string> urls;
  std::string line(kMaxSeedLineBytes + 1, '\0');
  for (int line_number = 1;; ++line_number) {
    in.getline(line.data(), static_cast<std::streamsize>(line.size()));
    auto length = static_cast<size_t>(in.gcount());
    if (in.fail() && !in.eof() && !in.bad() && length == line.size() - 1) {
      throw ConfigError(file.string(), "", "line longer than " + std::to_string(kMaxSeedLineBytes) + " bytes",
                        line_number);
    }
    if (in.bad())
      throw ConfigError(file.string(), "",
                        std::string("error reading seeds file: ") + std::generic_category().message(errno));
    if (length == 0 && in.eof()) break;
    // gcount() includes the '\n' getline consumed but did not store.
    std::string_view text(line.data(), in.eof() ? length : length - 1);
    std::string url(seed_on_line(text, line_number == 1));
    if (!url.empty()) {
      if (std::optional<std::string> problem = check_seed_url(url)) {
        throw ConfigError(file.string(), "", *problem, line_number);
      }
      urls.push_back(std::move(url));
    }
    if (in.eof()) break;
  }
  return urls;
}

}  // namespace bloomcrawl::config_detail
