// Helpers shared by the link-extraction tests.
#pragma once

#include <string>
#include <string_view>

namespace bloomcrawl::links_test {

// `unit` concatenated `times` times: the shape of every nesting and size test.
inline std::string repeat(std::string_view unit, size_t times) {
  std::string out;
  out.reserve(unit.size() * times);
  for (size_t i = 0; i < times; ++i) out += unit;
  return out;
}

}  // namespace bloomcrawl::links_test
