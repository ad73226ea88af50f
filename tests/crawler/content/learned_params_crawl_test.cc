// Learned parameter rules over a whole crawl of a loopback shop (docs/content-seen.md, "Learned
// parameters"): a visit id fresh on every render, a sort order and a referrer never change a page
// and are learned and dropped; pagination and item ids change it, and no page of them is lost; a
// parameter that changes the page only for some items is never learned; pages that differ per
// render by a timestamp are near-identical evidence. Compared with the same crawl without learning:
// far fewer fetches per distinct page.
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crawler/content/page_text.h"
#include "crawler/content/param_learner.h"
#include "crawler/content/simhash.h"
#include "crawler/fetch/payload_digest.h"
#include "crawler/pipeline/crawl_settings.h"
#include "crawler/pipeline/crawler.h"
#include "tests/support/fetch_loopback_server.h"
#include "tests/support/page_records.h"
#include "tests/support/shell_run.h"
#include "tests/support/spawn.h"
#include "tests/support/temp_dir.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;
using testing::LoopbackHttpServer;

constexpr int kItems = 40;
constexpr int kListPages = 6;

// Words of an item's description: enough text that a timestamp changes few SimHash bits.
std::string description(int item) {
  std::string text;
  uint32_t x = uint32_t(item) * 2654435761u + 1;
  for (int i = 0; i < 300; ++i) text += "w" + std::to_string((x = x * 1103515245u + 12345u) % 3000) + " ";
  return text;
}

// The shop's pages. Every link carries a visit id fresh on every render (`vid`), so no two
// renders of a page with links are byte-identical; items with odd ids also show a render counter (a
// per-render timestamp). A list page links the next one and its items; an item links its neighbour
// and itself with a sort order and a referrer, and /stock?id=N&v=0|1, whose v changes the page
// (another paragraph) only for every fourth item; stock pages have no links and are byte-identical
// otherwise.
class ShopPages {
 public:
  std::string home() { return "<a href='/list?page=1&vid=" + vid() + "'>shop</a>"; }
  std::string list(int page) {
    std::string body = "<html><head><title>List " + std::to_string(page) + "</title></head><body>";
    if (page < kListPages) body += "<a href='/list?page=" + std::to_string(page + 1) + "&vid=" + vid() + "'>next</a>";
    for (int i = (page - 1) * kItems / kListPages; i < page * kItems / kListPages; ++i) body += item_link(i);
    return body + description(1000 + page) + "</body></html>";
  }
  std::string item(int id) {
    std::string body = "<html><head><title>Item " + std::to_string(id) + "</title></head><body>";
    body += item_link((id + 1) % kItems) + item_link(id, "&sort=price") + item_link(id, "&ref=nav");
    body += "<a href='/stock?id=" + std::to_string(id) + "&v=0'>s</a><a href='/stock?id=" + std::to_string(id) +
            "&v=1'>s</a>";
    if (id % 2 == 1) body += "<p>rendered " + std::to_string(renders_.fetch_add(1)) + "</p>";
    return body + description(id) + "</body></html>";
  }
  static std::string stock(int id, int v) {
    const std::string changed = id % 4 == 0 ? description(3000 + v) : "";
    return "<html><title>Stock</title>" + description(2000 + id) + changed + "</html>";
  }

 private:
  std::string vid() { return std::to_string(visits_.fetch_add(1)); }
  std::string item_link(int id, const std::string& extra = "") {
    return "<a href='/item?id=" + std::to_string(id) + extra + "&vid=" + vid() + "'>item</a>";
  }
  std::atomic<int> visits_{0};
  std::atomic<int> renders_{0};
};

