// Content seen over whole crawls of a loopback site (docs/content-seen.md): a 200 body already
// fetched at another URL makes the page `duplicate_of` that URL in pages.jsonl and its URL record,
// its links are not extracted (unless skip_links_of_duplicates is off), and a long one is archived
// as a WARC revisit record referring to the first capture, which warcio reads back.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "records/record_store.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/page_records.h"
#include "tests/support/temp_dir.h"
#include "tests/support/warcio.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testing::LoopbackHttpServer;

// Long enough for a WARC revisit (content_seen.min_warc_dedup_bytes, 1024 by default) even as the
// server compresses it: numbers of a linear congruential sequence, which compress poorly.
const std::string kArticle = [] {
  std::string body = "<html><body><a href='child'>child</a><a href='/b/a-mirror'>mirror</a><p>";
  uint32_t x = 12345;
  for (int i = 0; i < 600; ++i) body += std::to_string(x = x * 1103515245u + 12345u) + " ";
  return body + "</p></body></html>";
}();

// The bytes of base64 text.
size_t base64_bytes(const std::string& text) {
  const size_t padding = text.ends_with("==") ? 2 : text.ends_with("=") ? 1 : 0;
  return text.size() / 4 * 3 - padding;
}
const std::string kSmall = "<html><a href='/s/small'>small</a></html>";

// "/" links /a and /small. /a (long) links ./child and its byte-identical mirror /b/a-mirror, whose
// own ./child is /b/child; /small (short) links its mirror /s/small.
void serve_mirrors(LoopbackHttpServer& site) {
  site.server().Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("<a href='/a'>a</a><a href='/small'>small</a>", "text/html");
  });
  for (const char* path : {"/a", "/b/a-mirror"}) {
    site.server().Get(path,
                      [](const httplib::Request&, httplib::Response& res) { res.set_content(kArticle, "text/html"); });
  }
  for (const char* path : {"/small", "/s/small"}) {
    site.server().Get(path,
                      [](const httplib::Request&, httplib::Response& res) { res.set_content(kSmall, "text/html"); });
  }
  for (const char* path : {"/child", "/b/child"}) {
    site.server().Get(path,
                      [](const httplib::Request&, httplib::Response& res) { res.set_content("leaf", "text/html"); });
  }
  site.start();
}

class ContentSeenCrawlTest : public ::testing::Test {
 protected:
  nlohmann::json crawl(const std::function<void(CrawlConfig&)>& adjust = {}) {
    serve_mirrors(site_);
    CrawlConfig c;
    c.seeds.urls = {site_.url("/")};
    c.scope.allowed_hosts = {"127.0.0.1"};
    c.politeness.delay_ms = 0;
    c.fetch.allowed_ranges = {"127.0.0.0/8"};
    c.output.directory = out().string();
    c.output.warc.enabled = true;
    if (adjust) adjust(c);
    nlohmann::json report = Crawler(settings_from_config(c)).run();
    site_.stop();
    pages_ = testing::read_page_records(out());
    return report;
  }
  fs::path out() const { return temp_.path() / "out"; }
  const nlohmann::json& page(const std::string& path) {
    const auto it = pages_.find(site_.url(path));
    EXPECT_NE(it, pages_.end()) << path << " has no page record";
    static const nlohmann::json kNone = nlohmann::json::object();
    return it == pages_.end() ? kNone : it->second.back();
  }
  std::vector<nlohmann::json> warc_records() {
    std::vector<fs::path> warcs;
    for (const auto& e : fs::directory_iterator(out() / "warc")) {
      if (e.path().extension() != ".cdxj") warcs.push_back(e.path());
    }
    return testing::read_with_warcio(warcs);
  }

  testing::TempDir temp_;
  LoopbackHttpServer site_;
  std::map<std::string, std::vector<nlohmann::json>> pages_;
};

