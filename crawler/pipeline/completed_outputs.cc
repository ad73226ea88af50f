#include "crawler/pipeline/completed_outputs.h"

#include <nlohmann/json.hpp>

namespace bloomcrawl {

OutputsOnDisk::OutputsOnDisk(std::filesystem::path output_dir)
    : dir_(std::move(output_dir)), pages_(dir_ / "pages.jsonl", std::ios::binary) {}

bool OutputsOnDisk::holds(std::string_view url, const CompletedOutputs& outputs) {
  if (outputs.pages_end > 0 && !page_line_ends_at(url, outputs.pages_end)) return false;
  if (outputs.edges_end > length(dir_ / "edges.jsonl")) return false;
  if (outputs.warc_file.empty()) return true;
  const std::filesystem::path warc = dir_ / "warc" / outputs.warc_file;
  return outputs.warc_end <= length(warc) || outputs.warc_end <= length(warc.string() + ".open");
}

uint64_t OutputsOnDisk::length(const std::filesystem::path& path) {
  auto [it, added] = lengths_.try_emplace(path.string(), 0);
  if (added) {
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    it->second = ec ? 0 : size;
  }
  return it->second;
}

bool OutputsOnDisk::page_line_ends_at(std::string_view url, uint64_t end) {
  if (end > length(dir_ / "pages.jsonl") || !pages_) return false;
  // The line is read backwards from its end in blocks: a page's line is short, but has no bound.
  constexpr uint64_t kBlock = 4096;
  std::string line;
  for (uint64_t start = end;;) {
    const uint64_t from = start > kBlock ? start - kBlock : 0;
    std::string block(start - from, '\0');
    pages_.clear();
    pages_.seekg(static_cast<std::streamoff>(from));
    if (!pages_.read(block.data(), static_cast<std::streamsize>(block.size()))) return false;
    line.insert(0, block);
    // The line's own newline is its last byte; the one before it (or the file's start) begins it.
    const size_t previous = line.size() > 1 ? line.rfind('\n', line.size() - 2) : std::string::npos;
    if (previous != std::string::npos) {
      line.erase(0, previous + 1);
      break;
    }
    if (from == 0) break;
    start = from;
  }
  if (line.empty() || line.back() != '\n') return false;
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  return j.is_object() && j.contains("url") && j["url"].is_string() && j["url"].get_ref<const std::string&>() == url;
}

}  // namespace bloomcrawl
