#include "crawler/observe/prometheus_text.h"

#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <utility>
#include <vector>

namespace bloomcrawl {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Pointer = nlohmann::json::json_pointer;

class Exposition {
 public:
  explicit Exposition(const nlohmann::json& r) : r_(r) {}

  bool has(const char* pointer) const { return r_.contains(Pointer(pointer)); }
  double number(const char* pointer) const {
    const Pointer p(pointer);
    return r_.contains(p) && r_.at(p).is_number() ? r_.at(p).get<double>() : 0.0;
  }

  // One sample, no labels.
  void counter(const char* name, const char* help, const char* pointer) {
    if (has(pointer))
      family(name, help, MetricType::Counter).metric.push_back(sample(MetricType::Counter, number(pointer)));
  }
  // `scale` turns the report's unit into the metric's base unit (milliseconds to seconds).
  void gauge(const char* name, const char* help, const char* pointer, double scale = 1) {
    if (has(pointer)) {
      family(name, help, MetricType::Gauge).metric.push_back(sample(MetricType::Gauge, number(pointer) * scale));
    }
  }
  // One sample per label value: {label="v"} from the report's field at each pointer.
  void labelled(const char* name, const char* help, MetricType type, const char* label,
                std::initializer_list<std::pair<const char*, const char*>> value_pointers) {
    MetricFamily& f = family(name, help, type);
    for (const auto& [value, pointer] : value_pointers) {
      if (has(pointer)) f.metric.push_back(sample(type, number(pointer), {{label, value}}));
    }
  }
  // One counter sample per key of the report's object at `pointer`: {label="key"}; then the
  // `extra` label values from their own fields.
  void counter_per_key(const char* name, const char* help, const char* label, const char* pointer,
                       std::initializer_list<std::pair<const char*, const char*>> extra = {}) {
    MetricFamily& f = family(name, help, MetricType::Counter);
    const Pointer p(pointer);
    if (r_.contains(p) && r_.at(p).is_object()) {
      for (const auto& [key, n] : r_.at(p).items()) {
        if (n.is_number()) f.metric.push_back(sample(MetricType::Counter, n.get<double>(), {{label, key}}));
      }
    }
    for (const auto& [value, field] : extra) {
      if (has(field)) f.metric.push_back(sample(MetricType::Counter, number(field), {{label, value}}));
    }
  }
  MetricFamily& family(const char* name, const char* help, MetricType type) {
    families_.push_back(MetricFamily{name, help, type, {}});
    return families_.back();
  }

  // Families with no sample are dropped: the text format would print a bare HELP and TYPE.
  std::string text() {
    std::erase_if(families_, [](const MetricFamily& f) { return f.metric.empty(); });
    return prometheus::TextSerializer().Serialize(families_);
  }

 private:
  static ClientMetric sample(MetricType type, double value, std::vector<ClientMetric::Label> labels = {}) {
    ClientMetric m;
    m.label = std::move(labels);
    (type == MetricType::Counter ? m.counter.value : m.gauge.value) = value;
    return m;
  }

