#include "config/json_text.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "config/config_error.h"

namespace bloomcrawl::config_detail {
namespace {

using nlohmann::json;

// Tracks where the parser is, so a repeated key can be reported by its JSON path.
class DuplicateKeyFinder {
 public:
  bool on_event(json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        enter_value();
        frames_.push_back(Frame{event == json::parse_event_t::array_start, path_, {}, -1});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end: frames_.pop_back(); break;
      case json::parse_event_t::key: on_key(parsed.get<std::string>()); break;
      case json::parse_event_t::value: enter_value(); break;
    }
    return true;
  }

  const std::string& duplicate_path() const { return duplicate_; }

 private:
  struct Frame {
    bool is_array;
    std::string path;
    std::set<std::string> keys;
    long index;
  };

  // Sets path_ to the value about to be read.
  void enter_value() {
    if (frames_.empty() || !frames_.back().is_array) return;
    Frame& array = frames_.back();
    path_ = array.path + "/" + std::to_string(++array.index);
  }

  void on_key(const std::string& key) {
    Frame& object = frames_.back();
    path_ = object.path + json_pointer_token(key);
    if (!object.keys.insert(key).second && duplicate_.empty()) duplicate_ = path_;
  }

  std::vector<Frame> frames_;
  std::string path_;
  std::string duplicate_;
};

// nlohmann's messages start "[json.exception.parse_error.101] parse error at line 3, column 7: ";
// the location is reported our way, so keep only what follows.
std::string parse_problem(const std::string& what) {
  size_t location = what.find("parse error at line");
  size_t start = location == std::string::npos ? what.find("] ") : what.find(": ", location);
  return start == std::string::npos ? what : what.substr(start + 2);
}

}  // namespace

std::string json_pointer_token(std::string_view key) {
  std::string token = "/";
  for (char c : key) {
    if (c == '~') {
      token += "~0";
    } else if (c == '/') {
      token += "~1";
    } else {
      token += c;
    }
  }
  return token;
}

json parse_json_text(std::string_view text, std::string_view source_name) {
  DuplicateKeyFinder finder;
  json document;
  try {
    document = json::parse(
        text, [&finder](int, json::parse_event_t event, json& parsed) { return finder.on_event(event, parsed); },
        /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    // e.byte is the 1-based offset of the last character read.
    size_t offset = e.byte == 0 ? 0 : std::min<size_t>(e.byte - 1, text.size());
    std::string_view before = text.substr(0, offset);
    int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    size_t line_start = before.rfind('\n');
    int column = static_cast<int>(offset - (line_start == std::string_view::npos ? 0 : line_start + 1)) + 1;
    throw ConfigError(std::string(source_name), "", "JSON syntax error: " + parse_problem(e.what()), line, column);
  } catch (const json::exception& e) {
    // e.g. out_of_range 406, a number too large for a double; nlohmann gives no position for it.
    throw ConfigError(std::string(source_name), "", "invalid JSON: " + parse_problem(e.what()));
  }
  if (!finder.duplicate_path().empty()) {
    throw ConfigError(std::string(source_name), finder.duplicate_path(), "key appears more than once in its object");
  }
  return document;
}

}  // namespace bloomcrawl::config_detail
