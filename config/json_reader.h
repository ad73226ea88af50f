// The schema's reader visitor: fills a CrawlConfig from a parsed JSON document, keeping the
// defaults of absent fields. Each value must have the field's JSON type and obey its rule; keys
// the schema does not define are errors with a "did you mean" suggestion. Internal to config/.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config_error.h"
#include "config/json_text.h"
#include "config/schema.h"

namespace bloomcrawl::config_detail {

// "string", "boolean", "number 2.5", ... for "expected X, got Y".
std::string describe_json_type(const nlohmann::json& value);

class JsonReader {
 public:
  JsonReader(const nlohmann::json& root, std::string source_name);

  void read(CrawlConfig& config);

  template <class T, class Rule>
  void field(std::string_view name, T& member, Rule rule) {
    const nlohmann::json* value = take(name);
    if (value == nullptr) return;
    std::string path = frame().path + json_pointer_token(name);
    std::optional<Problem> problem;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      // Checked as int64 before the cast, so values beyond T's range are reported, not wrapped.
      std::int64_t number = read_integer(*value, path);
      problem = find_int_problem<T>(number, rule);
      if (!problem) member = static_cast<T>(number);
    } else {
      T parsed = convert(*value, path, member);
      problem = check_member(parsed, rule);
      if (!problem) member = std::move(parsed);
    }
    if (problem) fail(path + problem->sub_path, problem->text);
  }

  template <class Section>
  void section(std::string_view name, Section& member) {
    const nlohmann::json* value = take(name);
    if (value == nullptr) return;
    enter(*value, frame().path + json_pointer_token(name));
    describe(*this, member);
    leave();
  }

 private:
  struct Frame {
    const nlohmann::json* object;
    std::string path;
    std::vector<std::string> known_keys;
  };

  Frame& frame() { return frames_.back(); }
  // The value of key `name` in the current object, or nullptr; remembers `name` as known.
  const nlohmann::json* take(std::string_view name);
  void enter(const nlohmann::json& object, std::string path);
  // Rejects keys of the current object that the schema did not ask for.
  void leave();
  [[noreturn]] void fail(const std::string& path, const std::string& problem) const;
  [[noreturn]] void fail_type(const std::string& path, const char* expected, const nlohmann::json& value) const;

  bool convert(const nlohmann::json& value, const std::string& path, bool) const;
  double convert(const nlohmann::json& value, const std::string& path, double) const;
  std::string convert(const nlohmann::json& value, const std::string& path, const std::string&) const;
  std::vector<std::string> convert(const nlohmann::json& value, const std::string& path,
                                   const std::vector<std::string>&) const;
  std::int64_t read_integer(const nlohmann::json& value, const std::string& path) const;

  std::string source_name_;
  std::vector<Frame> frames_;
};

}  // namespace bloomcrawl::config_detail
