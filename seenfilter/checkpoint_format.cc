#include "seenfilter/checkpoint_format.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include "base/checksum.h"
#include "base/coding.h"
#include "seenfilter/compact_math.h"

namespace bloomcrawl::seenfilter {
namespace {

constexpr char kManifestMagic[8] = {'B', 'C', 'S', 'F', 'M', 'A', 'N', 'I'};
constexpr char kLayerMagic[8] = {'B', 'C', 'S', 'F', 'L', 'A', 'Y', 'R'};

std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Returns the version, which must be kCheckpointVersion or up to `newest`.
uint32_t check_magic_and_version(const uint8_t* p, const char (&magic)[8], const char* what, const std::string& file,
                                 uint32_t newest = kCheckpointVersion) {
  if (std::memcmp(p, magic, 8) != 0)
    throw CheckpointError(file, std::string("bad magic (not a seen-filter ") + what + ")");
  const uint32_t version = load_u32(p + 8);
  if (version < kCheckpointVersion || version > newest) {
    throw CheckpointError(file, "unsupported format version " + std::to_string(version) + " (this build reads " +
                                    std::to_string(kCheckpointVersion) + ".." + std::to_string(newest) + ")");
  }
  return version;
}

}  // namespace

std::string ManifestLayer::file_name() const {
  char index_text[16];
  std::snprintf(index_text, sizeof index_text, "%04u", index);
  return std::string("layer-") + index_text + "-" + hex16(checksum) + ".sfl";
}

std::string ManifestShard::file_name() const { return "compact-" + hex16(checksum) + ".sff"; }

std::string manifest_file_name(uint64_t sequence) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "MANIFEST-%06llu", static_cast<unsigned long long>(sequence));
  return buf;
}

