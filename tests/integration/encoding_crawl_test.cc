// A crawl of pages in legacy encodings: the crawler requests each link with the bytes a browser
// sends (the path UTF-8 percent-encoded, the query in the page's encoding), as the server sees
// them in the raw request target.
#include <map>
#include <mutex>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/fetch_loopback_server.h"
#include "tests/support/loopback_crawl.h"

namespace bloomcrawl {
namespace {

struct Reply {
  std::string content_type;
  std::string body;
};

TEST(EncodingCrawl, LinksOfGbkAndWindows1252PagesAreRequestedWithTheBrowsersBytes) {
  // Keyed by the raw request target: a link requested with other bytes gets a 404 and is seen.
  const std::map<std::string, Reply> site_pages = {
      // GBK, declared by <meta charset=gb2312> only: /中文.html, /s?q=布隆 and the next page.
      {"/",
       {"text/html",
        "<html><head><meta charset=\"gb2312\"><title>\xD6\xD0\xCE\xC4</title></head><body>"
        "<a href=\"/\xD6\xD0\xCE\xC4.html\">a</a> <a href=\"/s?q=\xB2\xBC\xC2\xA1\">b</a> <a href=\"/latin\">c</a>"}},
      // windows-1252, declared as latin1 in the header: /café.html, /s2?q=é.
      {"/latin", {"text/html; charset=latin1", "<p><a href=\"/caf\xE9.html\">a</a> <a href=\"/s2?q=\xE9\">b</a>"}},
      {"/%E4%B8%AD%E6%96%87.html", {"text/html", "<p>ok"}},
      {"/s?q=%B2%BC%C2%A1", {"text/html", "<p>ok"}},
      {"/caf%C3%A9.html", {"text/html", "<p>ok"}},
      {"/s2?q=%E9", {"text/html", "<p>ok"}},
  };
  testing::LoopbackHttpServer site;
  std::mutex mu;
  std::multiset<std::string> targets;
  site.server().Get(".*", [&](const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard lock(mu);
      targets.insert(req.target);
    }
    auto page = site_pages.find(req.target);
    if (page == site_pages.end()) {
      res.status = 404;
      return;
    }
    res.set_content(page->second.body, page->second.content_type);
  });
  site.start();

  const nlohmann::json report = testing::crawl_loopback_site(site, std::chrono::milliseconds(0));

  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  EXPECT_EQ(targets, (std::multiset<std::string>{"/robots.txt", "/", "/latin", "/%E4%B8%AD%E6%96%87.html",
                                                 "/s?q=%B2%BC%C2%A1", "/caf%C3%A9.html", "/s2?q=%E9"}));
}

}  // namespace
}  // namespace bloomcrawl