  const nlohmann::json& r_;
  std::vector<MetricFamily> families_;
};

void fetch_metrics(Exposition& e, const nlohmann::json& r) {
  e.labelled("bloomcrawl_pages_fetched_total", "Responses received, by HTTP status class.", MetricType::Counter,
             "status_class",
             {{"2xx", "/fetches/status/2xx"},
              {"3xx", "/fetches/status/3xx"},
              {"4xx", "/fetches/status/4xx"},
              {"5xx", "/fetches/status/5xx"}});
  e.counter("bloomcrawl_received_bytes_total", "Response body bytes received (decoded).", "/fetches/bytes_received");
  e.counter_per_key("bloomcrawl_fetch_errors_total", "Fetches that got no response, by kind.", "kind",
                    "/fetches/failures_by_outcome");
  if (r.contains(Pointer("/fetch_latency"))) {
    const nlohmann::json& h = r.at(Pointer("/fetch_latency"));
    ClientMetric m;
    m.histogram.sample_count = h.value("count", uint64_t{0});
    m.histogram.sample_sum = h.value("sum_seconds", 0.0);
    const auto bounds = h.value("bounds_seconds", std::vector<double>{});
    const auto cumulative = h.value("cumulative", std::vector<uint64_t>{});
    for (size_t i = 0; i < bounds.size() && i < cumulative.size(); ++i)
      m.histogram.bucket.push_back({cumulative[i], bounds[i]});  // +Inf: the serializer adds it from the count
    e.family("bloomcrawl_fetch_duration_seconds", "Time from request to complete response, of responses received.",
             MetricType::Histogram)
        .metric.push_back(std::move(m));
  }
  e.counter("bloomcrawl_robots_txt_fetches_total", "robots.txt fetches.", "/fetches/robots_fetches");
  e.labelled("bloomcrawl_robots_txt_blocked_urls_total", "URLs not fetched because of robots.txt, by reason.",
             MetricType::Counter, "reason",
             {{"disallowed", "/fetches/robots_disallowed"},
              {"robots_unavailable", "/fetches/robots_unavailable"},
              {"host_unreachable", "/fetches/host_unreachable"}});
}

void link_metrics(Exposition& e) {
  e.counter("bloomcrawl_links_found_total", "Links discovered in pages, sitemaps and seeds.", "/links/discovered");
  e.counter("bloomcrawl_links_in_scope_total", "Links that passed the scope rules.", "/links/in_scope");
  e.counter("bloomcrawl_links_new_total", "Links new to the seen filter.", "/links/new");
  e.counter("bloomcrawl_links_duplicate_total", "Links the seen filter had seen: fetches avoided.",
            "/links/duplicates");
  e.labelled("bloomcrawl_links_dropped_total", "Links not followed, by the stage that dropped them.",
             MetricType::Counter, "reason",
             {{"invalid", "/links/invalid"},
              {"unsupported_scheme", "/links/unsupported_scheme"},
              {"too_long", "/links/too_long"},
              {"out_of_scope", "/links/out_of_scope"},
              {"not_followed", "/links/not_followed"},
              {"too_deep", "/links/too_deep"},
              {"refused_by_frontier", "/links/refused_by_frontier"}});
  // Duplicate links by their link kind (a, img, sitemap...), and redirect targets already seen.
  e.counter_per_key("bloomcrawl_duplicates_avoided_total", "Fetches avoided by the seen filter, by kind.", "kind",
                    "/duplicates_avoided/by_kind", {{"redirect", "/duplicates_avoided/redirects"}});
}

void filter_and_frontier_metrics(Exposition& e) {
  e.gauge("bloomcrawl_seen_filter_keys", "Keys in the seen filter.", "/seen_filter/keys");
  e.gauge("bloomcrawl_seen_filter_capacity_keys", "Keys the filter's layers are sized for.", "/seen_filter/capacity");
  e.gauge("bloomcrawl_seen_filter_bytes", "Bytes of the seen filter's bits.", "/seen_filter/bytes");
  e.gauge("bloomcrawl_seen_filter_layers", "Layers of the seen filter.", "/seen_filter/layers");
  e.gauge("bloomcrawl_seen_filter_estimated_fpr_ratio", "Estimated chance that a new URL is taken as seen now.",
          "/seen_filter/estimated_fpr");
  e.gauge("bloomcrawl_seen_filter_estimated_false_positives",
          "Estimated new URLs wrongly taken as seen so far (pages lost).", "/seen_filter/estimated_false_positives");
  e.counter("bloomcrawl_seen_filter_false_positives_rescued_total",
            "URLs the filter took as seen that the URL records did not hold, fetched after all "
            "(seen_filter.exact).",
            "/links/false_positives_rescued");
  e.counter("bloomcrawl_content_exact_duplicates_total",
            "200 bodies already fetched at another URL (content_seen.digest).", "/content_seen/exact_duplicates");
  e.counter("bloomcrawl_content_near_duplicates_total",
            "Pages whose text is within 3 SimHash bits of an earlier page's.", "/content_seen/near_duplicates");
  e.gauge("bloomcrawl_content_learned_rules", "Query parameters learned not to change a host's pages, in force.",
          "/content_seen/learned_rules");
  e.counter("bloomcrawl_content_fetches_saved_by_rules_total",
            "Links a learned parameter rule rewrote to a URL already seen.", "/content_seen/fetches_saved_by_rules");
  e.counter("bloomcrawl_content_warc_bytes_saved_total",
            "WARC payload bytes left out by revisit records of duplicate bodies.", "/content_seen/warc_bytes_saved");
  e.counter("bloomcrawl_seen_filter_audited_false_positives_total",
            "URLs wrongly taken as seen, counted by the exact audit set (--audit).", "/audit/false_positives");
  e.gauge("bloomcrawl_frontier_queued_urls", "URLs waiting in the frontier.", "/frontier/queued");
  e.gauge("bloomcrawl_frontier_hosts", "Hosts the frontier has seen.", "/frontier/hosts");
  e.gauge("bloomcrawl_frontier_ready_hosts", "Hosts (politeness groups) with dispatchable work.",
          "/frontier/ready_hosts");
  e.gauge("bloomcrawl_frontier_in_flight_urls", "URLs leased from the frontier and not yet settled.",
          "/frontier/in_flight");
}

// Revisits of known pages (docs/recrawl.md, "Counters").
void revisit_metrics(Exposition& e) {
  e.labelled("bloomcrawl_revisits_total", "Revisits of known pages that got a response, by what they found.",
             MetricType::Counter, "outcome",
             {{"not_modified", "/revisits/not_modified"},
              {"unchanged", "/revisits/unchanged"},
              {"changed", "/revisits/changed"},
              {"gone", "/revisits/gone"}});
  e.counter("bloomcrawl_revisits_untrusted_not_modified_total", "304 responses to requests that sent no validator.",
            "/revisits/untrusted_not_modified");
  e.counter("bloomcrawl_revisit_new_urls_total", "URLs first found on revisited pages.", "/revisits/new_urls");
  e.counter("bloomcrawl_revisit_bytes_saved_total", "Body bytes that 304 responses did not send again.",
            "/revisits/bytes_saved");
  e.gauge("bloomcrawl_revisit_next_due_timestamp_seconds", "When the next known page falls due (0: none).",
          "/revisits/next_due_ms", 0.001);
  e.gauge("bloomcrawl_revisits_due_within_hour", "Known pages that fall due within the hour.",
          "/revisits/due_within_hour");
}

void checkpoint_metrics(Exposition& e, const nlohmann::json& r) {
  e.counter("bloomcrawl_checkpoints_total", "Checkpoint generations written.", "/checkpoint/taken");
  e.counter("bloomcrawl_checkpoint_failures_total", "Checkpoint generations that failed.", "/checkpoint/failed");
  if (r.contains(Pointer("/checkpoint"))) {
    ClientMetric m;
    m.summary.sample_count = r.at(Pointer("/checkpoint")).value("taken", uint64_t{0});
    m.summary.sample_sum = e.number("/checkpoint/seconds_total");
    e.family("bloomcrawl_checkpoint_duration_seconds", "Checkpoint generations written, from cut to commit.",
             MetricType::Summary)
        .metric.push_back(std::move(m));
  }
  e.gauge("bloomcrawl_checkpoint_last_pause_seconds", "How long the last checkpoint paused the crawl.",
          "/checkpoint/last_pause_ms", 1e-3);
  e.gauge("bloomcrawl_checkpoint_last_duration_seconds", "The last checkpoint's duration, from cut to commit.",
          "/checkpoint/last_seconds");
  e.counter("bloomcrawl_checkpoint_written_bytes_total", "Bytes written by checkpoints.",
            "/checkpoint/total_bytes_written");
  e.gauge("bloomcrawl_checkpoint_last_written_bytes", "Bytes written by the last checkpoint.",
          "/checkpoint/last_bytes_written");
}

}  // namespace

std::string prometheus_text(const nlohmann::json& live_report) {
  Exposition e(live_report);
  fetch_metrics(e, live_report);
  link_metrics(e);
  filter_and_frontier_metrics(e);
  revisit_metrics(e);
  checkpoint_metrics(e, live_report);
  return e.text();
}

}  // namespace bloomcrawl