std::optional<uint64_t> parse_manifest_file_name(std::string_view name) {
  constexpr std::string_view kPrefix = "MANIFEST-";
  if (name.size() < kPrefix.size() + 6 || name.size() > kPrefix.size() + 19 || !name.starts_with(kPrefix)) {
    return std::nullopt;
  }
  uint64_t seq = 0;
  for (char c : name.substr(kPrefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    seq = seq * 10 + static_cast<uint64_t>(c - '0');
  }
  return seq;
}

uint64_t layer_file_size(uint64_t blocks) { return kLayerHeaderBytes + blocks * kBlockBytes + kChecksumBytes; }

std::vector<uint8_t> encode_manifest(const Manifest& m) {
  const bool compact = m.compact();
  size_t run_bytes = 0;
  for (const ManifestRun& run : m.runs) run_bytes += kManifestRunBytes + kManifestShardBytes * run.shards.size();
  std::vector<uint8_t> out(kManifestHeaderBytes + (compact ? kCompactSectionBytes : 0) +
                           kManifestEntryBytes * m.layers.size() + kManifestShardBytes * m.shards.size() + run_bytes +
                           kChecksumBytes);
  uint8_t* p = out.data();
  std::memcpy(p, kManifestMagic, 8);
  store_u32(p + 8, m.version);
  store_u32(p + 12, static_cast<uint32_t>(m.layers.size()));
  store_u64(p + 16, m.sequence);
  store_u64(p + 24, m.options.initial_capacity);
  store_u64(p + 32, std::bit_cast<uint64_t>(m.options.target_fpr));
  store_u64(p + 40, std::bit_cast<uint64_t>(m.options.growth_factor));
  store_u64(p + 48, std::bit_cast<uint64_t>(m.options.tightening_ratio));
  store_u64(p + 56, m.options.memory_limit_bytes);
  p += kManifestHeaderBytes;
  if (compact) {
    store_u32(p, static_cast<uint32_t>(m.shards.size()));
    store_u32(p + 4, static_cast<uint32_t>(m.runs.size()));
    store_u64(p + 8, m.compact_keys);
    store_u64(p + 16, m.log_keys);
    p += kCompactSectionBytes;
  }
  for (const ManifestLayer& l : m.layers) {
    store_u32(p, l.index);
    store_u32(p + 4, l.probes);
    store_u64(p + 8, l.capacity);
    store_u64(p + 16, l.keys);
    store_u64(p + 24, l.blocks);
    store_u64(p + 32, l.file_size);
    store_u64(p + 40, l.checksum);
    p += kManifestEntryBytes;
  }
  const auto store_shard = [&p](const ManifestShard& sh) {
    store_u32(p, sh.rotation);
    store_u32(p + 4, 0);
    store_u64(p + 8, sh.keys);
    store_u64(p + 16, sh.file_size);
    store_u64(p + 24, sh.checksum);
    p += kManifestShardBytes;
  };
  for (const ManifestShard& sh : m.shards) store_shard(sh);
  for (const ManifestRun& run : m.runs) {
    store_u64(p, run.keys);
    store_u32(p + 8, static_cast<uint32_t>(run.shards.size()));
    store_u32(p + 12, 0);
    p += kManifestRunBytes;
    for (const ManifestShard& sh : run.shards) store_shard(sh);
  }
  store_u64(p, checksum64(out.data(), static_cast<size_t>(p - out.data())));
  return out;
}

size_t max_manifest_bytes() {
  const size_t layered = kManifestHeaderBytes + kManifestEntryBytes * SeenFilter::kMaxLayers + kChecksumBytes;
  const size_t tiered = kManifestHeaderBytes + kCompactSectionBytes + kManifestEntryBytes * 2 +
                        kManifestRunBytes * kMaxRuns + kManifestShardBytes * kMaxManifestShards * (1 + kMaxRuns) +
                        kChecksumBytes;
  return std::max(layered, tiered);
}

Manifest decode_manifest(std::span<const uint8_t> bytes, const std::string& file) {
  if (bytes.size() < kManifestHeaderBytes + kChecksumBytes) {
    throw CheckpointError(file, "truncated: " + std::to_string(bytes.size()) + " bytes, a manifest has at least " +
                                    std::to_string(kManifestHeaderBytes + kChecksumBytes));
  }
  const uint8_t* p = bytes.data();
  const uint32_t version = check_magic_and_version(p, kManifestMagic, "manifest", file, kTieredManifestVersion);
  const bool compact = version == kCompactManifestVersion || version == kTieredManifestVersion;
  const bool tiered = version == kTieredManifestVersion;
  const uint32_t count = load_u32(p + 12);
  const uint32_t max_layers = compact ? 2 : SeenFilter::kMaxLayers;
  if (count < 1 || count > max_layers) {
    throw CheckpointError(file, "layer count " + std::to_string(count) + " outside 1.." + std::to_string(max_layers));
  }
  uint32_t shard_count = 0;
  uint32_t run_count = 0;
  const auto valid_shard_count = [](uint32_t n) { return n >= 1 && n <= kMaxManifestShards && (n & (n - 1)) == 0; };
  if (compact) {
    if (bytes.size() < kManifestHeaderBytes + kCompactSectionBytes + kChecksumBytes) {
      throw CheckpointError(file, "truncated: " + std::to_string(bytes.size()) + " bytes");
    }
    shard_count = load_u32(p + kManifestHeaderBytes);
    run_count = load_u32(p + kManifestHeaderBytes + 4);
    if (!valid_shard_count(shard_count)) {
      throw CheckpointError(file, "shard count " + std::to_string(shard_count) + " is not a power of two in 1..256");
    }
    if (run_count > (tiered ? kMaxRuns : 0)) {
      throw CheckpointError(file, "run count " + std::to_string(run_count) +
                                      (tiered ? " is over 16" : ": the field is reserved in version 2"));
    }
  }
  const size_t entries_at = kManifestHeaderBytes + (compact ? kCompactSectionBytes : 0);
  // Runs' sizes are in their headers: walked within the bytes, each bounded, before the total is known.
  const size_t runs_at = entries_at + kManifestEntryBytes * count + kManifestShardBytes * shard_count;
  size_t expected = runs_at + kChecksumBytes;
  for (uint32_t r = 0; r < run_count; ++r) {
    if (bytes.size() < expected + kManifestRunBytes) {
      throw CheckpointError(file, "truncated: " + std::to_string(bytes.size()) + " bytes, run " + std::to_string(r) +
                                      " of " + std::to_string(run_count) + " starts beyond them");
    }
    const uint32_t run_shards = load_u32(p + expected - kChecksumBytes + 8);
    if (!valid_shard_count(run_shards) || load_u32(p + expected - kChecksumBytes + 12) != 0) {
      throw CheckpointError(file, "run " + std::to_string(r) + ": shard count " + std::to_string(run_shards) +
                                      " is not a power of two in 1..256");
    }
    expected += kManifestRunBytes + kManifestShardBytes * size_t{run_shards};
  }
  if (bytes.size() != expected) {
    throw CheckpointError(file, std::string(bytes.size() < expected ? "truncated" : "trailing bytes") + ": " +
                                    std::to_string(bytes.size()) + " bytes, expected " + std::to_string(expected) +
                                    " for " + std::to_string(count) + " layers");
  }
  const size_t body = expected - kChecksumBytes;
  if (load_u64(p + body) != checksum64(p, body)) throw CheckpointError(file, "checksum mismatch (corrupted manifest)");

  Manifest m;
  m.version = version;
  m.sequence = load_u64(p + 16);
  m.options.initial_capacity = load_u64(p + 24);
  m.options.target_fpr = std::bit_cast<double>(load_u64(p + 32));
  m.options.growth_factor = std::bit_cast<double>(load_u64(p + 40));
  m.options.tightening_ratio = std::bit_cast<double>(load_u64(p + 48));
  m.options.memory_limit_bytes = load_u64(p + 56);
  try {
    m.options.validate();
  } catch (const std::invalid_argument& e) {
    throw CheckpointError(file, std::string("invalid parameters: ") + e.what());
  }
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* e = p + entries_at + kManifestEntryBytes * i;
    ManifestLayer l{load_u32(e),      load_u32(e + 4),  load_u64(e + 8), load_u64(e + 16),
                    load_u64(e + 24), load_u64(e + 32), load_u64(e + 40)};
    const std::string where = "layer entry " + std::to_string(i) + " (byte offset " + std::to_string(e - p) + "): ";
    if (compact ? l.index >= SeenFilter::kMaxLayers : l.index != i)
      throw CheckpointError(file, where + "index " + std::to_string(l.index) + ", expected " + std::to_string(i));
    if (l.probes < 1 || l.probes > kMaxProbes)
      throw CheckpointError(file, where + "probes " + std::to_string(l.probes) + " outside 1..32");
    if (l.capacity < 1) throw CheckpointError(file, where + "capacity 0");
    if (l.keys > l.capacity) {
      throw CheckpointError(
          file, where + "keys " + std::to_string(l.keys) + " exceed capacity " + std::to_string(l.capacity));
    }
    if (l.blocks < 1 || l.blocks > kMaxLayerBlocks)
      throw CheckpointError(file, where + "block count " + std::to_string(l.blocks) + " out of range");
    if (l.file_size != layer_file_size(l.blocks)) {
      throw CheckpointError(file, where + "file size " + std::to_string(l.file_size) + " does not match " +
                                      std::to_string(l.blocks) + " blocks");
    }
    m.layers.push_back(l);
  }
  if (compact) {
    m.compact_keys = load_u64(p + kManifestHeaderBytes + 8);
    m.log_keys = load_u64(p + kManifestHeaderBytes + 16);
    const auto load_shard = [&](const uint8_t* e, const std::string& which) {
      const ManifestShard sh{load_u32(e), load_u64(e + 8), load_u64(e + 16), load_u64(e + 24)};
      if (sh.rotation > 8 || load_u32(e + 4) != 0 || (sh.file_size == 0 && (sh.checksum != 0 || sh.keys != 0))) {
        throw CheckpointError(file, which + " is invalid");
      }
      return sh;
    };
    for (uint32_t i = 0; i < shard_count; ++i) {
      m.shards.push_back(load_shard(p + entries_at + kManifestEntryBytes * count + kManifestShardBytes * i,
                                    "shard entry " + std::to_string(i)));
    }
    uint64_t keys = m.compact_keys;
    const uint8_t* at = p + runs_at;
    for (uint32_t r = 0; r < run_count; ++r) {
      ManifestRun run;
      run.keys = load_u64(at);
      const uint32_t run_shards = load_u32(at + 8);
      at += kManifestRunBytes;
      for (uint32_t i = 0; i < run_shards; ++i, at += kManifestShardBytes) {
        run.shards.push_back(load_shard(at, "run " + std::to_string(r) + " shard entry " + std::to_string(i)));
      }
      if (run.keys > m.log_keys) throw CheckpointError(file, "run " + std::to_string(r) + " holds too many keys");
      keys += run.keys;
      m.runs.push_back(std::move(run));
    }
    for (const ManifestLayer& l : m.layers) keys += l.keys;
    if (keys != m.log_keys) {
      throw CheckpointError(file, "log keys " + std::to_string(m.log_keys) +
                                      " are not the compact keys plus the runs' " + "and the layers' (" +
                                      std::to_string(keys) + ")");
    }
  }
  return m;
}

