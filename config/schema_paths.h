// Every JSON path the schema defines ("/fetch/threads", "/politeness/backoff", ...), for
// suggestions when a key is misplaced and for tests that walk all fields.
#pragma once

#include <string>
#include <vector>

namespace bloomcrawl::config_detail {

struct KeyPath {
  std::string path;
  bool is_section;
};

const std::vector<KeyPath>& all_key_paths();

}  // namespace bloomcrawl::config_detail
