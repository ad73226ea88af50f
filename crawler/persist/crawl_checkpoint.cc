#include "crawler/persist/crawl_checkpoint.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <set>

#include <spdlog/spdlog.h>

#include "base/checksum.h"
#include "base/data_error.h"
#include "base/durable_file.h"
#include "base/file_system.h"
#include "crawler/persist/audit_set.h"
#include "frontier/frontier.h"
#include "records/record_store.h"
#include "seenfilter/checkpoint.h"

namespace bloomcrawl {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCurrent = "CURRENT";
constexpr const char* kFilterDir = "filter";
constexpr std::string_view kManifestPrefix = "CRAWL-";
constexpr size_t kMaxManifestBytes = size_t{1} << 30;

std::string numbered(std::string_view prefix, uint64_t generation, std::string_view suffix) {
  char digits[24];
  std::snprintf(digits, sizeof digits, "%06" PRIu64, generation);
  return std::string(prefix) + digits + std::string(suffix);
}

// The generation in "PREFIX<digits>SUFFIX", or nullopt for any other name.
std::optional<uint64_t> generation_of(const std::string& name, std::string_view prefix, std::string_view suffix) {
  if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return std::nullopt;
  }
  std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoull(digits);
}

std::vector<uint64_t> generations(const fs::path& dir, std::string_view prefix, std::string_view suffix) {
  std::vector<uint64_t> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (auto g = generation_of(e.path().filename().string(), prefix, suffix)) out.push_back(*g);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_verified(const fs::path& path, uint64_t size, uint64_t checksum) {
  std::string bytes = read_whole_file(path);
  if (bytes.size() != size) {
    throw CheckpointError(path.string(),
                          "size " + std::to_string(bytes.size()) + ", the manifest says " + std::to_string(size));
  }
  if (checksum64(bytes) != checksum) throw CheckpointError(path.string(), "checksum mismatch");
  return bytes;
}

std::string current_manifest_name(const fs::path& dir) {
  std::string name = read_whole_file(dir / kCurrent, 256);
  if (name.empty() || name.back() != '\n')
    throw CheckpointError((dir / kCurrent).string(), "not terminated by a newline");
  name.pop_back();
  if (!generation_of(name, kManifestPrefix, "")) {
    throw CheckpointError((dir / kCurrent).string(), "does not name a crawl manifest: '" + name + "'");
  }
  return name;
}

// The frontier directories' generations (frontier-G/; not version 1's frontier-G.bin files).
std::vector<uint64_t> frontier_generations(const fs::path& dir) {
  std::vector<uint64_t> out;
  for (const uint64_t g : generations(dir, "frontier-", "")) {
    std::error_code ec;
    if (fs::is_directory(dir / frontier_directory_name(g), ec)) out.push_back(g);
  }
  return out;
}

// Bytes generation G's frontier directory added to the disk: its files, less the store files
// (SSTs, hard links) that the previous frontier directory has too.
uint64_t new_frontier_bytes(const fs::path& dir, uint64_t generation) {
  std::set<std::string> before;
  const std::vector<uint64_t> gens = frontier_generations(dir);
  const auto previous = std::lower_bound(gens.begin(), gens.end(), generation);
  std::error_code ec;
  if (previous != gens.begin()) {
    const fs::path store = dir / frontier_directory_name(*std::prev(previous)) / "store";
    for (const fs::directory_entry& e : fs::directory_iterator(store, ec)) before.insert(e.path().filename().string());
  }
  uint64_t bytes = 0;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir / frontier_directory_name(generation), ec)) {
    if (e.is_regular_file(ec) && !before.contains(e.path().filename().string())) bytes += e.file_size(ec);
  }
  return bytes;
}

std::set<std::string> layer_files(const fs::path& filter_dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(filter_dir, ec)) {
    if (e.path().extension() == ".sfl") out.insert(e.path().filename().string());
  }
  return out;
}

