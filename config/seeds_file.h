// Reading the files a config names. A seeds file has one URL per line; blank lines and lines
// starting with '#' are skipped, and " #..." after a URL is a comment. Each URL is checked like
// seeds.urls; a bad line is a ConfigError naming the file and line number. Both readers are
// bounded, so a mistaken path such as /dev/zero fails with a message instead of eating memory.
// Internal to config/.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace bloomcrawl::config_detail {

std::vector<std::string> read_seeds_file(const std::filesystem::path& file);

// The whole of `file`, or a ConfigError naming it and why it cannot be read (`what` says what
// kind of file, for the message), including when it is longer than `max_bytes`.
std::string read_text_file(const std::filesystem::path& file, const char* what, std::size_t max_bytes);

}  // namespace bloomcrawl::config_detail
