#include "seenfilter/blocked_bloom_math.h"

#include <math.h>  // NOLINT(modernize-deprecated-headers): lgamma_r() is POSIX, declared by <math.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <span>
#include <stdexcept>
#include <vector>

namespace bloomcrawl::seenfilter {

namespace {

// For each probe count k, hit[k][j] = E[(S/512)^k] where S is the number of set bits of a block
// holding j keys (j*k independent uniform bit choices): the chance that a query's k bits are all
// set. Computed from the exact distribution of S (balls into 512 bins).
// Using the mean fill instead, (E[S]/512)^k, underestimates it (Jensen): by 0.9% at k = 6, 2.2%
// at k = 9, 5.5% at k = 14, and layers sized with it measured that much above their share.
// The distribution after b bit choices does not depend on k, so one series of it serves every k
// (hit[k][j] is read off at b = j*k). The series is run to a budget of b bit choices and each k
// keeps the j with j*k < b: sizing a layer asks for large k only at light loads (few keys per
// block) and for heavy loads only with small k, so this fills what is asked for, where a table of
// every k for every j cost a short `bloomcrawl dedup` 12 ms of start-up. Only the part of the
// distribution that is not exactly zero is visited, and the sums for the k read off at one b run
// side by side; each is still summed in order over S, so the figures are identical to the plain
// recurrence. Extended on demand by running the series on from where it stopped to the budget
// asked for (it keeps its state), so no bit choice is computed twice.
class BlockHitTable {
 public:
  // sum_j Pois(j; lambda) * hit[j] over j in [first, last], under one lock.
  double poisson_mixture(double lambda, uint64_t first, uint64_t last, uint32_t probes) {
    if (probes > kMaxProbes) throw std::invalid_argument("blocked_fpr: more than 32 probes");
    std::lock_guard lock(mu_);
    if (last >= hit_[probes].size()) extend(std::max(probes, 1u) * (last + 1));
    const std::vector<double>& weights = poisson_weights(lambda, first, last);
    const std::vector<double>& hit = hit_[probes];
    double sum = 0.0;
    for (uint64_t j = first; j <= last; ++j) sum += weights[j - first] * hit[j];
    return sum;
  }

 private:
  // Pois(j; lambda) for j in [first, last], kept for the next call: best_probes() asks for one
  // load with every probe count in turn.
  const std::vector<double>& poisson_weights(double lambda, uint64_t first, uint64_t last) {
    if (lambda == weights_lambda_ && first == weights_first_ && weights_.size() == last - first + 1) return weights_;
    while (log_factorial_.size() <= last) {
      int sign;  // lgamma_r: std::lgamma writes the global signgam, a data race between threads
      log_factorial_.push_back(::lgamma_r(static_cast<double>(log_factorial_.size()) + 1.0, &sign));
    }
    const double log_lambda = std::log(lambda);
    weights_.clear();
    for (uint64_t j = first; j <= last; ++j) {
      weights_.push_back(std::exp(-lambda + static_cast<double>(j) * log_lambda - log_factorial_[j]));
    }
    weights_lambda_ = lambda;
    weights_first_ = first;
    return weights_;
  }

  // Runs the series on to `bits` bit choices: hit_[k][j] for every k and every j with j*k < bits
  // (j < bits for k = 0).
  void extend(uint64_t bits) {
    if (power_[kMaxProbes].empty()) {
      for (uint32_t k = 1; k <= kMaxProbes; ++k) {
        power_[k].resize(kBlockBits + 1);
        for (uint32_t s = 0; s <= kBlockBits; ++s) {
          power_[k][s] = std::pow(static_cast<double>(s) / kBlockBits, static_cast<double>(k));
        }
      }
      occupancy_.assign(kBlockBits + 1, 0.0);
      occupancy_[0] = 1.0;
    }
    hit_[0].resize(bits, 1.0);  // no bits to test: every query "hits"
    for (uint32_t k = 1; k <= kMaxProbes; ++k) hit_[k].resize((bits + k - 1) / k, 0.0);
    std::array<uint32_t, kMaxProbes> due{};  // the k read off at this b
    for (uint64_t b = bits_; b < bits; ++b) {
      uint32_t n = 0;
      for (uint32_t k = 1; k <= kMaxProbes; ++k) {
        if (remainder_[k] == 0) due[n++] = k;  // j = b / k < hit_[k].size(), as b < bits
        if (++remainder_[k] == k) remainder_[k] = 0;
      }
      read_off(occupancy_, lo_, hi_, b, std::span(due.data(), n));
      add_one_bit(occupancy_, lo_, hi_);
    }
    bits_ = bits;
  }