std::array<uint8_t, kLayerHeaderBytes> encode_layer_header(const ManifestLayer& l) {
  std::array<uint8_t, kLayerHeaderBytes> h{};
  std::memcpy(h.data(), kLayerMagic, 8);
  store_u32(h.data() + 8, kCheckpointVersion);
  store_u32(h.data() + 12, l.index);
  store_u32(h.data() + 16, l.probes);
  store_u64(h.data() + 24, l.capacity);
  store_u64(h.data() + 32, l.keys);
  store_u64(h.data() + 40, l.blocks);
  return h;
}

void check_layer_header(std::span<const uint8_t> header, const ManifestLayer& expected, const std::string& file) {
  if (header.size() < kLayerHeaderBytes) throw CheckpointError(file, "truncated layer header");
  const uint8_t* p = header.data();
  check_magic_and_version(p, kLayerMagic, "layer file", file);
  const auto mismatch = [&](const char* field, uint64_t got, uint64_t want) {
    if (got != want) {
      throw CheckpointError(file, std::string("header ") + field + " " + std::to_string(got) +
                                      " does not match the manifest's " + std::to_string(want));
    }
  };
  mismatch("layer index", load_u32(p + 12), expected.index);
  mismatch("probes", load_u32(p + 16), expected.probes);
  mismatch("reserved field", load_u32(p + 20), 0);
  mismatch("capacity", load_u64(p + 24), expected.capacity);
  mismatch("keys", load_u64(p + 32), expected.keys);
  mismatch("blocks", load_u64(p + 40), expected.blocks);
}

}  // namespace bloomcrawl::seenfilter
