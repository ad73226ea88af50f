// `bloomcrawl lookup DIR URL...`: what the crawl whose checkpoint or output directory is DIR knows
// of each URL (docs/records.md). Each URL is canonicalized as that crawl did, and one JSON line is
// printed per URL, in order: its record, {"url":...,"admitted":false} when the records do not hold
// it, or that with "error" for a URL the crawl could not have admitted (it does not canonicalize).
// One batched lookup for all of them. A DIR without a records store is an error (exit 1).
#include <unistd.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "crawler/cli/command.h"
#include "crawler/cli/line_stream.h"
#include "crawler/cli/records_source.h"

namespace bloomcrawl::cli {
namespace {

struct LookupArgs {
  std::string dir;
  std::vector<std::string> urls;
};

int run_lookup(const LookupArgs& args) {
  RecordsSource source(args.dir);
  std::vector<CanonicalUrl> canonical;
  std::vector<std::string_view> found_urls;
  canonical.reserve(args.urls.size());
  for (const std::string& url : args.urls) {
    canonical.push_back(canonicalize(url, nullptr, source.canonicalize()));
    if (canonical.back().ok()) found_urls.push_back(canonical.back().url);
  }
  const std::vector<std::optional<UrlRecord>> records = source.store().get_many(found_urls);
  try {
    LineWriter out("lookup", STDOUT_FILENO);
    size_t next = 0;
    for (size_t i = 0; i < args.urls.size(); ++i) {
      const CanonicalUrl& c = canonical[i];
      if (!c.ok()) {
        const nlohmann::json line = {{"url", args.urls[i]},
                                     {"admitted", false},
                                     {"error", std::string(url_drop_reason_name(c.reason)) + ": " + c.error}};
        out.append_line(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        continue;
      }
      const std::optional<UrlRecord>& record = records[next++];
      out.append_line(record ? url_record_json(*record) : url_not_admitted_json(c.url));
    }
    out.flush();
  } catch (const OutputClosed&) {
    return kOutputClosedExitStatus;
  }
  return 0;
}

RunFn setup_lookup(CLI::App& app) {
  auto args = std::make_shared<LookupArgs>();
  app.add_option("dir", args->dir, "a crawl's checkpoint directory or output directory (running or stopped)")
      ->required();
  app.add_option("urls", args->urls, "URLs to look up, canonicalized as the crawl did")->required();
  app.footer(
      "Prints one JSON line per URL: its record (outcome, HTTP status, depth, times, validators, digest), or "
      "{\"url\":...,\"admitted\":false}. A checkpoint directory is read as of its newest generation; an output "
      "directory's records/ as of what the crawl has written out (docs/records.md).");
  return [args] { return run_lookup(*args); };
}

}  // namespace

BLOOMCRAWL_COMMAND("lookup", "print what a crawl knows of URLs: their records, one JSON line each", setup_lookup);

}  // namespace bloomcrawl::cli
