// config_warnings() against config/README.md ("Errors": a field that has no effect in the
// combination given is named in a warning at start). Each case cites the row it holds.
#include "config/config_warnings.h"

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

bool warns_about(const CrawlConfig& c, const std::string& path) {
  for (const std::string& w : config_warnings(c)) {
    if (w.starts_with(path + " ")) return true;
  }
  return false;
}

TEST(ConfigWarnings, TheDefaultConfigHasNone) { EXPECT_TRUE(config_warnings(CrawlConfig{}).empty()); }

// README recrawl: without a checkpoint directory (and not continuous), only a resume revisits,
// and a crawl without one cannot be resumed: the operator is told.
TEST(ConfigWarnings, RecrawlWithoutACheckpointDirectoryIsNamed) {
  CrawlConfig c;
  EXPECT_FALSE(warns_about(c, "/recrawl/enabled"));
  c.recrawl.enabled = true;
  EXPECT_TRUE(warns_about(c, "/recrawl/enabled"));
  c.checkpoint.directory = "ckpt";
  EXPECT_FALSE(warns_about(c, "/recrawl/enabled"));
  c.checkpoint.directory.clear();
  c.recrawl.continuous = true;
  EXPECT_FALSE(warns_about(c, "/recrawl/enabled"));
}

// README politeness.use_sitemaps_as_seeds: "Needs obey_robots ... a warning at start".
TEST(ConfigWarnings, SitemapsWithRobotsOffAreNamed) {
  CrawlConfig c;
  c.politeness.use_sitemaps_as_seeds = true;
  EXPECT_FALSE(warns_about(c, "/politeness/use_sitemaps_as_seeds"));
  c.politeness.obey_robots = false;
  EXPECT_TRUE(warns_about(c, "/politeness/use_sitemaps_as_seeds"));
}

// README politeness.max_crawl_delay_s and the other robots.txt fields: nothing to apply them to
// with obey_robots off.
TEST(ConfigWarnings, CrawlDelayAndRobotsFieldsWithRobotsOffAreNamed) {
  CrawlConfig c;
  c.politeness.obey_robots = false;
  EXPECT_TRUE(config_warnings(c).empty()) << "left at their defaults they were not asked for";
  c.politeness.max_crawl_delay_s = 5;
  c.politeness.robots_ttl_s = 60;
  c.politeness.robots_unreachable_give_up_s = 60;
  c.politeness.robots_agent = "mybot";
  for (const char* field : {"/politeness/max_crawl_delay_s", "/politeness/robots_ttl_s",
                            "/politeness/robots_unreachable_give_up_s", "/politeness/robots_agent"}) {
    EXPECT_TRUE(warns_about(c, field)) << field;
  }
}

// README output.edges: "needs pages_jsonl".
TEST(ConfigWarnings, EdgesWithoutPagesAreNamed) {
  CrawlConfig c;
  c.output.edges = true;
  EXPECT_FALSE(warns_about(c, "/output/edges"));
  c.output.pages_jsonl = false;
  EXPECT_TRUE(warns_about(c, "/output/edges"));
}

// README fetch.accepted_content_types: only HTML is parsed for links.
TEST(ConfigWarnings, AcceptedTypesWithoutHtmlAreNamed) {
  CrawlConfig c;
  c.fetch.accepted_content_types = {"application/pdf"};
  EXPECT_TRUE(warns_about(c, "/fetch/accepted_content_types"));
  c.fetch.accepted_content_types = {"application/pdf", "application/xhtml+xml"};
  EXPECT_FALSE(warns_about(c, "/fetch/accepted_content_types"));
}

// README canonicalization.strip_param_names: "removed when strip_params is on".
TEST(ConfigWarnings, StripParamNamesWithStripParamsOffAreNamed) {
  CrawlConfig c;
  c.canonicalization.strip_param_names = {"ref"};
  EXPECT_TRUE(warns_about(c, "/canonicalization/strip_param_names"));
  c.canonicalization.strip_params = true;
  EXPECT_FALSE(warns_about(c, "/canonicalization/strip_param_names"));
}

}  // namespace
}  // namespace bloomcrawl
