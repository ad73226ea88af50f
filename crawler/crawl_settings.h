// settings_from_config: the one place where the operator's CrawlConfig (plain data) becomes the
// option structs of the modules the crawler drives.
#pragma once

#include "config/config.h"
#include "crawler/crawler.h"

namespace bloomcrawl {

// Throws std::invalid_argument for a value that validation cannot see (an unknown link kind).
CrawlerSettings settings_from_config(const CrawlConfig& config);

}  // namespace bloomcrawl