class Shop {
 public:
  Shop() {
    site_.server().set_pre_routing_handler([this](const httplib::Request&, httplib::Response&) {
      {
        std::lock_guard lock(mu_);
        ++requests_;
      }
      requested_.notify_all();
      return httplib::Server::HandlerResponse::Unhandled;
    });
    site_.server().Get(
        "/", [this](const httplib::Request&, httplib::Response& res) { res.set_content(pages_.home(), "text/html"); });
    site_.server().Get("/list", [this](const httplib::Request& req, httplib::Response& res) {
      res.set_content(pages_.list(std::stoi(req.get_param_value("page"))), "text/html");
    });
    site_.server().Get("/item", [this](const httplib::Request& req, httplib::Response& res) {
      res.set_content(pages_.item(std::stoi(req.get_param_value("id"))), "text/html");
    });
    site_.server().Get("/stock", [](const httplib::Request& req, httplib::Response& res) {
      const std::string v = req.get_param_value("v");
      res.set_content(ShopPages::stock(std::stoi(req.get_param_value("id")), v.empty() ? 2 : std::stoi(v)),
                      "text/html");
    });
    site_.start();
  }
  std::string url(const std::string& path) const { return site_.url(path); }
  void stop() { site_.stop(); }
  bool wait_for_requests(int n) {
    std::unique_lock lock(mu_);
    return requested_.wait_for(lock, std::chrono::seconds(60), [&] { return requests_ >= n; });
  }

 private:
  ShopPages pages_;
  LoopbackHttpServer site_;
  std::mutex mu_;
  std::condition_variable requested_;
  int requests_ = 0;
};

struct ShopCrawl {  // NOLINT(bugprone-exception-escape): json's noexcept move cannot throw (crawl_run.h)
  nlohmann::json report;
  std::map<std::string, std::vector<nlohmann::json>> pages;
  uint64_t fetched = 0;              // pages.jsonl's "ok" records
  std::set<std::string> items_seen;  // /item ids fetched
  std::set<std::string> lists_seen;  // /list pages fetched
  std::set<std::string> stock_seen;  // /stock?id=N&v=V fetched, as "N/V"
};

ShopCrawl crawl_shop(bool learn) {
  Shop shop;
  testing::TempDir out;
  CrawlConfig c;
  c.seeds.urls = {shop.url("/")};
  c.scope.allowed_hosts = {"127.0.0.1"};
  c.scope.max_pages = 500;  // without learning, the fresh visit ids never end
  c.scope.max_depth = -1;   // the list pages chain deeper than the default
  c.politeness.delay_ms = 0;
  c.fetch.allowed_ranges = {"127.0.0.0/8"};
  c.output.directory = out.path().string();
  c.content_seen.learn_params = learn;
  ShopCrawl r;
  r.report = Crawler(settings_from_config(c)).run();
  shop.stop();
  r.pages = testing::read_page_records(out.path());
  for (const auto& [url, lines] : r.pages) {
    if (lines.back()["outcome"] != "ok") continue;
    ++r.fetched;
    const std::string path = url.substr(url.find('/', 8));
    auto param = [&](const std::string& name) {
      const size_t at = path.find(name + "=");
      return at == std::string::npos ? std::string("-")
                                     : path.substr(at + name.size() + 1, path.find('&', at) - at - name.size() - 1);
    };
    if (path.starts_with("/item?")) r.items_seen.insert(param("id"));
    if (path.starts_with("/list?")) r.lists_seen.insert(param("page"));
    if (path.starts_with("/stock?")) r.stock_seen.insert(param("id") + "/" + param("v"));
  }
  return r;
}

