// prometheus_text(): the exposition of a report, checked sample by sample and by promtool's linter.
#include "crawler/observe/prometheus_text.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/promtool.h"

namespace bloomcrawl {
namespace {

// A live report as Crawler::live_report() writes it, with every section.
nlohmann::json full_report() {
  return nlohmann::json::parse(R"({
    "fetches": {"pages_fetched": 12, "failures": 2, "failures_by_outcome": {"timeout": 2},
                "status": {"2xx": 9, "3xx": 1, "4xx": 2, "5xx": 0}, "bytes_received": 4096,
                "robots_fetches": 3, "robots_disallowed": 4, "robots_unavailable": 0, "host_unreachable": 1},
    "links": {"discovered": 100, "invalid": 1, "unsupported_scheme": 2, "too_long": 0, "out_of_scope": 10,
              "not_followed": 3, "too_deep": 0, "in_scope": 84, "duplicates": 60, "new": 24,
              "refused_by_frontier": 0},
    "duplicates_avoided": {"total": 65, "links": 60, "redirects": 5, "by_kind": {"a": 55, "img": 5}},
    "fetch_latency": {"bounds_seconds": [0.1, 1], "cumulative": [7, 11, 12], "count": 12, "sum_seconds": 3.5},
    "seen_filter": {"keys": 24, "capacity": 1000, "layers": 1, "bytes": 2048, "estimated_fpr": 1e-9,
                    "estimated_false_positives": 2e-8},
    "frontier": {"queued": 5, "hosts": 3, "ready_hosts": 2, "in_flight": 1},
    "audit": {"false_positives": 0},
    "revisits": {"queued": 10, "revisited": 9, "not_modified": 4, "unchanged": 2, "changed": 2, "gone": 1,
                 "untrusted_not_modified": 1, "new_urls": 5, "bytes_saved": 8192, "next_due_ms": 1765000000500,
                 "due_within_hour": 3},
    "checkpoint": {"taken": 2, "failed": 0, "seconds_total": 0.5, "last_seconds": 0.2, "last_pause_ms": 3,
                   "total_bytes_written": 10000, "last_bytes_written": 6000}
  })");
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.starts_with(line + "\n");
}

TEST(PrometheusTextTest, EveryFieldBecomesItsSample) {
  const std::string text = prometheus_text(full_report());
  for (const char* line : {
           R"(bloomcrawl_pages_fetched_total{status_class="2xx"} 9)",
           R"(bloomcrawl_pages_fetched_total{status_class="4xx"} 2)",
           "bloomcrawl_received_bytes_total 4096",
           R"(bloomcrawl_fetch_errors_total{kind="timeout"} 2)",
           R"(bloomcrawl_fetch_duration_seconds_bucket{le="0.1"} 7)",
           R"(bloomcrawl_fetch_duration_seconds_bucket{le="1"} 11)",
           R"(bloomcrawl_fetch_duration_seconds_bucket{le="+Inf"} 12)",
           "bloomcrawl_fetch_duration_seconds_count 12",
           "bloomcrawl_fetch_duration_seconds_sum 3.5",
           "bloomcrawl_links_found_total 100",
           "bloomcrawl_links_in_scope_total 84",
           "bloomcrawl_links_new_total 24",
           "bloomcrawl_links_duplicate_total 60",
           R"(bloomcrawl_links_dropped_total{reason="out_of_scope"} 10)",
           R"(bloomcrawl_duplicates_avoided_total{kind="a"} 55)",
           R"(bloomcrawl_duplicates_avoided_total{kind="redirect"} 5)",
           R"(bloomcrawl_robots_txt_blocked_urls_total{reason="disallowed"} 4)",
           R"(bloomcrawl_robots_txt_blocked_urls_total{reason="host_unreachable"} 1)",
           "bloomcrawl_robots_txt_fetches_total 3",
           "bloomcrawl_seen_filter_keys 24",
           "bloomcrawl_seen_filter_capacity_keys 1000",
           "bloomcrawl_seen_filter_bytes 2048",
           "bloomcrawl_seen_filter_layers 1",
           "bloomcrawl_seen_filter_estimated_fpr_ratio 1e-09",
           "bloomcrawl_seen_filter_audited_false_positives_total 0",
           "bloomcrawl_frontier_queued_urls 5",
           "bloomcrawl_frontier_hosts 3",
           "bloomcrawl_frontier_ready_hosts 2",
           "bloomcrawl_frontier_in_flight_urls 1",
           R"(bloomcrawl_revisits_total{outcome="not_modified"} 4)",
           R"(bloomcrawl_revisits_total{outcome="unchanged"} 2)",
           R"(bloomcrawl_revisits_total{outcome="changed"} 2)",
           R"(bloomcrawl_revisits_total{outcome="gone"} 1)",
           "bloomcrawl_revisits_untrusted_not_modified_total 1",
           "bloomcrawl_revisit_new_urls_total 5",
           "bloomcrawl_revisit_bytes_saved_total 8192",
           "bloomcrawl_revisit_next_due_timestamp_seconds 1765000000.5",
           "bloomcrawl_revisits_due_within_hour 3",
           "bloomcrawl_checkpoints_total 2",
           "bloomcrawl_checkpoint_duration_seconds_count 2",
           "bloomcrawl_checkpoint_duration_seconds_sum 0.5",
           "bloomcrawl_checkpoint_last_pause_seconds 0.003",
           "bloomcrawl_checkpoint_written_bytes_total 10000",
           "bloomcrawl_checkpoint_last_written_bytes 6000",
       }) {
    EXPECT_TRUE(has_line(text, line)) << line << "\nnot in:\n" << text;
  }
}

TEST(PrometheusTextTest, SectionsTheCrawlDoesNotHaveAreLeftOut) {
  nlohmann::json r = full_report();
  r.erase("audit");
  r.erase("checkpoint");
  const std::string text = prometheus_text(r);
  EXPECT_EQ(text.find("audited"), std::string::npos) << text;
  EXPECT_EQ(text.find("checkpoint"), std::string::npos) << text;
  EXPECT_NE(text.find("bloomcrawl_links_new_total 24"), std::string::npos);
}

TEST(PrometheusTextTest, PromtoolAcceptsTheExposition) {
  if (!testing::have_promtool()) GTEST_SKIP() << "promtool (Debian package prometheus) is not installed";
  for (const nlohmann::json& report : {full_report(), nlohmann::json::object()}) {
    const testing::PromtoolResult r = testing::promtool_check(prometheus_text(report));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output, "");
  }
}

}  // namespace
}  // namespace bloomcrawl
