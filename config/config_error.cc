#include "config/config_error.h"

#include <utility>

namespace bloomcrawl {
namespace {

std::string format_message(const std::string& file, const std::string& json_path, const std::string& problem, int line,
                           int column) {
  // Appended piecewise: gcc 12 misreports `":" + std::to_string(n)` under -Wrestrict.
  std::string message = file;
  for (int number : {line, column}) {
    if (number <= 0) break;
    message += ':';
    message += std::to_string(number);
  }
  message += ": ";
  if (!json_path.empty()) message.append(json_path).append(": ");
  return message.append(problem);
}

}  // namespace

ConfigError::ConfigError(std::string file, std::string json_path, std::string problem, int line, int column)
    : std::runtime_error(format_message(file, json_path, problem, line, column)),
      file_(std::move(file)),
      json_path_(std::move(json_path)),
      problem_(std::move(problem)),
      line_(line),
      column_(column) {}

}  // namespace bloomcrawl
