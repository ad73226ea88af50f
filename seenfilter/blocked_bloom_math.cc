#include "seenfilter/blocked_bloom_math.h"

#include <math.h>  // NOLINT(modernize-deprecated-headers): lgamma_r() is POSIX, declared by <math.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
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
// (hit[k][j] is read off at b = j*k): sizing a layer tries many k, and a series per k made the
// start-up of a short `bloomcrawl dedup` ~8x slower. The arithmetic is the same as per k, so the
// figures are identical. Extended on demand by recomputing to twice the keys (or probes) asked for.
class BlockHitTable {
 public:
  // sum_j Pois(j; lambda) * hit[j] over j in [first, last], under one lock.
  double poisson_mixture(double lambda, uint64_t first, uint64_t last, uint32_t probes) {
    if (probes > kMaxProbes) throw std::invalid_argument("blocked_fpr: more than 32 probes");
    std::lock_guard lock(mu_);
    if (last >= keys_ || probes > probes_) {
      tabulate(last >= keys_ ? std::max<uint64_t>(2 * keys_, last + 1) : keys_,
               probes > probes_ ? std::min(std::max(2 * probes_, probes), kMaxProbes) : probes_);
    }
    const std::vector<double>& hit = hit_[probes];
    const double log_lambda = std::log(lambda);
    double sum = 0.0;
    for (uint64_t j = first; j <= last; ++j) {
      const auto jd = static_cast<double>(j);
      int sign;  // lgamma_r: std::lgamma writes the global signgam, a data race between threads
      sum += std::exp(-lambda + jd * log_lambda - ::lgamma_r(jd + 1.0, &sign)) * hit[j];
    }
    return sum;
  }

 private:
  // hit_[k][j] for every k in [1, probes] and j < keys.
  void tabulate(uint64_t keys, uint32_t probes) {
    std::array<std::vector<double>, kMaxProbes + 1> power;
    hit_[0].assign(keys, 1.0);  // no bits to test: every query "hits"
    for (uint32_t k = 1; k <= probes; ++k) {
      power[k].resize(kBlockBits + 1);
      for (uint32_t s = 0; s <= kBlockBits; ++s) {
        power[k][s] = std::pow(static_cast<double>(s) / kBlockBits, static_cast<double>(k));
      }
      hit_[k].assign(keys, 0.0);
    }
    std::vector<double> occupancy(kBlockBits + 1, 0.0);  // P(S = s) after `bits` bit choices
    occupancy[0] = 1.0;
    for (uint64_t bits = 0; bits < keys * probes; ++bits) {
      for (uint32_t k = 1; k <= probes; ++k) {
        if (bits % k != 0 || bits / k >= keys) continue;
        double e = 0.0;
        for (uint32_t s = 0; s <= kBlockBits; ++s) e += occupancy[s] * power[k][s];
        hit_[k][bits / k] = e;
      }
      add_one_bit(occupancy);
    }
    keys_ = keys;
    probes_ = probes;
  }

  // One more uniform bit choice: it lands on a set bit with chance s/512.
  static void add_one_bit(std::vector<double>& p) {
    for (uint32_t s = kBlockBits; s > 0; --s) {
      p[s] = p[s] * (static_cast<double>(s) / kBlockBits) +
             p[s - 1] * (static_cast<double>(kBlockBits - s + 1) / kBlockBits);
    }
    p[0] = 0.0;
  }

  std::mutex mu_;
  uint64_t keys_ = 0;    // tabulated key counts
  uint32_t probes_ = 0;  // tabulated probe counts
  std::array<std::vector<double>, kMaxProbes + 1> hit_;
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
