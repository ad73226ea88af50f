// ParamLearner: per host, the query parameters that do not change a page, learned from the pages
// the crawl fetches (DUST, Bar-Yossef, Keidar and Schonfeld, WWW 2007; docs/content-seen.md,
// "Learned parameters"). Plain inputs: URLs and what their bodies were.
//
// Contract:
// - Evidence: two fetched URLs of one host that differ only in parameter p (its value, or its
//   presence: every other byte of the URL equal) form a pair on (host, p). The pair agrees when the
//   two are the same page (judge_pair(): identical payload digests, or near-identical texts),
//   disagrees when they are clearly different, and counts for nothing in between.
// - A rule (host, p) is made after `min_pairs` agreeing pairs and none disagreeing; one disagreeing
//   pair withdraws it, and p is never learned for that host again: a rule never touches a parameter
//   that changed a page.
// - rewrite() drops every parameter its host's rules name from a URL (before the seen filter).
// - Memory is bounded: at most kMaxPages pages are remembered as evidence (later ones still find
//   pairs with those), and each group of URLs equal but for one parameter keeps kGroupSize of them.
// - Thread-safe: every member takes the learner's lock; rewrite() of a crawl without rules does not.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace bloomcrawl {

// What a page's body was, for comparing two renders.
struct PageContent {
  std::string digest;    // the payload digest; empty: unknown (no pair is judged)
  uint64_t simhash = 0;  // simhash64() of its text; 0: none
  std::string title;     // its <title>, as text
};

// What a pair of renders says (docs/content-seen.md, "The near-identical criterion"): kSame for
// identical digests, or (with `near`) texts within kNearDuplicateBits SimHash bits and the same
// non-empty title; kDifferent for another title, texts more than kClearlyDifferentBits apart, or
// (without texts to compare) other digests; kUnsure between the two (a per-render difference too
// big to call the same, too small to call another page): no evidence either way.
enum class PairJudgment { kSame, kDifferent, kUnsure };
inline constexpr int kClearlyDifferentBits = 10;
PairJudgment judge_pair(const PageContent& a, const PageContent& b, bool near);
inline bool same_page(const PageContent& a, const PageContent& b, bool near) {
  return judge_pair(a, b, near) == PairJudgment::kSame;
}

struct ParamRule {
  std::string host;          // the URL's authority, as in the URL
  std::string param;         // the parameter's name, as in the URL
  uint32_t agreeing = 0;     // agreeing pairs seen
  uint32_t disagreeing = 0;  // disagreeing pairs seen (a rule in force has none)
  bool in_force = true;      // false: withdrawn, or never made (p changed a page)
  bool operator==(const ParamRule&) const = default;
};

struct RuleChange {
  enum class Kind { kMade, kWithdrawn };
  Kind kind;
  ParamRule rule;
};

class ParamLearner {
 public:
  static constexpr size_t kMaxPages = 200000;
  static constexpr size_t kGroupSize = 4;

  ParamLearner(uint32_t min_pairs, bool near);

  // A page fetched at `url` (canonical, http or https, no fragment) with `content`: its pairs with
  // the pages before it, and the rules they made or withdrew.
  std::vector<RuleChange> observe(std::string_view url, const PageContent& content);
  // `url` without the parameters its host's rules drop (`url` itself when none applies).
  std::string rewrite(std::string_view url) const;
  // The rules in force, by host and parameter.
  std::vector<ParamRule> rules() const;
  // The crawl state: the rules in force and the parameters that changed a page (never learned),
  // by host and parameter; restore() puts a state() or an evidence() back (a resume).
  std::vector<ParamRule> state() const;
  void restore(const std::vector<ParamRule>& state);
  // Evidence short of a rule (agreeing pairs, none disagreeing, not in force), at most `limit`
  // entries, the most agreeing pairs first, then by host and parameter: a resume that restores it
  // counts on from there. The pages the pairs were made of are not kept: a pair needs both its
  // pages fetched by the same run.
  std::vector<ParamRule> evidence(size_t limit) const;
  // Whether a pair was counted since the last call that returned true, and `interval` has passed
  // since then: the caller saves evidence() then (evidence changes with nearly every page).
  bool evidence_due(std::chrono::steady_clock::time_point now, std::chrono::steady_clock::duration interval);

 private:
  struct Evidence {
    uint32_t agreeing = 0;
    uint32_t disagreeing = 0;
    bool in_force = false;
  };
  struct Member {
    std::string value;  // p's values in the URL, joined ("" when absent)
    PageContent content;
  };
  // Under mu_: a pair on (host, p) judged; a rule made or withdrawn goes into `changes`.
  void pair(const std::string& host, const std::string& param, const PageContent& a, const PageContent& b,
            std::vector<RuleChange>& changes);

  const uint32_t min_pairs_;
  const bool near_;
  mutable std::mutex mu_;
  std::atomic<size_t> in_force_{0};
  bool evidence_changed_ = false;                                     // under mu_: a pair counted since evidence_due()
  std::chrono::steady_clock::time_point evidence_due_at_;             // under mu_: the last evidence_due() that was
  std::map<std::pair<std::string, std::string>, Evidence> evidence_;  // by (host, param)
  std::unordered_map<std::string, PageContent> pages_;                // by URL
  // URLs equal but for p, by p + '\0' + the URL without p.
  std::unordered_map<std::string, std::vector<Member>> groups_;
  // The parameters each URL-without-p has groups for, by that URL: a page fetched at it pairs with
  // them (p absent against p present).
  std::unordered_map<std::string, std::vector<std::string>> params_by_base_;
};

}  // namespace bloomcrawl
