// The shop web (tests/support/shop_site.h, shop_web.h), every case of issue 29 on a generated
// site: its pages are what the site says (mirrors byte-identical, renders that differ, a parameter
// that changes some stock pages), and a crawl with content_seen's defaults fetches every page whose
// parameters matter at a fraction of the fetches the crawl without it spends
// (bench/content_seen_fetches_bench.sh measures the same at a larger size).
#include <string>

#include <gtest/gtest.h>

#include "config/config.h"
#include "tests/support/crawl_run.h"
#include "tests/support/shop_web.h"

namespace bloomcrawl {
namespace {

using testweb::ShopGroup;
using testweb::ShopSite;

TEST(ShopWebTest, ItsPagesAreWhatTheSiteSays) {
  ShopSite site(2, 40);
  const auto page = [&](size_t host, const std::string& path, const std::string& query) {
    return site.render(host, path, query, 80).value_or("(404)");
  };
  // Parameters that never change a page, and the mirror: byte-identical.
  EXPECT_EQ(page(0, "/product", "id=7&ref=catalog"), page(0, "/product", "id=7&sort=name"));
  EXPECT_EQ(page(0, "/product", "id=7"), page(0, "/print/print/product", "id=7"));
  EXPECT_EQ(site.classify("/print/product", "id=7").key, "product 7");
  // Ids and pages matter; no two hosts share a page.
  EXPECT_NE(page(0, "/product", "id=7"), page(0, "/product", "id=8"));
  EXPECT_NE(page(0, "/catalog", "page=1"), page(0, "/catalog", "page=2"));
  EXPECT_NE(page(0, "/product", "id=7"), page(1, "/product", "id=7"));
  // v changes stock pages K % 4 == 0 only; absent, it is v=0.
  EXPECT_EQ(page(0, "/stock", "id=5&v=0"), page(0, "/stock", "id=5&v=1"));
  EXPECT_NE(page(0, "/stock", "id=4&v=0"), page(0, "/stock", "id=4&v=1"));
  EXPECT_EQ(page(0, "/stock", "id=4"), page(0, "/stock", "id=4&v=0"));
  EXPECT_EQ(site.classify("/stock", "id=5&v=1").key, "stock 5");
  EXPECT_EQ(site.classify("/stock", "id=4&v=1").key, "stock 4/1");
  // Renders of a store page differ (visit ids, a counter, a sponsor), of a catalog page never.
  EXPECT_NE(page(0, "/item", "id=3&vid=1"), page(0, "/item", "id=3&vid=1"));
  EXPECT_EQ(site.classify("/item", "id=3&vid=9&sort=price").group, ShopGroup::kPerRender);
  EXPECT_EQ(page(0, "/catalog", "page=2"), page(0, "/catalog", "page=2"));
  // Outside the site: 404.
  EXPECT_EQ(page(0, "/item", "id=40&vid=1"), "(404)");
  EXPECT_EQ(page(0, "/print/item", "id=3"), "(404)");
  EXPECT_EQ(site.classify("/list", "page=0").group, ShopGroup::kOther);
  // Every page is one of the keys a crawl must fetch.
  EXPECT_EQ(site.required_keys().size(), site.distinct_pages(ShopGroup::kIdentical) +
                                             site.distinct_pages(ShopGroup::kPerRender) +
                                             site.distinct_pages(ShopGroup::kSometimes));
}

testweb::ShopWebLog crawl_shop(bool content_seen, uint64_t max_pages) {
  testweb::ShopWeb web({.hosts = 1, .items = 100});
  web.start();
  CrawlConfig c;
  c.seeds.urls = {web.seed_url()};
  c.scope.allowed_hosts = web.host_names();
  c.scope.max_depth = -1;
  c.scope.max_pages = max_pages;
  c.politeness.delay_ms = 0;
  c.politeness.concurrency_per_host = 4;
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.fetch.resolve = {web.resolve_entry()};
  if (!content_seen) {
    c.content_seen.digest = false;
    c.content_seen.learn_params = false;
    c.content_seen.near_duplicates = "off";
  }
  const testing::CrawlRun run = testing::run_crawl_in_temp_dir(c);
  web.stop();
  for (const auto& [url, lines] : run.records) {
    const std::string outcome = lines.back()["outcome"];
    EXPECT_TRUE(outcome == "ok" || outcome == "learned_duplicate" || outcome == "not_fetched_at_stop")
        << url << ": " << outcome;
  }
  return web.log();
}

double per_page(const testweb::ShopGroupLog& g) { return double(g.fetches) / double(g.fetched_pages); }

TEST(ShopWebTest, ContentSeenFetchesEveryPageWhoseParametersMatterAtAFractionOfTheFetches) {
  const testweb::ShopWebLog on = crawl_shop(true, 0);
  EXPECT_TRUE(on.missing.empty()) << on.missing.size() << " pages never fetched, first " << on.missing.front();
  const testweb::ShopWebLog off = crawl_shop(false, 600);
  std::printf("fetches per distinct page on/off: identical %.2f/%.2f, per render %.2f/%.2f; off missed %zu pages\n",
              per_page(on.identical), per_page(off.identical), per_page(on.per_render), per_page(off.per_render),
              off.missing.size());
  // Small sites leave the learner's warm-up a large share (the bench measures the figures on a
  // site of thousands of pages); off, fresh visit ids keep the crawl among a few pages.
  EXPECT_LT(per_page(on.per_render), 2.5);
  EXPECT_LT(per_page(on.identical), 2.5);
  EXPECT_GT(per_page(off.per_render), 2 * per_page(on.per_render));
  EXPECT_FALSE(off.missing.empty());
}

}  // namespace
}  // namespace bloomcrawl
