// `bloomcrawl crawl --config FILE`: runs a crawl; Ctrl-C (SIGINT) or SIGTERM stops it cleanly
// with a final report (and a final checkpoint when checkpoint.directory is set). A second signal
// exits at once. `--resume [DIR]` continues the crawl checkpointed in DIR (default: the config's
// checkpoint.directory); a config whose canonical keys differ from the checkpoint's is refused,
// naming the fields (config/key_hash.h). The checkpoint and output directories are locked for the
// whole run (base/dir_lock.h): a second process on either is refused, naming the holder's PID.
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <mutex>
#include <thread>

#include <spdlog/spdlog.h>

#include "base/data_error.h"
#include "base/dir_lock.h"
#include "base/durable_file.h"
#include "config/cluster_address.h"
#include "config/config.h"
#include "config/config_warnings.h"
#include "config/key_hash.h"
#include "config/listen_address.h"
#include "crawler/cli/command.h"
#include "crawler/cli/crawl_logging.h"
#include "crawler/cluster/cluster_registry.h"
#include "crawler/cluster/redis_client.h"
#include "crawler/cluster/redis_password.h"
#include "crawler/observe/observe_server.h"
#include "crawler/output/crawl_summary.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"

namespace bloomcrawl::cli {
namespace {

struct CrawlFlags {
  std::string config_file;
  std::vector<std::string> seeds;
  std::string output;
  int64_t max_pages = -1;
  int max_depth = -2;
  int delay_ms = -1;
  int threads = 0;
  double fpr = 0;
  std::vector<std::string> allow_ranges;
  std::string progress;
  std::string log_level;
  std::string checkpoint_dir;
  bool resume = false;
  std::string resume_dir;  // empty: checkpoint.directory
  bool audit = false;
  std::string cluster;  // redis://HOST:PORT/NAME
  int nodes = 0;
  int node = -1;
  std::string metrics;       // HOST:PORT
  bool grow = false;         // --grow: record a larger --nodes for the stopped crawl
  bool revisit_all = false;  // --revisit-all: every known page is due (docs/recrawl.md)
};

void apply_overrides(const CrawlFlags& f, CrawlConfig& c) {
  for (const std::string& s : f.seeds) c.seeds.urls.push_back(s);
  if (!f.output.empty()) c.output.directory = f.output;
  if (f.max_pages >= 0) c.scope.max_pages = uint64_t(f.max_pages);
  if (f.max_depth >= -1) c.scope.max_depth = f.max_depth;
  if (f.delay_ms >= 0) c.politeness.delay_ms = f.delay_ms;
  if (f.threads > 0) c.fetch.threads = f.threads;
  if (f.fpr > 0) c.seen_filter.target_fpr = f.fpr;
  for (const std::string& r : f.allow_ranges) c.fetch.allowed_ranges.push_back(r);
  if (!f.progress.empty()) c.logging.progress = f.progress;
  if (!f.log_level.empty()) c.logging.level = f.log_level;
  if (!f.checkpoint_dir.empty()) c.checkpoint.directory = f.checkpoint_dir;
  if (!f.resume_dir.empty()) c.checkpoint.directory = f.resume_dir;
  if (f.audit) c.audit = true;
  if (!f.cluster.empty()) {
    const ClusterAddress address = parse_cluster_address(f.cluster, true);
    c.cluster.redis = address.server_url();  // the credentials stay out of the config's copies
    c.cluster.name = address.name;
    if (!address.user.empty()) c.cluster.user = address.user;
    c.cluster.url_password = address.password;
  }
  if (f.nodes > 0) c.cluster.nodes = f.nodes;
  if (f.node >= 0) c.cluster.node = f.node;
  if (!f.metrics.empty()) c.metrics.listen = f.metrics;
}

// Cluster mode: joins the crawl recorded in Redis, or refuses this node (docs/cluster.md).
void join_cluster_of(const CrawlConfig& config, bool grow) {
  if (config.cluster.redis.empty()) {
    if (grow) throw std::runtime_error("--grow needs cluster mode (--cluster)");
    return;
  }
  RedisClient redis(cluster_endpoint(config.cluster));
  if (grow) grow_cluster(redis, cluster_identity(config));
  join_cluster(redis, cluster_identity(config));
}

std::string join_differences(const std::vector<ConfigDifference>& diffs) {
  std::string out;
  for (const ConfigDifference& d : diffs)
    out += "\n  " + d.path + ": " + d.before + " in the checkpoint, " + d.after + " now";
  return out;
}

// The checkpointed crawl's config. With `seeds_file`, its seeds.file (saved as an absolute path) is
// read again, so `crawl --resume DIR` alone resumes a file-seeded crawl with the seeds' hosts in
// scope (config/README.md seeds.file); a file gone since is an error naming it.
CrawlConfig checkpointed_config(const CrawlManifest& m, const std::filesystem::path& dir, bool seeds_file) {
  nlohmann::json saved = m.config;
  if (!seeds_file && saved.contains("seeds") && saved["seeds"].is_object()) saved["seeds"].erase("file");
  return parse_config(saved.dump(), (dir / "CRAWL-*").string(), LoadOptions{.require_seeds = false});
}

// Throws unless `config` keys URLs as the checkpointed crawl did.
void check_resumable(const CrawlManifest& m, const std::filesystem::path& dir, const CrawlConfig& config) {
  CrawlConfig saved = checkpointed_config(m, dir, false);
  std::vector<ConfigDifference> diffs = key_affecting_differences(saved, config);
  if (!diffs.empty()) {
    throw std::runtime_error("cannot resume " + dir.string() +
                             ": the config changes how URLs are keyed, so the checkpointed seen filter would "
                             "answer for different URLs. Fields that differ:" +
                             join_differences(diffs) +
                             "\nRestore them, or start a new crawl in another checkpoint.directory.");
  }
  if (m.key_hash != canonical_key_hash(config)) {
    throw std::runtime_error("cannot resume " + dir.string() + ": canonical key hash " + m.key_hash +
                             " in the checkpoint, " + canonical_key_hash(config) +
                             " now (a different bloomcrawl version?)");
  }
}

// The directories a crawl writes, each locked from before it is read until the process ends, so a
// second process on one of them is refused before it touches anything. One lock per directory:
// two on the same one would conflict with each other.
class DirectoryLocks {
 public:
  void lock(const std::filesystem::path& dir) {
    for (const std::unique_ptr<DirLock>& held : held_) {
      std::error_code ec;
      if (std::filesystem::equivalent(held->directory(), dir, ec)) return;
    }
    held_.push_back(std::make_unique<DirLock>(dir));
  }

