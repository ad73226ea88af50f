// `bloomcrawl status DIR`: a crawl's progress from the status file it writes in its output or
// checkpoint directory (docs/status-file.md), running or stopped. The state is checked against the
// writer's process: a crawl killed with `kill -9` left "running" behind and is reported stopped,
// without a final status. Human text, or with `json` the status file's fields and what the check
// found: `directory`, `state` (as reported), `written_state`, `alive` (null: written on another
// host), `clean_exit`, `age_seconds` (since the last update) and `lock_pid` (what DIR/LOCK records, 0 if
// nothing).
#pragma once

#include <filesystem>
#include <ostream>

namespace bloomcrawl::cli {

// Returns the exit code: 0, or 1 with the reason on `err` (no status file, or not one).
int print_dir_status(const std::filesystem::path& dir, bool json, std::ostream& out, std::ostream& err);

}  // namespace bloomcrawl::cli
