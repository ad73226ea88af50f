// gzip: one gzip member holding `data`, for tests that serve or parse compressed bodies.
#pragma once

#include <string>
#include <string_view>

namespace bloomcrawl::testing {

std::string gzip(std::string_view data);

}  // namespace bloomcrawl::testing