 private:
  std::vector<std::unique_ptr<DirLock>> held_;
};

// True if `dir` holds no crawl generation (or does not exist): what is there is from a crawl
// stopped before its first generation was committed, which it takes before fetching anything, so
// nothing there is worth resuming and a new crawl may start over it.
bool holds_no_generation(const std::filesystem::path& dir) {
  std::error_code ec;
  const std::filesystem::directory_iterator entries(dir, ec);
  return std::none_of(begin(entries), end(entries), [](const std::filesystem::directory_entry& e) {
    const std::string name = e.path().filename().string();
    return name == "CURRENT" || name.starts_with("CRAWL-");
  });
}

void setup_logging(const LoggingConfig& l) {
  const std::vector<spdlog::sink_ptr> sinks = crawl_log_sinks(l);
  auto logger = std::make_shared<spdlog::logger>("bloomcrawl", sinks.begin(), sinks.end());
  logger->set_level(spdlog::level::from_str(l.level));
  spdlog::set_default_logger(logger);
}

// Signals are taken by a dedicated thread with sigwait, so stopping the crawl runs as ordinary
// code rather than inside a signal handler. Construct it before anything starts a thread (the
// frontier's RocksDB starts its own): threads inherit the mask that keeps the signals from them.
class SignalWatcher {
 public:
  SignalWatcher() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGUSR1);  // our own wake-up at the end
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    thread_ = std::thread([this] {
      int signals = 0;
      for (;;) {
        int sig = 0;
        if (sigwait(&set_, &sig) != 0 || sig == SIGUSR1) return;
        if (++signals > 1) _exit(130);
        spdlog::warn("signal {}: stopping; the crawl report follows (again to quit at once)", sig);
        std::lock_guard lock(mu_);
        stop_requested_ = true;
        if (crawler_) crawler_->stop();
      }
    });
  }
  ~SignalWatcher() {
    pthread_kill(thread_.native_handle(), SIGUSR1);
    thread_.join();
  }
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  // crawler.run(), stopped by a signal that arrives while it runs or arrived before.
  nlohmann::json run(Crawler& crawler) {
    {
      std::lock_guard lock(mu_);
      crawler_ = &crawler;
      if (stop_requested_) crawler.stop();
    }
    nlohmann::json report = crawler.run();
    std::lock_guard lock(mu_);
    crawler_ = nullptr;
    return report;
  }

