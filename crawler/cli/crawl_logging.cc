#include "crawler/cli/crawl_logging.h"

#include <memory>

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

namespace bloomcrawl::cli {

std::vector<spdlog::sink_ptr> crawl_log_sinks(const LoggingConfig& l) {
  std::vector<spdlog::sink_ptr> sinks{std::make_shared<spdlog::sinks::stderr_color_sink_mt>()};
  if (!l.file.empty()) {
    sinks.push_back(std::make_shared<spdlog::sinks::rotating_file_sink_mt>(l.file, size_t(l.max_file_mb) << 20,
                                                                           size_t(l.max_files)));
  }
  return sinks;
}

}  // namespace bloomcrawl::cli
