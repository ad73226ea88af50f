// CompletedOutputs check: whether the outputs a page's completed journal record says it wrote are on
// disk, so that a resume trusts the record (the page is not fetched again) only then. A completed
// record is written at once, before the group commit syncs the outputs, so after a power loss it
// can be on disk while they are not (docs/checkpoint-format.md, "Durable before done").
// On disk means: pages.jsonl holds a whole line ending where the record says, and that line is the
// page's (it names its URL), so a file cut by the power loss and grown again by a later run is not
// taken for it; edges.jsonl and the WARC file (under its completed or its .open name) are at least
// as long as the record says. Not thread-safe; for one resume's replay.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <unordered_map>

#include "crawler/persist/journal_records.h"

namespace bloomcrawl {

class OutputsOnDisk {
 public:
  explicit OutputsOnDisk(std::filesystem::path output_dir);

  bool holds(std::string_view url, const CompletedOutputs& outputs);

 private:
  // The length of `path` now (0 when it does not exist), read once.
  uint64_t length(const std::filesystem::path& path);
  bool page_line_ends_at(std::string_view url, uint64_t end);

  std::filesystem::path dir_;
  std::unordered_map<std::string, uint64_t> lengths_;
  std::ifstream pages_;
};

}  // namespace bloomcrawl
