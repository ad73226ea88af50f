#include "crawler/content/param_learner.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "crawler/content/simhash.h"

namespace bloomcrawl {
namespace {

// A URL cut at its query: what precedes '?', and its parameters ("name=value" or "name").
struct SplitUrl {
  std::string_view head;
  std::vector<std::string_view> params;
};

SplitUrl split(std::string_view url) {
  url = url.substr(0, url.find('#'));
  SplitUrl out;
  const size_t q = url.find('?');
  out.head = url.substr(0, q);
  if (q == std::string_view::npos) return out;
  std::string_view query = url.substr(q + 1);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    if (amp != 0) out.params.push_back(query.substr(0, amp));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return out;
}

std::string_view name_of(std::string_view param) { return param.substr(0, param.find('=')); }

std::string host_of(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  const std::string_view rest = url.substr(scheme + 3);
  return std::string(rest.substr(0, rest.find_first_of("/?#")));
}

// The URL without every parameter named `name`, and those parameters joined.
std::pair<std::string, std::string> without(const SplitUrl& url, std::string_view name) {
  std::string rest(url.head);
  std::string value;
  char separator = '?';
  for (const std::string_view p : url.params) {
    if (name_of(p) == name) {
      if (!value.empty()) value.push_back('&');
      value.append(p);
      continue;
    }
    rest.push_back(separator);
    rest.append(p);
    separator = '&';
  }
  return {std::move(rest), std::move(value)};
}

std::string group_key(std::string_view name, std::string_view base) {
  std::string key(name);
  key.push_back('\0');
  key.append(base);
  return key;
}

}  // namespace

PairJudgment judge_pair(const PageContent& a, const PageContent& b, bool near) {
  if (!a.digest.empty() && a.digest == b.digest) return PairJudgment::kSame;
  if (!near || a.simhash == 0 || b.simhash == 0) return PairJudgment::kDifferent;
  if (a.title != b.title) return PairJudgment::kDifferent;
  const int bits = hamming_distance(a.simhash, b.simhash);
  if (bits <= kNearDuplicateBits && !a.title.empty()) return PairJudgment::kSame;
  return bits > kClearlyDifferentBits ? PairJudgment::kDifferent : PairJudgment::kUnsure;
}

ParamLearner::ParamLearner(uint32_t min_pairs, bool near) : min_pairs_(min_pairs), near_(near) {}

void ParamLearner::pair(const std::string& host, const std::string& param, const PageContent& a, const PageContent& b,
                        std::vector<RuleChange>& changes) {
  if (a.digest.empty() || b.digest.empty()) return;
  const PairJudgment judgment = judge_pair(a, b, near_);
  if (judgment == PairJudgment::kUnsure) return;
  Evidence& e = evidence_[{host, param}];
  evidence_changed_ = true;
  if (judgment == PairJudgment::kSame) {
    ++e.agreeing;
    if (!e.in_force && e.disagreeing == 0 && e.agreeing >= min_pairs_) {
      e.in_force = true;
      in_force_.fetch_add(1, std::memory_order_relaxed);
      changes.push_back({RuleChange::Kind::kMade, {host, param, e.agreeing, e.disagreeing, true}});
    }
    return;
  }
  ++e.disagreeing;
  if (e.in_force) {
    e.in_force = false;
    in_force_.fetch_sub(1, std::memory_order_relaxed);
    changes.push_back({RuleChange::Kind::kWithdrawn, {host, param, e.agreeing, e.disagreeing, false}});
  }
}

std::vector<RuleChange> ParamLearner::observe(std::string_view url, const PageContent& content) {
  std::vector<RuleChange> changes;
  if (content.digest.empty()) return changes;
  const std::string host = host_of(url);
  const SplitUrl split_url = split(url);
  const std::string whole = without(split_url, std::string_view()).first;  // the URL without a fragment
  std::lock_guard lock(mu_);
  // Pages fetched at this URL plus one parameter: that parameter absent here, present there.
  if (const auto it = params_by_base_.find(whole); it != params_by_base_.end()) {
    for (const std::string& name : it->second) {
      for (const Member& m : groups_[group_key(name, whole)]) pair(host, name, content, m.content, changes);
    }
  }
  std::set<std::string_view> names;
  for (const std::string_view p : split_url.params) names.insert(name_of(p));
  const bool remember = pages_.size() < kMaxPages;
  for (const std::string_view name : names) {
    auto [base, value] = without(split_url, name);
    const std::string param(name);
    // The same URL without the parameter: present here, absent there.
    if (const auto page = pages_.find(base); page != pages_.end()) pair(host, param, content, page->second, changes);
    std::vector<Member>& group = groups_[group_key(name, base)];
    for (const Member& m : group) {
      if (m.value != value) pair(host, param, content, m.content, changes);
    }
    if (!remember || group.size() >= kGroupSize) continue;
    bool new_value = true;
    for (const Member& m : group) new_value = new_value && m.value != value;
    if (!new_value) continue;
    if (group.empty()) params_by_base_[base].push_back(param);
    group.push_back({std::move(value), content});
  }
  if (remember) pages_.emplace(whole, content);
  return changes;
}

std::string ParamLearner::rewrite(std::string_view url) const {
  if (in_force_.load(std::memory_order_relaxed) == 0) return std::string(url);
  const std::string host = host_of(url);
  const SplitUrl split_url = split(url);
  std::string out(split_url.head);
  char separator = '?';
  std::lock_guard lock(mu_);
  for (const std::string_view p : split_url.params) {
    const auto it = evidence_.find({host, std::string(name_of(p))});
    if (it != evidence_.end() && it->second.in_force) continue;
    out.push_back(separator);
    out.append(p);
    separator = '&';
  }
  if (const size_t hash = url.find('#'); hash != std::string_view::npos) out.append(url.substr(hash));
  return out;
}

std::vector<ParamRule> ParamLearner::rules() const {
  std::lock_guard lock(mu_);
  std::vector<ParamRule> out;
  for (const auto& [key, e] : evidence_) {
    if (e.in_force) out.push_back({key.first, key.second, e.agreeing, e.disagreeing, true});
  }
  return out;
}

std::vector<ParamRule> ParamLearner::state() const {
  std::lock_guard lock(mu_);
  std::vector<ParamRule> out;
  for (const auto& [key, e] : evidence_) {
    if (e.in_force || e.disagreeing > 0) out.push_back({key.first, key.second, e.agreeing, e.disagreeing, e.in_force});
  }
  return out;
}

std::vector<ParamRule> ParamLearner::evidence(size_t limit) const {
  std::vector<ParamRule> out;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, e] : evidence_) {
      if (!e.in_force && e.disagreeing == 0 && e.agreeing > 0)
        out.push_back({key.first, key.second, e.agreeing, 0, false});
    }
  }
  const auto most_agreeing = [](const ParamRule& a, const ParamRule& b) {
    return a.agreeing != b.agreeing ? a.agreeing > b.agreeing : std::tie(a.host, a.param) < std::tie(b.host, b.param);
  };
  if (out.size() > limit) {
    std::partial_sort(out.begin(), out.begin() + std::ptrdiff_t(limit), out.end(), most_agreeing);
    out.resize(limit);
  } else {
    std::sort(out.begin(), out.end(), most_agreeing);
  }
  return out;
}

bool ParamLearner::evidence_due(std::chrono::steady_clock::time_point now,
                                std::chrono::steady_clock::duration interval) {
  std::lock_guard lock(mu_);
  if (!evidence_changed_ || now - evidence_due_at_ < interval) return false;
  evidence_changed_ = false;
  evidence_due_at_ = now;
  return true;
}

void ParamLearner::restore(const std::vector<ParamRule>& state) {
  std::lock_guard lock(mu_);
  for (const ParamRule& r : state) {
    Evidence& e = evidence_[{r.host, r.param}];
    const bool in_force = r.in_force && r.disagreeing == 0;
    if (e.in_force != in_force) in_force_.fetch_add(in_force ? 1 : size_t(-1), std::memory_order_relaxed);
    e = {r.agreeing, r.disagreeing, in_force};
  }
}

}  // namespace bloomcrawl