 private:
  sigset_t set_;
  std::mutex mu_;
  Crawler* crawler_ = nullptr;  // under mu_
  bool stop_requested_ = false;
  std::thread thread_;
};

int run_crawl(const CrawlFlags& flags) {
  CrawlConfig config;
  if (!flags.config_file.empty()) {
    config = load_config(flags.config_file, LoadOptions{.require_seeds = flags.seeds.empty() && !flags.resume});
  }
  DirectoryLocks locks;
  std::unique_ptr<CrawlCheckpoint> resume;
  if (flags.resume) {
    const std::string dir = !flags.resume_dir.empty() ? flags.resume_dir : config.checkpoint.directory;
    if (dir.empty()) throw std::runtime_error("--resume: give DIR or set checkpoint.directory in the config");
    if (!std::filesystem::is_directory(dir)) throw std::runtime_error("--resume " + dir + ": not a directory");
    locks.lock(dir);
    resume = std::make_unique<CrawlCheckpoint>(load_crawl_checkpoint(dir));
    // No --config: the checkpointed crawl's own config, with the command line's overrides.
    if (flags.config_file.empty()) config = checkpointed_config(resume->manifest, dir, true);
  }
  apply_overrides(flags, config);
  if (resume) {
    check_resumable(resume->manifest, config.checkpoint.directory, config);
    if (all_seed_urls(config).empty())
      config.seeds.urls = all_seed_urls(checkpointed_config(resume->manifest, config.checkpoint.directory, true));
  }
  validate_config(config, flags.config_file.empty() ? "<command line>" : flags.config_file);
  join_cluster_of(config, flags.grow);
  if (!resume && !config.checkpoint.directory.empty()) {
    locks.lock(config.checkpoint.directory);
    if (!holds_no_generation(config.checkpoint.directory)) {
      throw std::runtime_error("checkpoint.directory " + config.checkpoint.directory +
                               " holds a crawl: resume it with --resume, or choose another directory");
    }
  }
  const OutputConfig& out = config.output;
  if (out.pages_jsonl || out.edges || out.report_json || out.warc.enabled) locks.lock(out.directory);
  setup_logging(config.logging);
  for (const std::string& warning : config_warnings(config)) spdlog::warn("config: {}", warning);

  CrawlerSettings settings = settings_from_config(config);
  settings.cluster.grow = flags.grow;
  settings.revisit_all = flags.revisit_all;
  settings.progress =
      config.logging.progress == "always" || (config.logging.progress == "auto" && isatty(STDERR_FILENO));
  if (!config.checkpoint.directory.empty()) {
    CrawlCheckpointSettings& c = settings.checkpoint;
    c.directory = config.checkpoint.directory;
    c.interval = std::chrono::seconds(config.checkpoint.interval_s);
    c.interval_pages = config.checkpoint.interval_pages;
    c.keep = uint32_t(std::max(1, config.checkpoint.keep));
    c.journal.group_interval = std::chrono::milliseconds(config.checkpoint.journal_group_ms);
    c.journal.group_entries = size_t(std::max(1, config.checkpoint.journal_group_entries));
    c.config = to_json(config);
    c.key_hash = canonical_key_hash(config);
  }
  settings.audit = config.audit;
  SignalWatcher watcher;
  Crawler crawler(settings, std::move(resume));
  // Declared after the crawler, so it stops serving before the crawler goes.
  std::unique_ptr<ObserveServer> observe;
  if (!config.metrics.listen.empty()) {
    observe = std::make_unique<ObserveServer>(
        parse_listen_address(config.metrics.listen), [&crawler] { return crawler.live_report(); },
        config.metrics.allowed_hosts);
    spdlog::info("status page at {} (Prometheus metrics at {}metrics)", observe->url(), observe->url());
  }
  nlohmann::json report = watcher.run(crawler);
  report["config"] = to_json(config);
  if (config.output.report_json) {
    std::filesystem::path path = std::filesystem::path(config.output.directory) / "report.json";
    const std::string text = report.dump(2) + "\n";
    try {
      write_file_durably(path, text.data(), text.size());  // temp, fsync, rename: never a torn report
      if (!crawler.cluster_report().is_null()) {           // cluster mode: every node's report merged
        const std::string merged = crawler.cluster_report().dump(2) + "\n";
        write_file_durably(path.parent_path() / "cluster-report.json", merged.data(), merged.size());
      }
    } catch (const CheckpointError& e) {
      spdlog::error("cannot write the report: {}", e.what());
      if (!report["crawl"].contains("error")) {
        report["crawl"]["stopped_by"] = "error";
        report["crawl"]["error"] = std::string("report not written: ") + e.what();
      }
    }
  }
  std::cout << crawl_summary(report);
  // A crawl whose outputs are incomplete never exits 0 (docs/outcomes.md).
  return report["crawl"].contains("error") ? 1 : 0;
}

}  // namespace

