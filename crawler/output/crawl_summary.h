// crawl_summary: the short human summary printed after a crawl, from the report's JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace bloomcrawl {

std::string crawl_summary(const nlohmann::json& report);

}  // namespace bloomcrawl