// Retention by reference, run only once a generation is committed: keeps the generation CURRENT
// names, the `keep - 1` newest manifests before it, and any newer (a save that failed before its
// switch); removes the other manifests, the frontier directories (and version 1 frontier files)
// and audit files no kept manifest names (those
// of failed saves too), the journals older than the oldest kept generation (a resume from one
// replays every journal from its own on), the filter manifests and layers no kept manifest needs,
// and leftover temp files. While a kept manifest cannot be read, what it names is unknown: frontier
// and audit files go only by generation number and the filter directory is left alone. Best
// effort and never throws: the generation is already committed.
void apply_retention(const fs::path& dir, uint32_t keep) {
  uint64_t current = 0;
  try {
    current = *generation_of(current_manifest_name(dir), kManifestPrefix, "");
  } catch (const std::exception&) {
    return;  // which generation is current is unknown: any may be the one to load
  }
  std::vector<uint64_t> manifests = generations(dir, kManifestPrefix, "");
  std::reverse(manifests.begin(), manifests.end());  // newest first
  std::set<uint64_t> kept{current};
  uint32_t older_kept = 0;
  for (const uint64_t g : manifests) {
    if (g > current) {
      kept.insert(g);
    } else if (g < current && older_kept + 1 < keep) {
      kept.insert(g);
      ++older_kept;
    }
  }
  const uint64_t oldest = *kept.begin();
  std::set<std::string> named;             // frontier and audit files
  std::set<std::string> filter_manifests;  // in filter/
  bool all_kept_readable = true;
  for (const uint64_t g : kept) {
    try {
      const CrawlManifest m = read_crawl_manifest(dir, numbered(kManifestPrefix, g, ""));
      named.insert(m.frontier_directory.empty() ? m.frontier_file : m.frontier_directory);
      if (!m.records_directory.empty()) named.insert(m.records_directory);
      if (!m.audit_file.empty()) named.insert(m.audit_file);
      filter_manifests.insert(m.filter_manifest);
    } catch (const std::exception&) {
      all_kept_readable = false;
    }
  }
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    bool stale = e.path().extension() == ".tmp";
    if (const auto g = generation_of(name, kManifestPrefix, "")) stale = !kept.contains(*g);
    if (const auto g = generation_of(name, "journal-", ".log")) stale = *g < oldest;
    std::optional<uint64_t> g = generation_of(name, "frontier-", ".bin");
    if (!g) g = generation_of(name, "frontier-", "");
    if (!g) g = generation_of(name, "records-", "");
    if (!g) g = generation_of(name, "audit-", ".bin");
    if (g) stale = *g < current && (all_kept_readable ? !named.contains(name) : *g < oldest);
    if (stale) fs::remove_all(e.path(), ec);
  }
  if (all_kept_readable) retain_checkpoints(dir / kFilterDir, 1, filter_manifests);
}

}  // namespace

fs::path journal_path(const fs::path& dir, uint64_t generation) {
  return dir / numbered("journal-", generation, ".log");
}

std::vector<fs::path> journals_since(const fs::path& dir, uint64_t generation) {
  std::vector<fs::path> out;
  for (uint64_t g : generations(dir, "journal-", ".log")) {
    if (g >= generation) out.push_back(journal_path(dir, g));
  }
  return out;
}

std::string frontier_directory_name(uint64_t generation) { return numbered("frontier-", generation, ""); }

uint64_t next_generation(const fs::path& dir) {
  uint64_t max = 0;
  for (uint64_t g : generations(dir, kManifestPrefix, "")) max = std::max(max, g);
  for (uint64_t g : generations(dir, "journal-", ".log")) max = std::max(max, g);
  for (uint64_t g : frontier_generations(dir)) max = std::max(max, g);
  return max + 1;
}

CrawlSaveResult save_crawl_checkpoint(CrawlCheckpoint& checkpoint, const fs::path& dir, uint32_t keep) {
  keep = std::max(keep, 1u);
  CrawlManifest& m = checkpoint.manifest;
  fs::create_directories(dir / kFilterDir);
  CrawlSaveResult result;

  // Sealed layers already on disk are reused by save_checkpoint: count only what it adds.
  const std::set<std::string> layers_before = layer_files(dir / kFilterDir);
  CheckpointSaveOptions filter_options;
  // Retention waits for the whole generation: until CURRENT names it, the filter state that the
  // committed generations name is all a resume has.
  filter_options.retention = false;
  m.filter_manifest = save_checkpoint(checkpoint.filter, dir / kFilterDir, filter_options);
  std::error_code ec;
  for (const std::string& layer : layer_files(dir / kFilterDir)) {
    if (!layers_before.contains(layer)) result.bytes_written += fs::file_size(dir / kFilterDir / layer, ec);
  }
  result.bytes_written += fs::file_size(dir / kFilterDir / m.filter_manifest, ec);

  m.frontier_directory = frontier_directory_name(m.generation);
  m.frontier_file.clear();
  if (!fs::is_regular_file(dir / m.frontier_directory / kFrontierStateFile, ec)) {
    throw CheckpointError((dir / m.frontier_directory).string(), "the frontier checkpoint was not written");
  }
  result.bytes_written += new_frontier_bytes(dir, m.generation);
  m.records_directory.clear();
  if (fs::is_directory(dir / record_store_directory_name(m.generation), ec)) {
    m.records_directory = record_store_directory_name(m.generation);
  }

  if (checkpoint.audit_enabled) {
    const std::string audit = encode_audit_file(checkpoint.audit);
    m.audit_file = numbered("audit-", m.generation, ".bin");
    m.audit_bytes = audit.size();
    m.audit_checksum = checksum64(audit);
    write_file_durably(dir / m.audit_file, audit.data(), audit.size());
    result.bytes_written += audit.size();
  }

  result.manifest_file = numbered(kManifestPrefix, m.generation, "");
  const std::string manifest = encode_crawl_manifest(m);
  write_file_durably(dir / result.manifest_file, manifest.data(), manifest.size());
  sync_directory(dir);
  const std::string current = result.manifest_file + "\n";
  write_file_durably(dir / kCurrent, current.data(), current.size());  // the commit point
  sync_directory(dir);
  result.bytes_written += manifest.size() + current.size();
  apply_retention(dir, keep);
  return result;
}

