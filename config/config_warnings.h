// config_warnings(): the fields of a valid config that have no effect in the combination given,
// each named with why, for the crawl to log as warnings at start (config/README.md: a field that
// does nothing is said so, never silently ignored). A combination in which nothing sensible could
// run is an error of validate_config() instead.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"

namespace bloomcrawl {

// One message per field without effect, each starting with the field's path ("/politeness/...").
std::vector<std::string> config_warnings(const CrawlConfig& config);

}  // namespace bloomcrawl
