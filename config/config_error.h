// ConfigError: the one exception config loading throws. It names where the mistake is (file,
// optional line:column, JSON path such as /fetch/threads) and what is wrong, so the operator can
// fix it without guessing. what() is "FILE[:LINE[:COL]]: [/json/path: ]problem".
#pragma once

#include <stdexcept>
#include <string>

namespace bloomcrawl {

class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string file, std::string json_path, std::string problem, int line = 0, int column = 0);

  const std::string& file() const { return file_; }
  const std::string& json_path() const { return json_path_; }  // empty when not about a field
  const std::string& problem() const { return problem_; }
  int line() const { return line_; }      // 0 when unknown
  int column() const { return column_; }  // 0 when unknown

 private:
  std::string file_;
  std::string json_path_;
  std::string problem_;
  int line_;
  int column_;
};

}  // namespace bloomcrawl
