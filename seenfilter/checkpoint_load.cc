// read_checkpoint / load_checkpoint / inspect_checkpoint: all go through the same verified
// manifest and layer-file readers (checkpoint_files.h).
#include <cstring>
#include <new>

#include "seenfilter/checkpoint.h"
#include "seenfilter/checkpoint_files.h"
#include "seenfilter/fpr_estimate.h"
#include "seenfilter/layer_plan.h"

namespace bloomcrawl {
namespace fs = std::filesystem;
using seenfilter::ManifestLayer;

namespace {

std::shared_ptr<seenfilter::LayerBits> allocate_layer(const ManifestLayer& entry, const fs::path& path) {
  try {
    return std::make_shared<seenfilter::LayerBits>(entry.geometry());
  } catch (const std::bad_alloc&) {
    throw CheckpointError(path.string(), "cannot allocate " + std::to_string(entry.geometry().bytes()) + " bytes");
  }
}

}  // namespace

bool checkpoint_exists(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / seenfilter::kCurrentFileName, ec);
}

FilterSnapshot read_checkpoint(const fs::path& dir, std::string_view manifest_name) {
  const std::string name = seenfilter::resolve_manifest_name(dir, manifest_name);
  const seenfilter::Manifest manifest = seenfilter::read_manifest_file(dir / name);
  FilterSnapshot snapshot;
  snapshot.options = manifest.options;
  for (const ManifestLayer& entry : manifest.layers) {
    const fs::path path = dir / entry.file_name();
    std::shared_ptr<seenfilter::LayerBits> bits;
    seenfilter::scan_layer_file(path, entry, [&](uint64_t offset, const uint8_t* data, size_t size) {
      if (!bits) bits = allocate_layer(entry, path);  // only once the file's size and header are verified
      std::memcpy(reinterpret_cast<uint8_t*>(bits->words()) + offset, data, size);
    });
    // Verified content: a later save of this unchanged layer reuses the file instead of rewriting it.
    bits->cache_checksum(entry.keys, entry.checksum);
    snapshot.layers.push_back({std::move(bits), entry.keys});
  }
  return snapshot;
}

std::unique_ptr<SeenFilter> load_checkpoint(const fs::path& dir, std::string_view manifest_name) {
  return std::make_unique<SeenFilter>(read_checkpoint(dir, manifest_name));
}

CheckpointInfo inspect_checkpoint(const fs::path& dir, std::string_view manifest_name) {
  CheckpointInfo info;
  info.manifest = seenfilter::resolve_manifest_name(dir, manifest_name);
  const seenfilter::Manifest manifest = seenfilter::read_manifest_file(dir / info.manifest);
  info.sequence = manifest.sequence;
  info.options = manifest.options;
  std::vector<seenfilter::LayerLoad> loads;
  for (const ManifestLayer& entry : manifest.layers) {
    CheckpointLayerInfo layer;
    layer.entry = entry;
    layer.file = entry.file_name();
    seenfilter::scan_layer_file(dir / layer.file, entry, [&](uint64_t, const uint8_t* data, size_t size) {
      for (size_t i = 0; i < size; i += 8) {
        uint64_t word;
        std::memcpy(&word, data + i, 8);
        layer.set_bits += static_cast<uint64_t>(__builtin_popcountll(word));
      }
    });
    const seenfilter::LayerGeometry g = entry.geometry();
    layer.fill = static_cast<double>(layer.set_bits) / static_cast<double>(g.bytes() * 8);
    layer.bits_per_key = g.bits_per_key();
    layer.target_fpr = seenfilter::layer_fpr_share(manifest.options, entry.index);
    layer.estimated_fpr = seenfilter::layer_fpr(g, entry.keys);
    info.keys += entry.keys;
    info.bytes += g.bytes();
    loads.push_back({g, entry.keys});
    info.layers.push_back(layer);
  }
  info.estimated_fpr = seenfilter::compounded_fpr(loads);
  info.estimated_false_positives = seenfilter::expected_false_positives(loads);
  return info;
}

}  // namespace bloomcrawl