TEST(LearnedParamsCrawlTest, ParametersThatNeverChangeAPageAreLearnedAndNoPageIsLost) {
  const ShopCrawl learned = crawl_shop(true);
  ASSERT_EQ(learned.report["crawl"]["stopped_by"], "done") << learned.report["crawl"].dump();
  std::map<std::string, bool> rules;
  for (const nlohmann::json& r : learned.report["content_seen"]["rules"]) rules[r["param"]] = r["in_force"];
  EXPECT_TRUE(rules["vid"]) << learned.report["content_seen"].dump();
  EXPECT_FALSE(rules.contains("page") && rules["page"]) << "pagination changes the page";
  EXPECT_FALSE(rules.contains("id") && rules["id"]) << "item ids change the page";
  EXPECT_FALSE(rules.contains("v") && rules["v"]) << "v changes some pages: never learned";
  // No page of the parameters that matter lost: every item, every list page.
  EXPECT_EQ(learned.items_seen.size(), size_t(kItems));
  EXPECT_EQ(learned.lists_seen.size(), size_t(kListPages));
  // Every URL admitted has its record: fetched, or dropped as a learned duplicate. Renders of an
  // item fetched at two URLs (visit ids in their links) are near duplicates: annotated only.
  uint64_t near = 0;
  for (const auto& [url, lines] : learned.pages) {
    const std::string outcome = lines.back()["outcome"];
    EXPECT_TRUE(outcome == "ok" || outcome == "learned_duplicate") << url << ": " << outcome;
    if (!lines.back().contains("near_duplicate_of")) continue;
    ++near;
    EXPECT_GT(lines.back()["links_found"].get<int>(), 0) << url << ": annotated, its links still followed";
  }
  EXPECT_GT(near, 0u);
  EXPECT_EQ(learned.report["content_seen"]["near_duplicates"], near);

  const ShopCrawl plain = crawl_shop(false);
  EXPECT_TRUE(plain.report["content_seen"]["rules"].empty());
  // Distinct pages: items, list pages, stock pages (every fourth item's two).
  const double distinct = kItems + kListPages + kItems + kItems / 4.0;
  const double learned_ratio = double(learned.fetched) / distinct;
  const double plain_ratio = double(plain.fetched) / distinct;
  std::printf("fetches per distinct page: learned %.2f (%llu), without learning %.2f (%llu)\n", learned_ratio,
              (unsigned long long)learned.fetched, plain_ratio, (unsigned long long)plain.fetched);
  EXPECT_LT(learned_ratio, plain_ratio / 2);
}

std::map<std::string, nlohmann::json> rules_by_param(const nlohmann::json& rules) {
  std::map<std::string, nlohmann::json> out;
  for (const nlohmann::json& r : rules) out[r["param"].get<std::string>()] = r;
  return out;
}

// The bloomcrawl program crawling the shop, a generation every 10 pages, killed (-9) once `ready()`
// holds (looked at again until then, for at most a minute); returns its command line (for the resume).
std::vector<std::string> crawl_shop_until_killed(Shop& shop, const fs::path& dir, const nlohmann::json& content_seen,
                                                 uint64_t max_pages, const std::function<bool()>& ready) {
  const nlohmann::json c = {
      {"seeds", {{"urls", {shop.url("/")}}}},
      {"scope", {{"allowed_hosts", {"127.0.0.1"}}, {"max_depth", -1}, {"max_pages", max_pages}}},
      {"politeness", {{"delay_ms", 0}}},
      {"fetch", {{"allowed_ranges", {"127.0.0.0/8"}}}},
      {"output", {{"directory", (dir / "out").string()}}},
      {"checkpoint", {{"directory", (dir / "ckpt").string()}, {"interval_s", 0}, {"interval_pages", 10}}},
      {"logging", {{"progress", "never"}}},
      {"content_seen", content_seen},
  };
  std::ofstream(dir / "crawl.json") << c.dump(2);
  std::vector<std::string> args = {BLOOMCRAWL_BIN, "crawl", "-c", (dir / "crawl.json").string()};
  const pid_t first = testing::spawn_to_files(args, (dir / "stdout").string(), (dir / "stderr").string());
  EXPECT_GT(first, 0);
  const bool reached = ready();
  kill(first, SIGKILL);
  EXPECT_EQ(testing::wait_exit_code(first), 128 + SIGKILL);
  EXPECT_TRUE(reached);
  return args;
}