TEST_F(ContentSeenCrawlTest, AMirrorIsMarkedItsLinksSkippedAndArchivedAsARevisitOfTheFirstCapture) {
  const nlohmann::json report = crawl();
  ASSERT_EQ(report["crawl"]["stopped_by"], "done");
  EXPECT_EQ(page("/b/a-mirror").value("duplicate_of", ""), site_.url("/a"));
  EXPECT_EQ(page("/b/a-mirror")["links_found"], 0);
  EXPECT_EQ(page("/s/small").value("duplicate_of", ""), site_.url("/small"));
  EXPECT_FALSE(page("/a").contains("duplicate_of"));
  EXPECT_EQ(page("/child")["outcome"], "ok");
  EXPECT_FALSE(pages_.contains(site_.url("/b/child"))) << "a duplicate's links were extracted";
  EXPECT_EQ(report["content_seen"]["exact_duplicates"], 2);

  // The URL records say so too.
  std::map<std::string, UrlRecord> records;
  RecordStore::open_read_only(out() / "records")->scan_all([&](const UrlRecord& r) {
    records.emplace(r.url, r);
    return true;
  });
  EXPECT_EQ(records[site_.url("/b/a-mirror")].duplicate_of, site_.url("/a"));
  EXPECT_EQ(records[site_.url("/s/small")].duplicate_of, site_.url("/small"));
  EXPECT_EQ(records[site_.url("/a")].duplicate_of, "");

  // warcio: /a a response, its mirror a revisit referring to it; the short mirror a response.
  std::map<std::string, nlohmann::json> by_target;
  for (const nlohmann::json& r : warc_records()) {
    if (r["type"] == "response" || r["type"] == "revisit") by_target[r["target"].get<std::string>()] = r;
  }
  const nlohmann::json& first = by_target[site_.url("/a")];
  const nlohmann::json& revisit = by_target[site_.url("/b/a-mirror")];
  EXPECT_EQ(first["type"], "response");
  EXPECT_EQ(revisit["type"], "revisit") << revisit.dump();
  EXPECT_EQ(revisit["profile"], "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest");
  EXPECT_EQ(revisit["refers_to_uri"], site_.url("/a"));
  EXPECT_EQ(revisit["refers_to_date"], first["date"]);
  EXPECT_EQ(revisit["payload_digest"], first["payload_digest"]);
  EXPECT_EQ(revisit["payload_base64"], "");
  // What the revisit left out: the first capture's payload, as the server sent it (compressed).
  EXPECT_EQ(report["content_seen"]["warc_bytes_saved"], base64_bytes(first["payload_base64"]));
  EXPECT_GE(base64_bytes(first["payload_base64"]), 1024u);
  EXPECT_EQ(revisit["block_digest"], revisit["block_digest_computed"]);
  EXPECT_EQ(by_target[site_.url("/s/small")]["type"], "response");
}

TEST_F(ContentSeenCrawlTest, WithSkipLinksOffADuplicatesLinksAreFollowed) {
  const nlohmann::json report = crawl([](CrawlConfig& c) { c.content_seen.skip_links_of_duplicates = false; });
  ASSERT_EQ(report["crawl"]["stopped_by"], "done");
  EXPECT_EQ(page("/b/a-mirror").value("duplicate_of", ""), site_.url("/a"));
  EXPECT_EQ(page("/b/child")["outcome"], "ok");
}

TEST_F(ContentSeenCrawlTest, WithTheDigestOffNothingIsMarkedAndEveryBodyArchived) {
  const nlohmann::json report = crawl([](CrawlConfig& c) { c.content_seen.digest = false; });
  ASSERT_EQ(report["crawl"]["stopped_by"], "done");
  EXPECT_FALSE(page("/b/a-mirror").contains("duplicate_of"));
  EXPECT_EQ(page("/b/child")["outcome"], "ok");
  EXPECT_EQ(report["content_seen"]["exact_duplicates"], 0);
  for (const nlohmann::json& r : warc_records()) EXPECT_NE(r["type"], "revisit") << r.dump();
}

}  // namespace
}  // namespace bloomcrawl
