#include "config/json_reader.h"

#include <algorithm>
#include <limits>

#include "config/edit_distance.h"
#include "config/schema_paths.h"

namespace bloomcrawl::config_detail {

using nlohmann::json;

std::string describe_json_type(const json& value) {
  if (value.is_number()) return "number " + value.dump();
  return value.type_name();
}

JsonReader::JsonReader(const json& root, std::string source_name) : source_name_(std::move(source_name)) {
  enter(root, "");
}

void JsonReader::read(CrawlConfig& config) {
  describe(*this, config);
  leave();
}

const json* JsonReader::take(std::string_view name) {
  Frame& current = frame();
  current.known_keys.emplace_back(name);
  auto found = current.object->find(std::string(name));
  return found == current.object->end() ? nullptr : &*found;
}

void JsonReader::enter(const json& object, std::string path) {
  if (!object.is_object() && path.empty()) {
    fail("", "the top level must be a JSON object, got " + describe_json_type(object));
  }
  if (!object.is_object()) fail_type(path, "object", object);
  frames_.push_back(Frame{&object, std::move(path), {}});
}

void JsonReader::leave() {
  const Frame& current = frame();
  for (const auto& [key, value] : current.object->items()) {
    bool known = std::find(current.known_keys.begin(), current.known_keys.end(), key) != current.known_keys.end();
    if (known) continue;
    std::string path = current.path + json_pointer_token(key);
    std::string problem = "unknown key";
    if (std::optional<std::string> near = nearest_name(key, current.known_keys)) {
      problem += "; did you mean " + current.path + json_pointer_token(*near) + "?";
    } else {
      // The right name in the wrong section, e.g. /fetch/delay_ms for /politeness/delay_ms.
      std::string moved;
      for (const KeyPath& candidate : all_key_paths()) {
        if (candidate.path.ends_with(json_pointer_token(key))) moved = candidate.path;
      }
      if (!moved.empty()) {
        problem += "; did you mean " + moved + "?";
      } else {
        std::string valid;
        for (const std::string& name : current.known_keys) valid += (valid.empty() ? "" : ", ") + name;
        problem += " (valid keys here: " + valid + ")";
      }
    }
    fail(path, problem);
  }
  frames_.pop_back();
}

void JsonReader::fail(const std::string& path, const std::string& problem) const {
  throw ConfigError(source_name_, path, problem);
}

void JsonReader::fail_type(const std::string& path, const char* expected, const json& value) const {
  fail(path, std::string("expected ") + expected + ", got " + describe_json_type(value));
}

bool JsonReader::convert(const json& value, const std::string& path, bool) const {
  if (!value.is_boolean()) fail_type(path, "boolean", value);
  return value.get<bool>();
}

double JsonReader::convert(const json& value, const std::string& path, double) const {
  if (!value.is_number()) fail_type(path, "number", value);
  return value.get<double>();
}

std::string JsonReader::convert(const json& value, const std::string& path, const std::string&) const {
  if (!value.is_string()) fail_type(path, "string", value);
  return value.get<std::string>();
}

std::vector<std::string> JsonReader::convert(const json& value, const std::string& path,
                                             const std::vector<std::string>&) const {
  if (!value.is_array()) fail_type(path, "array of strings", value);
  std::vector<std::string> strings;
  for (size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string()) fail_type(path + "/" + std::to_string(i), "string", value[i]);
    strings.push_back(value[i].get<std::string>());
  }
  return strings;
}

std::int64_t JsonReader::read_integer(const json& value, const std::string& path) const {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  if (value.is_number_unsigned()) {
    auto number = value.get<std::uint64_t>();
    if (number > static_cast<std::uint64_t>(kMax)) fail(path, "must be at most " + std::to_string(kMax));
    return static_cast<std::int64_t>(number);
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) {
    // 1e6 is how people write a million; accept floats that are whole numbers.
    double number = value.get<double>();
    if (number != std::floor(number)) fail_type(path, "integer", value);
    if (std::fabs(number) >= 9.2e18) fail(path, "out of range: " + value.dump());
    return static_cast<std::int64_t>(number);
  }
  fail_type(path, "integer", value);
}

}  // namespace bloomcrawl::config_detail
