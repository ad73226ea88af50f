// Reading the files of a checkpoint directory: CURRENT, manifests, and layer files streamed in
// pieces with every size and checksum verified. Shared by loading and inspection.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "seenfilter/checkpoint_format.h"

namespace bloomcrawl::seenfilter {

inline constexpr const char* kCurrentFileName = "CURRENT";

// The manifest file name that CURRENT holds, or `requested` (validated) when not empty.
std::string resolve_manifest_name(const std::filesystem::path& dir, std::string_view requested);
Manifest read_manifest_file(const std::filesystem::path& path);

// Streams the bits of a layer file to `consume(offset, data, size)` (offset into the bit array),
// after checking the header against `entry`; checks the trailer and checksum at the end.
using LayerBytesConsumer = std::function<void(uint64_t offset, const uint8_t* data, size_t size)>;
void scan_layer_file(const std::filesystem::path& path, const ManifestLayer& entry, const LayerBytesConsumer& consume);

}  // namespace bloomcrawl::seenfilter
