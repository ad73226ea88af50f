// The crawl's log sinks (logging.*, config/README.md): stderr, and with logging.file a file rotated
// by size with spdlog's rotating sink. Past logging.max_file_mb the file is renamed with the number
// 1 before its extension (crawl.log -> crawl.1.log), older ones shift up one (crawl.2.log, ...)
// and the one past logging.max_files is removed, so the log never holds more than
// (max_files + 1) * max_file_mb.
#pragma once

#include <vector>

#include <spdlog/sinks/sink.h>

#include "config/config.h"

namespace bloomcrawl::cli {

// [stderr, file (when logging.file is set)].
std::vector<spdlog::sink_ptr> crawl_log_sinks(const LoggingConfig& logging);

}  // namespace bloomcrawl::cli
