// Fuzz target for the seen-filter checkpoint readers (manifest and layer files). The first input
// byte picks what the rest is:
//   0: a manifest, decoded as is;
//   1: a manifest whose trailing checksum is recomputed, so fields past the checksum are reached,
//      then loaded against the layer files of a small valid checkpoint;
//   2: a layer file, loaded through a manifest built to match its header and checksum, so the
//      layer header checks, the bit reader and filter reconstruction are reached.
// Any outcome but a clean load or a CheckpointError is a bug.
#include <stdlib.h>  // NOLINT(modernize-deprecated-headers): mkdtemp() is POSIX, declared by <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "base/checksum.h"
#include "base/coding.h"
#include "seenfilter/checkpoint.h"
#include "seenfilter/checkpoint_format.h"

namespace {

namespace fs = std::filesystem;
using namespace bloomcrawl;

// A small valid checkpoint to load fuzzed manifests against; removed when the fuzzer exits.
struct ScratchDir {
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "checkpoint-fuzz-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
    SeenFilterOptions o;
    o.initial_capacity = 64;
    o.target_fpr = 1e-3;
    SeenFilter filter(o);
    // The same keys as the seed corpus (bloomcrawl dedup of these lines), so seeds match its files.
    for (int i = 1; i <= 300; ++i) filter.insert("https://example.com/" + std::to_string(i));
    save_checkpoint(filter.snapshot(), path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path path;
};

const fs::path& scratch_dir() {
  static const ScratchDir dir;
  return dir.path;
}

void write_file(const fs::path& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

void load_expecting_only_checkpoint_errors(const std::string& manifest) {
  try {
    auto filter = load_checkpoint(scratch_dir(), manifest);
    filter->insert("https://example.com/after-load");
    (void)filter->stats();
  } catch (const CheckpointError&) {
  }
}

void fuzz_manifest(std::vector<uint8_t> bytes, bool fix_checksum) {
  if (fix_checksum && bytes.size() >= seenfilter::kChecksumBytes) {
    const size_t body = bytes.size() - seenfilter::kChecksumBytes;
    store_u64(bytes.data() + body, checksum64(bytes.data(), body));
  }
  try {
    (void)seenfilter::decode_manifest(bytes, "fuzz-manifest");
  } catch (const CheckpointError&) {
  }
  if (!fix_checksum) return;
  write_file(scratch_dir() / "MANIFEST-999999", bytes.data(), bytes.size());
  load_expecting_only_checkpoint_errors("MANIFEST-999999");
}

void fuzz_layer_file(const std::vector<uint8_t>& bytes) {
  if (bytes.size() < seenfilter::kLayerHeaderBytes + seenfilter::kChecksumBytes) return;
  seenfilter::ManifestLayer entry;
  const uint8_t* h = bytes.data();
  entry.index = 0;
  std::memcpy(&entry.probes, h + 16, 4);
  entry.capacity = load_u64(h + 24);
  entry.keys = load_u64(h + 32);
  entry.blocks = load_u64(h + 40);
  entry.file_size = seenfilter::layer_file_size(entry.blocks);
  entry.checksum = load_u64(bytes.data() + bytes.size() - seenfilter::kChecksumBytes);
  seenfilter::Manifest manifest;
  manifest.sequence = 999998;
  manifest.options.initial_capacity = 64;
  manifest.options.target_fpr = 1e-3;
  manifest.layers.push_back(entry);
  const std::vector<uint8_t> encoded = seenfilter::encode_manifest(manifest);
  const fs::path layer = scratch_dir() / entry.file_name();
  const bool seed_file = fs::exists(layer);  // the input is one of the valid checkpoint's layers
  write_file(layer, bytes.data(), bytes.size());
  write_file(scratch_dir() / "MANIFEST-999998", encoded.data(), encoded.size());
  load_expecting_only_checkpoint_errors("MANIFEST-999998");
  if (!seed_file) fs::remove(layer);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::vector<uint8_t> rest(data + 1, data + size);
  switch (data[0] % 3) {
    case 0: fuzz_manifest(std::move(rest), false); break;
    case 1: fuzz_manifest(std::move(rest), true); break;
    default: fuzz_layer_file(rest); break;
  }
  return 0;
}
