// Crawler's content-seen test (docs/content-seen.md): the payload digest of a 200 body looked up in
// the digest index beside the URL records; a body first fetched at another URL makes the page that
// URL's duplicate in pages.jsonl, its URL record and its journal record, and is archived as a WARC
// revisit record referring to the first capture when it is long enough to be worth it. An HTML
// page's text is then evidence for the learned parameter rules and looked up among the pages'
// SimHashes; the rules drop their parameters from new links and queued URLs.
#include <chrono>
#include <optional>

#include <spdlog/spdlog.h>

#include "crawler/content/page_text.h"
#include "crawler/content/simhash.h"
#include "crawler/output/page_log.h"
#include "crawler/output/timestamp.h"
#include "crawler/output/warc_revisit.h"
#include "crawler/output/warc_writer.h"
#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawl_records.h"
#include "crawler/pipeline/crawler.h"
#include "crawler/pipeline/revisit_records.h"

namespace bloomcrawl {
namespace {

// The evidence short of a rule saved with the counters: one entry per (host, parameter) with
// pairs, the most agreeing first; enough for a crawl of many hosts' few parameters, small enough
// (~80 KB) for the stats record written once a second.
constexpr size_t kSavedParamEvidence = 1000;

nlohmann::json rules_json(const std::vector<ParamRule>& rules) {
  nlohmann::json out = nlohmann::json::array();
  for (const ParamRule& r : rules) {
    out.push_back({{"host", r.host},
                   {"param", r.param},
                   {"agreeing", r.agreeing},
                   {"disagreeing", r.disagreeing},
                   {"in_force", r.in_force}});
  }
  return out;
}

// The rules of a report's content_seen.rules; entries that are not rules are skipped.
std::vector<ParamRule> rules_of(const nlohmann::json& json) {
  std::vector<ParamRule> out;
  for (const nlohmann::json& r : json) {
    if (!r.is_object() || !r.value("host", nlohmann::json()).is_string() ||
        !r.value("param", nlohmann::json()).is_string()) {
      continue;
    }
    out.push_back({r["host"].get<std::string>(), r["param"].get<std::string>(), r.value("agreeing", 0u),
                   r.value("disagreeing", 0u), r.value("in_force", false)});
  }
  return out;
}

bool html_type(const FetchResult& result) {
  return result.media_type.empty() || result.media_type == "text/html" || result.media_type == "application/xhtml+xml";
}

}  // namespace

bool Crawler::see_content(const PageRequest& page, const FetchResult& result, PageRecord& record) {
  const ContentSeenConfig& config = settings_.content_seen;
  std::optional<FirstCapture> first;
  // A body cut at a limit has no payload digest; another status's body (an error page) says
  // nothing of the page.
  if (config.digest && result.status == 200 && result.content_accepted) {
    first = checkpointer_->records().first_capture_of(record.url, result.payload_digest, unix_ms(result.fetch_time));
  }
  if (first) {
    record.duplicate_of = first->url;
    checkpointer_->on_page_duplicate(result.id, first->url);
    stats_.exact_duplicates.fetch_add(1, std::memory_order_relaxed);
  }
  if (warc_ && !archive_revisit(page, result) && result.content_accepted) {
    const WarcExchange exchange = warc_exchange_of(result);
    std::optional<WarcExchange> revisit;
    std::string first_date;  // outlives `revisit`, which views it
    if (first && exchange.body.size() >= uint64_t(config.min_warc_dedup_bytes)) {
      first_date = rfc3339_utc_ms(from_unix_ms(first->fetched_ms));
      revisit =
          warc_revisit_of(result, {.url = first->url, .date = first_date, .payload_digest = result.payload_digest});
    }
    if (revisit) stats_.warc_bytes_saved.fetch_add(exchange.body.size(), std::memory_order_relaxed);
    archive(result.id, revisit ? *revisit : exchange);
  }
  const bool near_links = see_text(result, record);
  return near_links && !(first && config.skip_links_of_duplicates) && record.outcome != kUnchangedWord;
}

// The WARC writer's failure stops the crawl (parse_worker); a record it could not make is logged.
void Crawler::archive(uint64_t id, const WarcExchange& exchange) {
  try {
    checkpointer_->on_page_archived(id, warc_->write(exchange));
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception& e) {
    spdlog::error("WARC: {}", e.what());
  }
}

ParamLearner& Crawler::learner() {
  std::call_once(learner_restored_, [this] {
    learner_.restore(rules_of(stats_.param_evidence()));
    learner_.restore(rules_of(stats_.param_rules()));
    stats_.learned_rules.store(learner_.rules().size(), std::memory_order_relaxed);
  });
  return learner_;
}

bool Crawler::see_text(const FetchResult& result, PageRecord& record) {
  const ContentSeenConfig& config = settings_.content_seen;
  const bool near = config.near_duplicates != "off";
  if ((!config.learn_params && !near) || result.status != 200 || !result.content_accepted || !html_type(result)) {
    return true;
  }
  const PageText text = page_text(result.body);
  const uint64_t fingerprint = simhash64(text.text);
  if (config.learn_params) {
    const std::vector<RuleChange> changes =
        learner().observe(record.url, {.digest = result.payload_digest, .simhash = fingerprint, .title = text.title});
    for (const RuleChange& c : changes) {
      if (c.kind == RuleChange::Kind::kMade) {
        spdlog::info(
            "{}: parameter '{}' learned not to change its pages ({} agreeing pairs, none disagreeing): "
            "dropped from its new links",
            c.rule.host, c.rule.param, c.rule.agreeing);
      } else {
        spdlog::warn("{}: parameter '{}' changed a page ({} at {}): its rule is withdrawn, for good", c.rule.host,
                     c.rule.param, record.url, result.payload_digest);
      }
    }
    if (!changes.empty()) {
      stats_.set_param_rules(rules_json(learner().state()));
      stats_.learned_rules.store(learner().rules().size(), std::memory_order_relaxed);
    }
    // Evidence changes with nearly every page: saved at most once a second, as the journal's
    // stats records are written (a resume loses at most the pairs of the last second).
    if (!changes.empty() || learner().evidence_due(std::chrono::steady_clock::now(), std::chrono::seconds(1))) {
      stats_.set_param_evidence(rules_json(learner().evidence(kSavedParamEvidence)));
    }
  }
  if (!near || fingerprint == 0 || !record.duplicate_of.empty()) return true;
  const std::optional<std::string> similar = near_duplicates_.find_or_add(fingerprint, record.url);
  if (!similar || *similar == record.url) return true;
  record.near_duplicate_of = *similar;
  stats_.near_duplicates.fetch_add(1, std::memory_order_relaxed);
  return config.near_duplicates != "skip_links";
}

std::optional<Crawler::Candidate> Crawler::learned_candidate(std::string url, std::string host, LinkKind kind) {
  if (settings_.content_seen.learn_params) {
    std::string rewritten = learner().rewrite(url);
    if (rewritten != url) {
      if (filter_.contains(rewritten)) stats_.fetches_saved_by_rules.fetch_add(1, std::memory_order_relaxed);
      url = std::move(rewritten);
    }
  }
  return Candidate{std::move(url), std::move(host), kind, false};
}

bool Crawler::admit_to_fetch(PageRequest& page, Clock::time_point now) {
  if (settings_.content_seen.learn_params && !page.sitemap) {
    const std::string rewritten = learner().rewrite(page.url);
    // The records hold every URL the filter admitted: an exact answer, so no page is dropped for
    // a false positive of the filter.
    if (rewritten != page.url && checkpointer_->records().holds(rewritten)) {
      if (drop_unfetched(page, "learned_duplicate", "the URL without its learned parameters is seen: " + rewritten)) {
        stats_.fetches_saved_by_rules.fetch_add(1, std::memory_order_relaxed);
      }
      return false;
    }
  }
  return !settings_.obey_robots || robots_admit(page, now);
}

}  // namespace bloomcrawl
