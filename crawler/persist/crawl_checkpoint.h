// Crawl checkpoints: one generation of a crawl's state in a directory, and the generations
// around it (format: docs/checkpoint-format.md, "Crawl checkpoint"). A generation is
//   filter/              the seen filter's own checkpoint (sealed layers written once, shared)
//   frontier-G/          the disk frontier's checkpoint (Frontier::write_checkpoint), written by
//                        the caller before the save (version 1 had frontier-G.bin snapshot bytes)
//   records-G/           the URL records' checkpoint (RecordStore::checkpoint_to, records/), written
//                        by the caller before the save; absent in generations written before them
//   audit-G.bin          the exact audit set (only with `audit`)
//   CRAWL-G              the manifest: what the files are (sizes, checksums), the config and its
//                        canonical key hash, CrawlStats, resume counters, leases to requeue
//   journal-G.log        what happened after generation G was cut (journal.h)
// CURRENT names the newest complete CRAWL-G and is switched last (temp, fsync, rename, fsync dir),
// so a kill at any instant leaves the previous generation loadable. Loading verifies every size
// and checksum; a generation that fails falls back to the one before, with a warning naming the
// file and the problem. Errors are CheckpointError naming the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/data_error.h"
#include "frontier/frontier_types.h"
#include "seenfilter/seen_filter.h"

namespace bloomcrawl {

inline constexpr std::string_view kCrawlManifestMagic{"BCCRMANI", 8};
// Version 2 names a frontier directory; version 1 (a frontier snapshot file) is still read.
inline constexpr uint32_t kCrawlManifestVersion = 2;

// The default constructor is flagged only for nlohmann::json's own (noexcept), whose null path never
// reaches its JSON_THROW (nlohmann 3.11): nothing can escape.
// NOLINTNEXTLINE(bugprone-exception-escape): a false positive, explained above
struct CrawlManifest {
  uint64_t generation = 0;
  std::string key_hash;            // canonical_key_hash() of the config
  nlohmann::json config;           // to_json(CrawlConfig)
  nlohmann::json stats;            // CrawlStats::to_json()
  nlohmann::json counters;         // the crawler's resume and audit counters
  std::string filter_manifest;     // in filter/
  std::string frontier_directory;  // version 2: frontier-G/
  std::string frontier_file;       // version 1 (encoded as version 1 when set): frontier-G.bin
  uint64_t frontier_bytes = 0;
  uint64_t frontier_checksum = 0;  // XXH3-64 of the file
  std::string records_directory;   // records-G/, empty when the generation has none
  uint64_t queued = 0;             // URLs in the frontier checkpoint (for inspect)
  uint64_t pages_done = 0;         // pages fetched so far (for inspect)
  std::string audit_file;          // empty: audit off
  uint64_t audit_bytes = 0;
  uint64_t audit_checksum = 0;
  // Fetched but not yet processed when the generation was cut: the frontier snapshot no longer
  // holds them, so a resume queues them again (unless the journal says they were completed).
  std::vector<FrontierUrl> requeue;
  // Canonical URLs dispatched and not completed at the cut (or at a crash not yet re-dispatched):
  // fetching one of them again counts as a page refetched after a crash.
  std::vector<std::string> outstanding;
};

std::string encode_crawl_manifest(const CrawlManifest& manifest);
// Throws CheckpointError naming `name` and what is wrong.
CrawlManifest decode_crawl_manifest(std::string_view bytes, const std::string& name);

// Flagged through the manifest, as CrawlManifest above.
// NOLINTNEXTLINE(bugprone-exception-escape): a false positive, explained above
struct CrawlCheckpoint {
  CrawlManifest manifest;
  FilterSnapshot filter;
  std::filesystem::path frontier_directory;  // loaded version 2: Frontier::open_checkpoint() it
  std::string frontier;                      // loaded version 1: Frontier::restore() it
  std::filesystem::path records_directory;   // verified (RecordStore::verify); empty: none
  // The frontier checkpoint is damaged or missing in every generation: this one is loaded without
  // it, and the resume rebuilds the queue from its URL records (docs/checkpoint-format.md).
  bool frontier_lost = false;
  std::vector<uint64_t> audit;  // sorted; empty when audit is off
  bool audit_enabled = false;
};

struct CrawlSaveResult {
  std::string manifest_file;   // "CRAWL-000012"
  uint64_t bytes_written = 0;  // new bytes on disk (reused sealed layers excluded)
};

// The frontier checkpoint directory of generation G, "frontier-G" (a plain name in the crawl
// checkpoint directory).
std::string frontier_directory_name(uint64_t generation);

// Writes generation checkpoint.manifest.generation (filling in the file fields of the manifest)
// and makes it current. Its frontier must already be written, durably, in
// dir / frontier_directory_name(generation), and its records (when it has them) in
// dir / record_store_directory_name(generation) (records/record_store.h). Only then, with the whole generation durable,
// retention: the generation CURRENT names and the `keep - 1` before it stay, with every file they name and the journals
// a resume from them replays; nothing else of the directory is needed. A failed write, fsync or rename throws
// CheckpointError naming the file, with nothing removed: the previous generation stays current (or, when only the final
// directory sync failed, CURRENT may already name this one, which is complete too).
CrawlSaveResult save_crawl_checkpoint(CrawlCheckpoint& checkpoint, const std::filesystem::path& dir, uint32_t keep);

// True if `dir` holds a CURRENT naming a crawl manifest.
bool is_crawl_checkpoint(const std::filesystem::path& dir);
// The newest generation that loads, falling back (with a warning) past corrupted ones; when no
// generation's frontier loads, the newest one that loads but for it and has URL records, its
// frontier_lost set. Throws CheckpointError if none does.
CrawlCheckpoint load_crawl_checkpoint(const std::filesystem::path& dir);
// Reads and verifies one manifest file (empty name: the one CURRENT names).
CrawlManifest read_crawl_manifest(const std::filesystem::path& dir, std::string name = {});

std::filesystem::path journal_path(const std::filesystem::path& dir, uint64_t generation);
// Journals of generations >= `generation`, oldest first: all of them are replayed on resume.
std::vector<std::filesystem::path> journals_since(const std::filesystem::path& dir, uint64_t generation);
// One more than any generation in `dir` (manifests and journals), 1 for an empty directory.
uint64_t next_generation(const std::filesystem::path& dir);

}  // namespace bloomcrawl
