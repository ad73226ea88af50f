// The URL records a `bloomcrawl lookup` or `export` reads from DIR (docs/records.md, "lookup and
// export on a running crawl"), with the URL canonicalization of the crawl that wrote them:
//  - a checkpoint directory (CURRENT names a crawl manifest): generation G's copy, records-G/,
//    opened read-only, and the canonicalization of the config in CRAWL-G;
//  - an output directory with records/: that store, opened as a RocksDB secondary (a running
//    crawl may be writing it; the reader takes no lock), and the canonicalization of the config
//    in its report.json (the defaults when there is none yet).
// Anything else throws std::runtime_error naming DIR and what is missing.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "crawler/url/canonical.h"
#include "records/record_store.h"

namespace bloomcrawl::cli {

class RecordsSource {
 public:
  explicit RecordsSource(const std::filesystem::path& dir);
  ~RecordsSource();
  RecordsSource(const RecordsSource&) = delete;
  RecordsSource& operator=(const RecordsSource&) = delete;

  RecordStore& store() { return *store_; }
  const CanonicalizeOptions& canonicalize() const { return canonicalize_; }

 private:
  std::filesystem::path scratch_;  // the secondary instance's own directory, removed at the end
  std::unique_ptr<RecordStore> store_;
  CanonicalizeOptions canonicalize_;
};

}  // namespace bloomcrawl::cli