bool is_crawl_checkpoint(const fs::path& dir) {
  try {
    current_manifest_name(dir);
    return true;
  } catch (const CheckpointError&) {
    return false;
  }
}

CrawlManifest read_crawl_manifest(const fs::path& dir, std::string name) {
  if (name.empty()) name = current_manifest_name(dir);
  const fs::path path = dir / name;
  return decode_crawl_manifest(read_whole_file(path, kMaxManifestBytes), path.string());
}

namespace {

// `without_frontier`: a generation whose frontier does not load is taken without it when it has
// URL records, which the resume rebuilds the queue from.
CrawlCheckpoint load_generation(const fs::path& dir, const std::string& manifest_name, bool without_frontier) {
  CrawlCheckpoint cp;
  cp.manifest = read_crawl_manifest(dir, manifest_name);
  const CrawlManifest& m = cp.manifest;
  cp.filter = read_checkpoint(dir / kFilterDir, m.filter_manifest);
  if (!m.records_directory.empty()) {
    cp.records_directory = dir / m.records_directory;
    RecordStore::verify(cp.records_directory);  // a CheckpointError naming the bad file
  }
  if (m.frontier_directory.empty()) {
    cp.frontier = read_verified(dir / m.frontier_file, m.frontier_bytes, m.frontier_checksum);
  } else {
    cp.frontier_directory = dir / m.frontier_directory;
    try {
      Frontier::check_checkpoint(cp.frontier_directory);
    } catch (const std::runtime_error& e) {
      if (!without_frontier || cp.records_directory.empty()) {
        throw CheckpointError(cp.frontier_directory.string(), e.what());
      }
      spdlog::warn("{}: {}: the queue is rebuilt from the URL records in {}", cp.frontier_directory.string(), e.what(),
                   cp.records_directory.string());
      cp.frontier_directory.clear();
      cp.frontier_lost = true;
    }
  }
  if (!m.audit_file.empty()) {
    cp.audit_enabled = true;
    const fs::path path = dir / m.audit_file;
    cp.audit = decode_audit_file(read_verified(path, m.audit_bytes, m.audit_checksum), path.string());
  }
  return cp;
}

}  // namespace

CrawlCheckpoint load_crawl_checkpoint(const fs::path& dir) {
  std::vector<std::string> candidates;
  std::string current;
  try {
    current = current_manifest_name(dir);
    candidates.push_back(current);
  } catch (const CheckpointError& e) {
    spdlog::warn("{}; looking for older crawl manifests", e.what());
  }
  std::vector<uint64_t> gens = generations(dir, kManifestPrefix, "");
  std::reverse(gens.begin(), gens.end());  // newest first
  for (const uint64_t g : gens) {
    std::string name = numbered(kManifestPrefix, g, "");
    if (name != current) candidates.push_back(name);
  }
  std::string failures;
  // An older generation's frontier is exact; the records' queue loses what only the frontier
  // keeps (a URL's parent, redirect hops, sitemap mark): only when no generation has a frontier.
  for (const bool without_frontier : {false, true}) {
    for (const std::string& name : candidates) {
      try {
        CrawlCheckpoint cp = load_generation(dir, name, without_frontier);
        if (without_frontier) {
          spdlog::warn("resuming from the generation {} without a frontier: it is rebuilt from the URL records", name);
        } else if (!failures.empty()) {
          spdlog::warn("resuming from the older generation {}", name);
        }
        return cp;
      } catch (const std::exception& e) {
        if (without_frontier) continue;  // said in the first pass
        spdlog::warn("crawl checkpoint generation {} cannot be loaded: {}", name, e.what());
        failures += std::string(failures.empty() ? "" : "; ") + e.what();
      }
    }
  }
  throw CheckpointError(dir.string(), candidates.empty() ? "no crawl checkpoint (no CURRENT and no CRAWL-* manifest)"
                                                         : "no generation loads: " + failures);
}

}  // namespace bloomcrawl
