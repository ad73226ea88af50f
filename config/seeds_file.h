// Reads a seeds file: one URL per line; blank lines and lines starting with '#' are skipped, and
// " #..." after a URL is a comment. Each URL is checked like seeds.urls; a bad line is a
// ConfigError naming the file and line number. Internal to config/.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace bloomcrawl::config_detail {

std::vector<std::string> read_seeds_file(const std::filesystem::path& file);

// The whole of `file`, or a ConfigError naming it and why it cannot be read (`what` says what
// kind of file, for the message).
std::string read_text_file(const std::filesystem::path& file, const char* what);

}  // namespace bloomcrawl::config_detail