// `bloomcrawl inspect` of the checkpoints in `dir`: its JSON; null when it fails (a crawl still
// running may remove a generation as it reads it).
nlohmann::json inspect_checkpoints(const fs::path& dir) {
  const fs::path inspected = dir / "inspect.json";
  // The JSON on stdout into a file, the summary on stderr left out.
  if (testing::run_shell("{ " + std::string(BLOOMCRAWL_BIN) + " inspect " + (dir / "ckpt").string() + " >" +
                         inspected.string() + " 2>/dev/null; }")
          .exit_code != 0) {
    return nullptr;
  }
  return nlohmann::json::parse(std::ifstream(inspected), nullptr, false);
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The rules are crawl state: a kill -9 once they are made, and `inspect` lists them as the resume
// restores them; the resume does not learn them again (no "learned" line) and ends with them.
TEST(LearnedParamsCrawlTest, RulesSurviveAKill9AndTheResumeRestoresThem) {
  Shop shop;
  const testing::TempDir dir;
  const fs::path out = dir.path() / "out";
  // The rules are made within the first ~60 requests (5 agreeing pairs each); 150 leaves a few
  // checkpoints after them.
  std::vector<std::string> args = crawl_shop_until_killed(shop, dir.path(), nlohmann::json::object(), 500,
                                                          [&] { return shop.wait_for_requests(150); });
  const nlohmann::json inspect = inspect_checkpoints(dir.path());
  ASSERT_TRUE(inspect.is_object());
  const auto before = rules_by_param(inspect["learned_rules"]);
  ASSERT_TRUE(before.contains("vid")) << inspect["learned_rules"].dump();
  EXPECT_TRUE(before.at("vid")["in_force"]);

  args.emplace_back("--resume");
  const pid_t resumed =
      testing::spawn_to_files(args, (dir.path() / "stdout").string(), (dir.path() / "stderr2").string());
  ASSERT_EQ(testing::wait_exit_code(resumed), 0);
  shop.stop();
  const std::string resumed_log = file_text(dir.path() / "stderr2");
  EXPECT_EQ(resumed_log.find("parameter 'vid' learned"), std::string::npos) << "learned again: not restored";
  const nlohmann::json report = nlohmann::json::parse(std::ifstream(out / "report.json"));
  const auto after = rules_by_param(report["content_seen"]["rules"]);
  ASSERT_TRUE(after.contains("vid"));
  EXPECT_TRUE(after.at("vid")["in_force"]);
  EXPECT_GE(after.at("vid")["agreeing"].get<uint32_t>(), before.at("vid")["agreeing"].get<uint32_t>());
  // The digest index across the kill (the journal replayed over the generation's copy): each body
  // has one first capture, and every duplicate names a page fetched with the same body.
  const auto pages = testing::read_page_records(out);
  std::map<std::string, std::set<std::string>> firsts;  // payload digest -> URLs fetched first with it
  for (const auto& [url, lines] : pages) {
    const nlohmann::json& last = lines.back();
    const std::string outcome = last["outcome"];
    EXPECT_TRUE(outcome == "ok" || outcome == "learned_duplicate") << url << ": " << outcome;
    if (outcome != "ok" || last["status"] != 200 || !last.contains("payload_digest")) continue;
    if (!last.contains("duplicate_of")) {
      firsts[last["payload_digest"]].insert(url);
      continue;
    }
    const auto first = pages.find(last["duplicate_of"].get<std::string>());
    ASSERT_NE(first, pages.end()) << url << " is a duplicate of a page never recorded";
    EXPECT_EQ(first->second.back().value("payload_digest", ""), last["payload_digest"]) << url;
  }
  for (const auto& [digest, urls] : firsts) EXPECT_EQ(urls.size(), 1u) << digest << " first at several URLs";
}

// Evidence short of a rule is crawl state too: no rule is possible in the first run (a million
// pairs needed), killed (-9) once `inspect` shows pairs counted for `vid` (the evidence is saved
// once a second); after the kill it lists them, A. The resume,
// needing A pairs now (learn_min_pairs may change at a resume), makes the rule at its first pair,
// with A + 1: it counted on from A (a learner that had not restored them would make it at A).
TEST(LearnedParamsCrawlTest, EvidenceShortOfARuleSurvivesAKill9AndTheResumeCountsOn) {
  Shop shop;
  const testing::TempDir dir;
  const auto vid_counted = [&] {
    const nlohmann::json now = inspect_checkpoints(dir.path());
    return now.is_object() && rules_by_param(now.value("learned_evidence", nlohmann::json::array())).contains("vid");
  };
  std::vector<std::string> args =
      crawl_shop_until_killed(shop, dir.path(), {{"learn_min_pairs", 1000000}}, 100000, [&] {
        for (const auto end = std::chrono::steady_clock::now() + std::chrono::minutes(1);
             std::chrono::steady_clock::now() < end;) {
          if (vid_counted()) return true;
        }
        return false;
      });
  const nlohmann::json inspect = inspect_checkpoints(dir.path());
  ASSERT_TRUE(inspect.is_object());
  EXPECT_TRUE(inspect["learned_rules"].empty()) << inspect["learned_rules"].dump();
  const auto before = rules_by_param(inspect["learned_evidence"]);
  ASSERT_TRUE(before.contains("vid")) << inspect["learned_evidence"].dump();
  const uint32_t counted = before.at("vid")["agreeing"];
  ASSERT_GT(counted, 0u);

  nlohmann::json c = nlohmann::json::parse(std::ifstream(dir.path() / "crawl.json"));
  c["content_seen"]["learn_min_pairs"] = counted;
  // The rules end the visit ids well before.
  c["scope"]["max_pages"] = inspect["resume"]["pages_done"].get<uint64_t>() + 300;
  std::ofstream(dir.path() / "crawl.json") << c.dump(2);
  args.emplace_back("--resume");
  const pid_t resumed =
      testing::spawn_to_files(args, (dir.path() / "stdout").string(), (dir.path() / "stderr2").string());
  ASSERT_EQ(testing::wait_exit_code(resumed), 0) << file_text(dir.path() / "stderr2");
  shop.stop();
  const std::string resumed_log = file_text(dir.path() / "stderr2");
  EXPECT_NE(resumed_log.find("parameter 'vid' learned not to change its pages (" + std::to_string(counted + 1) +
                             " agreeing pairs"),
            std::string::npos)
      << "expected the rule at " << counted + 1 << " pairs:\n"
      << resumed_log;
}

PageContent content_of(const std::string& body) {
  const PageText text = page_text(body);
  return {.digest = sha1_base32_digest(body), .simhash = simhash64(text.text), .title = text.title};
}

// The learner's criterion (same digest, or SimHash within 3 bits and the same title) over the
// shop's pairs whose truth is known: two renders of one item (the same page); neighbouring items,
// list pages (different pages); the two v of each stock page (the same but for every fourth).
TEST(LearnedParamsCrawlTest, TheNearIdenticalCriterionsPrecisionOnTheShop) {
  ShopPages shop;
  int agree_same = 0, agree_different = 0, disagree_same = 0, disagree_different = 0, unsure = 0;
  auto judge = [&](const std::string& a, const std::string& b, bool truth) {
    const PairJudgment j = judge_pair(content_of(a), content_of(b), /*near=*/true);
    if (j == PairJudgment::kUnsure) {
      ++unsure;
      return;
    }
    const bool agree = j == PairJudgment::kSame;
    (agree ? (truth ? agree_same : agree_different) : (truth ? disagree_same : disagree_different))++;
  };
  for (int id = 0; id < kItems; ++id) {
    judge(shop.item(id), shop.item(id), true);
    judge(shop.item(id), shop.item((id + 1) % kItems), false);
    judge(ShopPages::stock(id, 0), ShopPages::stock(id, 1), id % 4 != 0);
  }
  for (int page = 1; page < kListPages; ++page) judge(shop.list(page), shop.list(page + 1), false);
  const double precision = double(agree_same) / double(agree_same + agree_different);
  const double recall = double(agree_same) / double(agree_same + disagree_same + unsure);
  std::printf(
      "near-identical criterion on the shop: precision %.3f (%d of %d agreeing pairs), recall %.3f, %d unsure, "
      "%d of %d different pages called different\n",
      precision, agree_same, agree_same + agree_different, recall, unsure, disagree_different,
      disagree_different + agree_different);
  EXPECT_EQ(agree_different, 0);
  EXPECT_EQ(disagree_same, 0) << "a per-render counter made two renders of one item disagree";
  EXPECT_GT(recall, 0.9);
}

}  // namespace
}  // namespace bloomcrawl