  // hit_[k][b / k] for each k in `due`, four sums at a time so that their additions overlap (one
  // sum alone waits on each addition; a group short of four repeats its last k).
  void read_off(const std::vector<double>& p, uint32_t lo, uint32_t hi, uint64_t b, std::span<const uint32_t> due) {
    for (size_t i = 0; i < due.size(); i += 4) {
      const uint32_t k[4] = {due[i], due[std::min(i + 1, due.size() - 1)], due[std::min(i + 2, due.size() - 1)],
                             due[std::min(i + 3, due.size() - 1)]};
      const double* w0 = power_[k[0]].data();
      const double* w1 = power_[k[1]].data();
      const double* w2 = power_[k[2]].data();
      const double* w3 = power_[k[3]].data();
      double e0 = 0.0;
      double e1 = 0.0;
      double e2 = 0.0;
      double e3 = 0.0;
      for (uint32_t s = lo; s <= hi; ++s) {
        e0 += p[s] * w0[s];
        e1 += p[s] * w1[s];
        e2 += p[s] * w2[s];
        e3 += p[s] * w3[s];
      }
      hit_[k[0]][b / k[0]] = e0;
      hit_[k[1]][b / k[1]] = e1;
      hit_[k[2]][b / k[2]] = e2;
      hit_[k[3]][b / k[3]] = e3;
    }
  }

  // One more uniform bit choice: it lands on a set bit with chance s/512.
  static void add_one_bit(std::vector<double>& p, uint32_t& lo, uint32_t& hi) {
    hi = std::min(hi + 1, kBlockBits);
    for (uint32_t s = hi; s > 0 && s >= lo; --s) {
      p[s] = p[s] * (static_cast<double>(s) / kBlockBits) +
             p[s - 1] * (static_cast<double>(kBlockBits - s + 1) / kBlockBits);
    }
    p[0] = 0.0;
    while (lo < hi && p[lo] == 0.0) ++lo;
  }

  std::mutex mu_;
  uint64_t bits_ = 0;              // bit choices the series was run to
  std::vector<double> occupancy_;  // P(S = s) after bits_ bit choices
  uint32_t lo_ = 0;                // occupancy_[s] == 0 for s < lo_ and s > hi_
  uint32_t hi_ = 0;
  std::array<uint32_t, kMaxProbes + 1> remainder_{};       // bits_ mod k, kept without dividing
  std::array<std::vector<double>, kMaxProbes + 1> power_;  // power_[k][s] = (s/512)^k
  std::array<std::vector<double>, kMaxProbes + 1> hit_;
  std::vector<double> log_factorial_;  // log(j!)
  double weights_lambda_ = -1.0;       // poisson_weights' last call
  uint64_t weights_first_ = 0;
  std::vector<double> weights_;
};

BlockHitTable& block_hits() {
  static BlockHitTable table;
  return table;
}

}  // namespace

double blocked_fpr(double keys_per_block, uint32_t probes) {
  if (keys_per_block <= 0.0) return 0.0;
  // Beyond ~1000 keys per 512-bit block every bit is set; the sum below would also get long.
  if (keys_per_block > 1024.0) return 1.0;
  const double lambda = keys_per_block;
  const double spread = 14.0 * std::sqrt(lambda) + 16.0;  // Poisson tail past 14 sigma is < 1e-40
  const auto first = static_cast<uint64_t>(std::max(0.0, std::floor(lambda - spread)));
  const auto last = static_cast<uint64_t>(std::ceil(lambda + spread));
  const double fpr = block_hits().poisson_mixture(lambda, first, last, probes);
  return std::min(fpr, 1.0);
}

uint32_t best_probes(double keys_per_block) {
  uint32_t best = 1;
  double best_fpr = blocked_fpr(keys_per_block, 1);
  // The FPR is unimodal in k: stop once it rises.
  for (uint32_t k = 2; k <= kMaxProbes; ++k) {
    const double f = blocked_fpr(keys_per_block, k);
    if (f >= best_fpr) break;
    best_fpr = f;
    best = k;
  }
  return best;
}

LayerGeometry size_layer(uint32_t index, uint64_t capacity, double target_fpr) {
  LayerGeometry g{index, capacity, 0, 0};
  const auto cap = static_cast<double>(capacity);
  const auto fits = [&](uint64_t blocks) {
    const double load = cap / static_cast<double>(blocks);
    return blocked_fpr(load, best_probes(load)) <= kSizingHeadroom * target_fpr;
  };
  // The FPR falls as blocks grow, so binary-search the block count.
  const auto max_blocks = static_cast<uint64_t>(std::ceil(cap * kMaxBitsPerKey / kBlockBits));
  if (!fits(max_blocks)) return g;
  uint64_t lo = 1;
  uint64_t hi = max_blocks;  // invariant: fits(hi)
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (fits(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  g.blocks = hi;
  g.probes = best_probes(cap / static_cast<double>(hi));
  return g;
}

}  // namespace bloomcrawl::seenfilter
