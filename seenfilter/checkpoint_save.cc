// save_checkpoint: layer files (content-addressed, reused when unchanged), then the manifest,
// then CURRENT, each durable before the next; then retention (retain_checkpoints), unless the
// caller runs it once what names the new manifest is durable. See docs/checkpoint-format.md.
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <set>
#include <system_error>

#include "base/checksum.h"
#include "base/coding.h"
#include "base/durable_file.h"
#include "seenfilter/checkpoint.h"
#include "seenfilter/checkpoint_files.h"

namespace bloomcrawl {
namespace fs = std::filesystem;
using seenfilter::ManifestLayer;

namespace {

void report(const CheckpointSaveOptions& options, const std::string& step) {
  if (options.progress) options.progress(step);
}

ManifestLayer entry_for(const FilterSnapshot::Layer& layer) {
  const seenfilter::LayerGeometry& g = layer.bits->geometry();
  return {g.index, g.probes, g.capacity, layer.keys, g.blocks, seenfilter::layer_file_size(g.blocks), 0};
}

bool has_file_of_size(const fs::path& path, uint64_t size) {
  std::error_code ec;
  return fs::file_size(path, ec) == size && !ec;
}

// Writes the layer in one pass, hashing as it goes, and names it after the hash.
uint64_t write_layer(const seenfilter::LayerBits& bits, ManifestLayer entry, const fs::path& dir) {
  static_assert(std::endian::native == std::endian::little, "layer words are written as little-endian memory");
  DurableFile file(dir / ("layer-" + std::to_string(entry.index) + ".sfl.tmp"));
  Checksum checksum;
  const auto header = seenfilter::encode_layer_header(entry);
  const auto put = [&](const void* data, size_t size) {
    checksum.update(data, size);
    file.append(data, size);
  };
  put(header.data(), header.size());
  // Bounded pieces keep the freshly written data in cache between hashing and writing.
  constexpr uint64_t kPiece = uint64_t{1} << 20;
  const auto* bytes = reinterpret_cast<const uint8_t*>(bits.words());
  for (uint64_t done = 0, total = bits.geometry().bytes(); done < total; done += kPiece) {
    put(bytes + done, static_cast<size_t>(std::min(kPiece, total - done)));
  }
  entry.checksum = checksum.digest();
  uint8_t trailer[seenfilter::kChecksumBytes];
  store_u64(trailer, entry.checksum);
  file.append(trailer, sizeof trailer);
  file.commit(dir / entry.file_name());
  return entry.checksum;
}

bool link_existing(const std::string& name, const fs::path& dir, const std::vector<fs::path>& sources, uint64_t size) {
  return std::ranges::any_of(sources, [&](const fs::path& source) {
    return has_file_of_size(source / name, size) && ::link((source / name).c_str(), (dir / name).c_str()) == 0;
  });
}

// Stores one layer unless an identical file is already there; returns its manifest entry.
ManifestLayer store_layer(const FilterSnapshot::Layer& layer, const fs::path& dir,
                          const CheckpointSaveOptions& options) {
  ManifestLayer entry = entry_for(layer);
  const std::string index = std::to_string(entry.index);
  if (const auto cached = layer.bits->cached_checksum(layer.keys)) {
    entry.checksum = *cached;
    const std::string name = entry.file_name();
    if (has_file_of_size(dir / name, entry.file_size)) {
      report(options, "layer " + index + " reused");
      return entry;
    }
    if (link_existing(name, dir, options.link_from, entry.file_size)) {
      report(options, "layer " + index + " linked");
      return entry;
    }
  }
  entry.checksum = write_layer(*layer.bits, entry, dir);
  layer.bits->cache_checksum(layer.keys, entry.checksum);
  report(options, "layer " + index + " written");
  return entry;
}

// A compact shard's file: named by its trailer checksum, written unless already there.
seenfilter::ManifestShard store_shard(const FilterSnapshot::Shard& shard, const fs::path& dir) {
  seenfilter::ManifestShard entry;
  entry.rotation = shard.rotation;
  if (!shard.filter) return entry;
  const std::string bytes = shard.filter->encode();
  entry.keys = shard.filter->keys();
  entry.file_size = bytes.size();
  entry.checksum = load_u64(reinterpret_cast<const uint8_t*>(bytes.data()) + bytes.size() - seenfilter::kChecksumBytes);
  if (!has_file_of_size(dir / entry.file_name(), entry.file_size)) {
    DurableFile file(dir / (entry.file_name() + ".tmp"));
    file.append(bytes.data(), bytes.size());
    file.commit(dir / entry.file_name());
  }
  return entry;
}

// The entries of a level's shards, each distinct filter stored once.
std::vector<seenfilter::ManifestShard> store_shards(const std::vector<FilterSnapshot::Shard>& shards,
                                                    const fs::path& dir) {
  std::vector<seenfilter::ManifestShard> entries;
  for (size_t i = 0; i < shards.size(); ++i) {
    const bool same = i > 0 && shards[i].filter == shards[i - 1].filter;
    entries.push_back(same ? entries.back() : store_shard(shards[i], dir));
    entries.back().rotation = shards[i].rotation;
  }
  return entries;
}

// Version 3: the big level's shards, the runs and the log position; the log itself is already
// durable up to it (SeenFilter::snapshot()) and must be this directory's.
void store_compact(const FilterSnapshot& snapshot, const fs::path& dir, seenfilter::Manifest& manifest) {
  const fs::path log = fs::weakly_canonical(snapshot.options.hash_log);
  if (log != fs::weakly_canonical(dir / seenfilter::kHashLogFileName)) {
    throw CheckpointError(dir.string(), "a compact filter saves only into the directory of its hash log (" +
                                            snapshot.options.hash_log.string() + ")");
  }
  manifest.version = seenfilter::kTieredManifestVersion;
  manifest.compact_keys = snapshot.compact_keys;
  manifest.log_keys = snapshot.log_keys;
  manifest.shards = store_shards(snapshot.shards, dir);
  for (const FilterSnapshot::Run& run : snapshot.runs)
    manifest.runs.push_back({run.keys, store_shards(run.shards, dir)});
}

uint64_t next_sequence(const fs::path& dir) {
  uint64_t max_seq = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (const auto seq = seenfilter::parse_manifest_file_name(e.path().filename().string()))
      max_seq = std::max(max_seq, *seq);
  }
  return max_seq + 1;
}

bool is_our_temp_file(const std::string& name) {
  return name.ends_with(".tmp") && (name.starts_with("layer-") || name.starts_with("compact-") ||
                                    name.starts_with("MANIFEST-") || name == "CURRENT.tmp");
}

}  // namespace

