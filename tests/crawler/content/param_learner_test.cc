// ParamLearner (crawler/content/param_learner.h): a rule after N agreeing pairs and none
// disagreeing; presence pairs and value pairs; one disagreeing pair withdraws it for good; a
// parameter that changes the page is never learned; near-identical renders agree only with an
// equal title; rewrite() drops only the host's learned parameters; state() and restore().
#include "crawler/content/param_learner.h"

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

PageContent body(const std::string& digest) { return {.digest = digest, .simhash = 0, .title = ""}; }

std::string item(int id, const std::string& extra = "") {
  return "https://shop.example/item?id=" + std::to_string(id) + extra;
}

TEST(ParamLearnerTest, AVisitIdThatNeverChangesThePageIsLearnedAfterNPairs) {
  ParamLearner learner(3, false);
  std::vector<RuleChange> made;
  for (int id = 0; id < 3; ++id) {
    const std::string page = "page" + std::to_string(id);
    EXPECT_TRUE(learner.observe(item(id, "&vid=a" + std::to_string(id)), body(page)).empty());
    for (const RuleChange& c : learner.observe(item(id, "&vid=b" + std::to_string(id)), body(page))) made.push_back(c);
  }
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0].kind, RuleChange::Kind::kMade);
  EXPECT_EQ(made[0].rule, (ParamRule{"shop.example", "vid", 3, 0}));
  EXPECT_EQ(learner.rules(), std::vector<ParamRule>{made[0].rule});
  EXPECT_EQ(learner.rewrite(item(7, "&vid=zz&sort=asc")), item(7, "&sort=asc"));
  EXPECT_EQ(learner.rewrite("https://shop.example/item?vid=1"), "https://shop.example/item");
  EXPECT_EQ(learner.rewrite("https://other.example/item?vid=1"), "https://other.example/item?vid=1") << "per host";
}

TEST(ParamLearnerTest, PresencePairsCountBothWays) {
  ParamLearner learner(2, false);
  learner.observe("https://a.example/x", body("x"));
  EXPECT_TRUE(learner.observe("https://a.example/x?ref=home", body("x")).empty());  // absent, then present
  learner.observe("https://a.example/y?ref=nav", body("y"));
  const std::vector<RuleChange> made = learner.observe("https://a.example/y", body("y"));  // present, then absent
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0].rule.param, "ref");
}

TEST(ParamLearnerTest, AParameterThatChangesThePageIsNeverLearned) {
  ParamLearner learner(2, false);
  for (int page = 1; page <= 20; ++page) {
    EXPECT_TRUE(
        learner.observe("https://a.example/list?page=" + std::to_string(page), body(std::to_string(page))).empty());
  }
  EXPECT_TRUE(learner.rules().empty());
  EXPECT_EQ(learner.rewrite("https://a.example/list?page=3"), "https://a.example/list?page=3");
}

TEST(ParamLearnerTest, OneDisagreeingPairWithdrawsTheRuleForGood) {
  ParamLearner learner(2, false);
  learner.observe(item(1, "&mode=a"), body("one"));
  learner.observe(item(1, "&mode=b"), body("one"));
  learner.observe(item(2, "&mode=a"), body("two"));
  ASSERT_EQ(learner.observe(item(2, "&mode=b"), body("two")).size(), 1u);  // made
  learner.observe(item(3, "&mode=a"), body("three"));
  const std::vector<RuleChange> withdrawn = learner.observe(item(3, "&mode=b"), body("THREE"));
  ASSERT_EQ(withdrawn.size(), 1u);
  EXPECT_EQ(withdrawn[0].kind, RuleChange::Kind::kWithdrawn);
  EXPECT_EQ(withdrawn[0].rule, (ParamRule{"shop.example", "mode", 2, 1, false}));
  EXPECT_EQ(learner.rewrite(item(9, "&mode=a")), item(9, "&mode=a"));
  for (int id = 10; id < 20; ++id) {  // agreeing pairs again: never made again
    learner.observe(item(id, "&mode=a"), body(std::to_string(id)));
    EXPECT_TRUE(learner.observe(item(id, "&mode=b"), body(std::to_string(id))).empty());
  }
}

