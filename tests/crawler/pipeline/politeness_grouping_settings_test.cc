// politeness.group_by into the crawler's settings: "domain" and "host" decide each host's group
// when the frontier creates or restores it; "ip" groups after a fetch (Crawler::group_by_address).
#include <gtest/gtest.h>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"

namespace bloomcrawl {
namespace {

CrawlerSettings settings_grouped_by(const std::string& group_by) {
  CrawlConfig c;
  c.seeds.urls = {"https://www.example.com/"};
  c.politeness.group_by = group_by;
  return settings_from_config(c);
}

TEST(PolitenessGroupingSettings, DomainGroupsHostsByRegistrableDomain) {
  const CrawlerSettings s = settings_grouped_by("domain");
  ASSERT_TRUE(s.frontier.group_of);
  EXPECT_EQ(s.frontier.group_of("www.example.co.uk:8080"), "example.co.uk");
  EXPECT_EQ(s.frontier.group_of("127.0.0.2:8080"), "");
  EXPECT_FALSE(s.group_by_ip);
}

TEST(PolitenessGroupingSettings, HostKeepsEveryHostOnItsOwn) {
  const CrawlerSettings s = settings_grouped_by("host");
  ASSERT_TRUE(s.frontier.group_of);
  EXPECT_EQ(s.frontier.group_of("www.example.com"), "");
  EXPECT_FALSE(s.group_by_ip);
}

TEST(PolitenessGroupingSettings, IpGroupsByAddressOnceFetched) {
  const CrawlerSettings s = settings_grouped_by("ip");
  EXPECT_TRUE(s.group_by_ip);
  EXPECT_FALSE(s.frontier.group_of) << "a restore keeps the checkpoint's address groups";
}

}  // namespace
}  // namespace bloomcrawl