// A flag's value out of its field's range is an error naming the flag, never silently ignored
// (config/README.md: no silent fallback). The defaults in CrawlFlags mean "not given".
CLI::Validator fpr_range() {
  return {[](std::string& text) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            const bool number = !text.empty() && end == text.c_str() + text.size();
            return number && v > 0 && v < 0.5 ? std::string() : "must be in (0, 0.5), got " + text;
          },
          "(0, 0.5)"};
}

BLOOMCRAWL_COMMAND("crawl", "Crawl from a seed-list config", [](CLI::App& app) -> RunFn {
  auto flags = std::make_shared<CrawlFlags>();
  app.add_option("-c,--config", flags->config_file, "JSON config file (config/README.md)")->check(CLI::ExistingFile);
  app.add_option("--seed", flags->seeds, "Seed URL (repeatable; adds to the config's seeds)");
  app.add_option("-o,--output", flags->output, "Output directory (output.directory)");
  app.add_option("--max-pages", flags->max_pages, "Stop after this many pages (scope.max_pages; 0 = unlimited)")
      ->check(CLI::Range(int64_t{0}, std::numeric_limits<int64_t>::max()));
  app.add_option("--max-depth", flags->max_depth, "Link hops from a seed (scope.max_depth; -1 = unlimited)")
      ->check(CLI::Range(-1, std::numeric_limits<int>::max()));
  app.add_option("--delay-ms", flags->delay_ms, "Delay between requests to one host (politeness.delay_ms)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()));
  app.add_option("--threads", flags->threads, "Fetcher threads, 1-256 (fetch.threads)")->check(CLI::Range(1, 256));
  app.add_option("--fpr", flags->fpr, "Seen-filter target false-positive rate (seen_filter.target_fpr)")
      ->check(fpr_range());
  app.add_option("--allow-range", flags->allow_ranges, "CIDR exempt from the SSRF guard (repeatable)");
  app.add_option("--progress", flags->progress, "auto, always or never (logging.progress)")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_option("--log-level", flags->log_level, "trace, debug, info, warn, error, critical or off (logging.level)")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  app.add_option("--checkpoint-dir", flags->checkpoint_dir, "Checkpoint directory (checkpoint.directory)");
  auto* resume = app.add_option("--resume", flags->resume_dir,
                                "Continue the crawl checkpointed in DIR (default: checkpoint.directory)")
                     ->expected(0, 1);
  app.add_option("--cluster", flags->cluster, "Cluster mode: redis://[USER:]PASSWORD@HOST:PORT/NAME (docs/cluster.md)");
  app.add_option("--nodes", flags->nodes, "Nodes in the cluster, 1-1024 (cluster.nodes)")->check(CLI::Range(1, 1024));
  app.add_option("--node", flags->node, "This node's index, 0 to nodes-1 (cluster.node)")->check(CLI::Range(0, 1023));
  app.add_option("--metrics", flags->metrics,
                 "Serve Prometheus metrics and the status page on HOST:PORT (metrics.listen; docs/metrics.md)");
  app.add_flag("--grow", flags->grow,
               "Record a larger --nodes for the stopped cluster crawl; queued URLs follow their new owners");
  app.add_flag("--revisit-all", flags->revisit_all,
               "With --resume and recrawl.enabled: revisit every known page now, due or not");
  app.add_flag("--audit", flags->audit, "Count the seen filter's real false positives with an exact set (audit)");
  app.callback([flags, resume] {
    flags->resume = resume->count() > 0;
    if (flags->config_file.empty() && flags->seeds.empty() && flags->resume_dir.empty()) {
      throw CLI::ValidationError("--config", "give --config FILE, at least one --seed, or --resume DIR");
    }
  });
  return [flags] { return run_crawl(*flags); };
});

}  // namespace bloomcrawl::cli