std::string save_checkpoint(const FilterSnapshot& snapshot, const fs::path& dir, const CheckpointSaveOptions& options) {
  if (snapshot.layers.empty()) throw CheckpointError(dir.string(), "cannot save a snapshot without layers");
  try {
    fs::create_directories(dir);
    seenfilter::Manifest manifest;
    manifest.options = snapshot.options;
    for (const FilterSnapshot::Layer& layer : snapshot.layers)
      manifest.layers.push_back(store_layer(layer, dir, options));
    if (!snapshot.options.hash_log.empty()) store_compact(snapshot, dir, manifest);
    sync_directory(dir);
    report(options, "layers synced");

    manifest.sequence = next_sequence(dir);
    std::string manifest_name = seenfilter::manifest_file_name(manifest.sequence);
    const std::vector<uint8_t> bytes = seenfilter::encode_manifest(manifest);
    write_file_durably(dir / manifest_name, bytes.data(), bytes.size());
    sync_directory(dir);
    report(options, "manifest written");

    const std::string current = manifest_name + "\n";
    write_file_durably(dir / seenfilter::kCurrentFileName, current.data(), current.size());
    sync_directory(dir);
    report(options, "CURRENT switched");

    if (options.retention) {
      retain_checkpoints(dir, options.keep_manifests);
      report(options, "retention done");
    }
    return manifest_name;
  } catch (const fs::filesystem_error& e) {
    throw CheckpointError(e.path1().empty() ? dir.string() : e.path1().string(), e.code().message());
  }
}

void retain_checkpoints(const fs::path& dir, uint32_t keep, const std::set<std::string>& pinned) {
  std::error_code ec;
  std::vector<uint64_t> sequences;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (const auto seq = seenfilter::parse_manifest_file_name(name)) sequences.push_back(*seq);
    if (is_our_temp_file(name)) fs::remove(e.path(), ec);
  }
  uint64_t current = 0;
  try {
    current = *seenfilter::parse_manifest_file_name(seenfilter::resolve_manifest_name(dir, {}));
  } catch (const std::exception&) {
    return;  // which manifest is current is unknown: every one may be the one to load
  }
  std::sort(sequences.rbegin(), sequences.rend());
  std::set<std::string> referenced;
  bool all_kept_readable = true;
  uint32_t older_kept = 0;
  for (const uint64_t seq : sequences) {
    const std::string name = seenfilter::manifest_file_name(seq);
    bool kept = seq >= current || pinned.contains(name);
    if (!kept && older_kept + 1 < std::max<uint32_t>(keep, 1)) {
      kept = true;
      ++older_kept;
    }
    if (!kept) {
      fs::remove(dir / name, ec);
      continue;
    }
    try {
      const seenfilter::Manifest m = seenfilter::read_manifest_file(dir / name);
      for (const ManifestLayer& l : m.layers) referenced.insert(l.file_name());
      for (const seenfilter::ManifestShard& sh : m.shards) referenced.insert(sh.file_name());
      for (const seenfilter::ManifestRun& run : m.runs) {
        for (const seenfilter::ManifestShard& sh : run.shards) referenced.insert(sh.file_name());
      }
    } catch (const std::exception&) {
      all_kept_readable = false;  // its layer files are unknown: delete none
    }
  }
  if (!all_kept_readable) return;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const bool ours = (name.starts_with("layer-") && name.ends_with(".sfl")) ||
                      (name.starts_with("compact-") && name.ends_with(".sff"));
    if (ours && !referenced.contains(name)) fs::remove(e.path(), ec);
  }
}

}  // namespace bloomcrawl
