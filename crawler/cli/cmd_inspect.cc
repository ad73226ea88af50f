// `bloomcrawl inspect DIR`: describes a checkpoint directory, verifying every checksum. Prints
// JSON on stdout and a short human summary on stderr; a corrupted checkpoint is an error naming
// the file and the problem (nonzero exit).
//
// Each kind of checkpoint is a view: recognizes(dir) and describe(dir): a crawl checkpoint
// (crawler/persist/crawl_checkpoint.h, its filter in DIR/filter) or a bare seen-filter checkpoint.
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "crawler/cli/command.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/persist/journal_replay.h"
#include "crawler/persist/resume_point.h"
#include "seenfilter/checkpoint.h"

namespace bloomcrawl::cli {
namespace {

namespace fs = std::filesystem;

struct InspectArgs {
  std::string dir;
  std::string manifest;  // empty: the one CURRENT names
};

// The default constructor is flagged only for nlohmann::json's own (noexcept), whose null path never
// reaches its JSON_THROW (nlohmann 3.11): nothing can escape.
// NOLINTNEXTLINE(bugprone-exception-escape): a false positive, explained above
struct Description {
  nlohmann::json json;
  std::string summary;
};

struct CheckpointView {
  const char* kind;
  std::function<bool(const fs::path&)> recognizes;
  std::function<Description(const InspectArgs&)> describe;
};

// 0 for no keys: an empty filter has no bits per key, rather than infinitely many.
double bits_per_key(uint64_t bytes, uint64_t keys) {
  return keys == 0 ? 0.0 : static_cast<double>(bytes) * 8.0 / static_cast<double>(keys);
}

// Both, labelled: a young crawl's filter is sized for far more keys than it holds, so bits per
// inserted key alone (thousands) reads as waste, and bits per key of capacity alone hides it.
std::string bits_per_key_text(uint64_t bytes, uint64_t capacity, uint64_t keys) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.1f bits per key of capacity, %.1f bits per inserted key",
                bits_per_key(bytes, capacity), bits_per_key(bytes, keys));
  return buf;
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

Description describe_seen_filter(const InspectArgs& args) {
  const CheckpointInfo info = inspect_checkpoint(args.dir, args.manifest);
  nlohmann::json layers = nlohmann::json::array();
  uint64_t capacity = 0;
  for (const CheckpointLayerInfo& l : info.layers) {
    capacity += l.entry.capacity;
    layers.push_back({
        {"kind", l.kind},
        {"index", l.entry.index},
        {"file", l.file},
        {"capacity", l.entry.capacity},
        {"keys", l.entry.keys},
        {"sealed", l.entry.keys == l.entry.capacity},
        {"blocks", l.entry.blocks},
        {"bytes", l.bytes},
        {"probes", l.entry.probes},
        {"bits_per_key", l.bits_per_key},
        {"fill", l.fill},
        {"target_fpr", l.target_fpr},
        {"fpr_share", l.target_fpr / info.options.target_fpr},
        {"estimated_fpr", l.estimated_fpr},
        {"checksum", hex64(l.entry.checksum)},
    });
  }
  Description d;
  d.json = {
      {"kind", "seen-filter"},
      {"directory", args.dir},
      {"manifest", info.manifest},
      {"sequence", info.sequence},
      {"format_version", info.version},
      {"log_keys", info.log_keys},
      {"parameters",
       {{"initial_capacity", info.options.initial_capacity},
        {"target_fpr", info.options.target_fpr},
        {"growth_factor", info.options.growth_factor},
        {"tightening_ratio", info.options.tightening_ratio},
        {"memory_limit_bytes", info.options.memory_limit_bytes}}},
      {"keys", info.keys},
      {"capacity", capacity},
      {"bytes", info.bytes},
      {"bits_per_key", bits_per_key(info.bytes, info.keys)},
      {"bits_per_capacity_key", bits_per_key(info.bytes, capacity)},
      {"estimated_fpr", info.estimated_fpr},
      {"estimated_false_positives", info.estimated_false_positives},
      {"checksums_verified", true},
      {"layers", layers},
  };
  std::ostringstream summary;
  summary << "seen-filter checkpoint " << info.manifest << ": " << info.keys << " keys in " << info.layers.size()
          << " layers sized for " << capacity << ", " << info.bytes << " bytes ("
          << bits_per_key_text(info.bytes, capacity, info.keys) << "), estimated FPR " << info.estimated_fpr
          << " (target " << info.options.target_fpr << "); all " << info.layers.size() << " layer checksums verified";
  d.summary = summary.str();
  return d;
}

// Loads the generation as a resume would (every file verified, falling back past a corrupted
// one with a warning), then describes it with its filter.
Description describe_crawl(const InspectArgs& args) {
  CrawlManifest m;
  if (args.manifest.empty()) {
    m = load_crawl_checkpoint(args.dir).manifest;
  } else {
    m = read_crawl_manifest(args.dir, args.manifest);
  }
  Description filter = describe_seen_filter(InspectArgs{(fs::path(args.dir) / "filter").string(), m.filter_manifest});
  Description d;
  d.json = {
      {"kind", "crawl"},
      {"directory", args.dir},
      {"generation", m.generation},
      {"format_version", m.frontier_directory.empty() ? 1 : kCrawlManifestVersion},
      {"key_hash", m.key_hash},
      {"pages_done", m.pages_done},
      {"queued", m.queued},
      {"in_flight_at_cut", m.outstanding.size()},
      {"requeued_at_cut", m.requeue.size()},
      {"frontier", m.frontier_directory.empty() ? nlohmann::json{{"file", m.frontier_file}, {"bytes", m.frontier_bytes}}
                                                : nlohmann::json{{"directory", m.frontier_directory}}},
      {"audit", m.audit_file.empty() ? nlohmann::json(nullptr)
                                     : nlohmann::json{{"file", m.audit_file}, {"bytes", m.audit_bytes}}},
      {"counters", m.counters},
      {"duplicates_avoided", m.stats.value("duplicates_avoided", nlohmann::json::object())},
      {"seen_filter", filter.json},
      {"journals", nlohmann::json::array()},
  };
  const std::vector<fs::path> journals = journals_since(args.dir, m.generation);
  for (const fs::path& j : journals) {
    d.json["journals"].push_back({{"file", j.filename().string()}, {"bytes", fs::file_size(j)}});
  }
  // What a resume would redo: the pages in flight at the stop are the ones it fetches again.
  const JournalReplay replay = replay_journals(journals, m.outstanding);
  d.json["since_generation"] = {{"journal_records", replay.records},
                                {"admitted", replay.admitted.size()},
                                {"pages_completed", replay.completed.size()},
                                {"in_flight_at_stop", replay.outstanding.size()},
                                {"journal_problems", replay.problems}};
  // The learned parameter rules a resume restores (docs/content-seen.md): the newest stats record's.
  const nlohmann::json& stats = replay.last_stats.is_object() ? replay.last_stats : m.stats;
  const nlohmann::json content_seen = stats.value("content_seen", nlohmann::json::object());
  d.json["learned_rules"] = content_seen.value("rules", nlohmann::json::array());
  d.json["learned_evidence"] = content_seen.value("evidence", nlohmann::json::array());  // pairs short of a rule
  // After a kill the generation alone can be far behind: say first what a resume continues from.
  const ResumePoint resume = resume_point(m, replay);
  d.json["resume"] = {{"pages_done", resume.pages_done},
                      {"queued", resume.queued},
                      {"completed_since_generation", resume.completed_since},
                      {"admitted_since_generation", resume.admitted_since},
                      {"in_flight_at_stop", resume.in_flight_at_stop}};
  std::ostringstream summary;
  summary << "crawl checkpoint generation " << m.generation << " and " << journals.size() << " journal(s) ("
          << replay.records << " records): a resume continues from " << resume.pages_done << " pages done, "
          << resume.queued << " queued (" << resume.completed_since
          << " of them completed before the stop: skipped, not fetched again), " << resume.admitted_since
          << " URLs admitted since the generation, " << resume.in_flight_at_stop
          << " in flight at the stop (fetched again)";
  for (const std::string& problem : replay.problems) summary << "; journal " << problem << " (ignored from there on)";
  summary << ".\nThe generation alone: " << m.pages_done << " pages done, " << m.queued << " queued, "
          << m.outstanding.size() << " in flight at the cut; " << filter.summary;
  d.summary = summary.str();
  return d;
}

const std::vector<CheckpointView>& views() {
  static const std::vector<CheckpointView> kViews = {
      {"crawl", [](const fs::path& dir) { return is_crawl_checkpoint(dir) || fs::exists(dir / "filter"); },
       describe_crawl},
      {"seen-filter", [](const fs::path& dir) { return checkpoint_exists(dir); }, describe_seen_filter},
  };
  return kViews;
}

RunFn setup_inspect(CLI::App& app) {
  auto args = std::make_shared<InspectArgs>();
  app.add_option("dir", args->dir, "checkpoint directory")->required();
  app.add_option("--manifest", args->manifest, "a manifest file name to inspect instead of the current one");
  return [args]() -> int {
    if (!fs::is_directory(args->dir)) {
      std::cerr << "bloomcrawl inspect: " << args->dir << ": not a directory\n";
      return 1;
    }
    for (const CheckpointView& view : views()) {
      if (!view.recognizes(args->dir)) continue;
      const Description d = view.describe(*args);
      std::cout << d.json.dump(2) << "\n";
      std::cerr << d.summary << "\n";
      return 0;
    }
    std::cerr << "bloomcrawl inspect: " << args->dir << ": not a recognized checkpoint (no CURRENT file)\n";
    return 1;
  };
}

BLOOMCRAWL_COMMAND("inspect", "describe a checkpoint directory and verify its checksums", setup_inspect);

}  // namespace
}  // namespace bloomcrawl::cli
