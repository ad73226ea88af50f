// Edit distance for "did you mean" suggestions on mistyped config keys.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bloomcrawl::config_detail {

// Optimal-string-alignment distance (insertions, deletions, substitutions and adjacent
// transpositions each cost 1), ignoring ASCII case.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `name`, if it is close enough to be a plausible typo of it.
std::optional<std::string> nearest_name(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace bloomcrawl::config_detail