TEST(ParamLearnerTest, NearIdenticalRendersAgreeOnlyWithTheSameTitle) {
  const PageContent a{.digest = "d1", .simhash = 0xF0F0F0F0F0F0F0F0ull, .title = "Item 1"};
  PageContent b{.digest = "d2", .simhash = 0xF0F0F0F0F0F0F0F7ull, .title = "Item 1"};  // 3 bits apart
  EXPECT_TRUE(same_page(a, b, true));
  EXPECT_FALSE(same_page(a, b, false));
  b.title = "Item 2";
  EXPECT_FALSE(same_page(a, b, true));
  b.title = "Item 1";
  b.simhash ^= 0x100;  // 4 bits: neither the same nor clearly another page
  EXPECT_EQ(judge_pair(a, b, true), PairJudgment::kUnsure);
  b.simhash ^= 0xFF0000;  // 12 bits
  EXPECT_EQ(judge_pair(a, b, true), PairJudgment::kDifferent);
  b.title = "Item 2";
  EXPECT_EQ(judge_pair(a, b, true), PairJudgment::kDifferent);
  EXPECT_FALSE(same_page(body(""), body(""), true)) << "unknown bodies are no evidence";
}

TEST(ParamLearnerTest, StateAndRestoreKeepRulesAndTheParametersThatChangedAPage) {
  ParamLearner learner(1, false);
  learner.observe("https://a.example/x?sid=1", body("x"));
  learner.observe("https://a.example/x?sid=2", body("x"));  // sid learned
  learner.observe("https://a.example/x?p=1", body("x"));
  learner.observe("https://a.example/x?p=2", body("y"));  // p changed a page
  ParamLearner resumed(1, false);
  resumed.restore(learner.state());
  EXPECT_EQ(resumed.state(), learner.state());
  EXPECT_EQ(learner.state().size(), 2u) << "the rule, and the parameter that changed a page";
  EXPECT_EQ(resumed.rules(), learner.rules());
  EXPECT_EQ(resumed.rewrite("https://a.example/z?sid=9&p=3"), "https://a.example/z?p=3");
  resumed.observe("https://a.example/w?p=1", body("w"));
  EXPECT_TRUE(resumed.observe("https://a.example/w?p=2", body("w")).empty()) << "p is never learned";
}

// Evidence short of a rule: counted pairs a resume restores and counts on from; the most agreeing
// kept when it is cut; due at most once an interval, and only after a pair.
TEST(ParamLearnerTest, EvidenceShortOfARuleIsRestoredAndCountedOn) {
  ParamLearner learner(3, false);
  for (int id = 0; id < 2; ++id) {
    learner.observe(item(id, "&vid=a"), body("page" + std::to_string(id)));
    learner.observe(item(id, "&vid=b"), body("page" + std::to_string(id)));
  }
  learner.observe("https://b.example/x?ref=1", body("x"));
  learner.observe("https://b.example/x?ref=2", body("x"));
  EXPECT_TRUE(learner.rules().empty());
  EXPECT_EQ(learner.evidence(10),
            (std::vector<ParamRule>{{"shop.example", "vid", 2, 0, false}, {"b.example", "ref", 1, 0, false}}));
  EXPECT_EQ(learner.evidence(1), (std::vector<ParamRule>{{"shop.example", "vid", 2, 0, false}}));

  ParamLearner resumed(3, false);
  resumed.restore(learner.evidence(10));
  EXPECT_EQ(resumed.evidence(10), learner.evidence(10));
  // One more pair after the resume makes the rule: the first two were counted before it.
  resumed.observe(item(5, "&vid=a"), body("page5"));
  const std::vector<RuleChange> made = resumed.observe(item(5, "&vid=b"), body("page5"));
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0].rule, (ParamRule{"shop.example", "vid", 3, 0, true}));
  EXPECT_EQ(resumed.evidence(10), (std::vector<ParamRule>{{"b.example", "ref", 1, 0, false}}));

  const auto t0 = std::chrono::steady_clock::time_point() + std::chrono::hours(1);
  const auto second = std::chrono::seconds(1);
  EXPECT_TRUE(resumed.evidence_due(t0, second));
  EXPECT_FALSE(resumed.evidence_due(t0 + 2 * second, second)) << "no pair since";
  resumed.observe("https://b.example/x?ref=3", body("x"));
  EXPECT_FALSE(resumed.evidence_due(t0 + 2 * second, second)) << "no pair: ref=1 and 2 were fetched before";
  resumed.observe("https://b.example/x?ref=4", body("x"));
  EXPECT_FALSE(resumed.evidence_due(t0 + second / 2, second)) << "within the interval";
  EXPECT_TRUE(resumed.evidence_due(t0 + 2 * second, second));
}

}  // namespace
}  // namespace bloomcrawl
