#include "crawler/cli/records_source.h"

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <system_error>

#include "config/config.h"
#include "crawler/persist/crawl_checkpoint.h"
#include "crawler/pipeline/crawl_settings.h"

namespace bloomcrawl::cli {
namespace {

namespace fs = std::filesystem;

// The crawl's canonicalization from its effective config (to_json(CrawlConfig)), as the crawl
// itself derives it (settings_from_config).
CanonicalizeOptions canonicalize_options_of(const nlohmann::json& config, const std::string& source) {
  if (!config.is_object()) return {};
  LoadOptions options;
  options.require_seeds = false;
  return settings_from_config(parse_config(config.dump(), source, options)).canonicalize;
}

nlohmann::json report_config(const fs::path& report) {
  std::ifstream in(report);
  if (!in) return nullptr;  // a crawl that has written none yet
  const nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return json.is_object() && json.contains("config") ? json["config"] : nlohmann::json(nullptr);
}

fs::path make_scratch() {
  std::string pattern = (fs::temp_directory_path() / "bloomcrawl-records-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "cannot make a temporary directory");
  }
  return pattern;
}

}  // namespace

RecordsSource::RecordsSource(const fs::path& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) throw std::runtime_error(dir.string() + ": not a directory");
  if (is_crawl_checkpoint(dir)) {
    const CrawlManifest manifest = read_crawl_manifest(dir);
    const fs::path store = dir / record_store_directory_name(manifest.generation);
    if (!fs::is_directory(store, error)) {
      throw std::runtime_error(dir.string() + ": no records store: generation " + std::to_string(manifest.generation) +
                               " has no " + store.filename().string() + "/ (written by a crawl without records?)");
    }
    canonicalize_ = canonicalize_options_of(manifest.config, (dir / "CURRENT").string());
    store_ = RecordStore::open_read_only(store);
    return;
  }
  const fs::path store = dir / kOutputRecordStoreDirectory;
  if (!fs::is_directory(store, error)) {
    throw std::runtime_error(dir.string() +
                             ": no records store (neither a checkpoint directory, with CURRENT, nor an output "
                             "directory with records/)");
  }
  canonicalize_ = canonicalize_options_of(report_config(dir / "report.json"), (dir / "report.json").string());
  scratch_ = make_scratch();
  try {
    store_ = RecordStore::open_secondary(store, scratch_);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(scratch_, ignored);
    throw;
  }
}

RecordsSource::~RecordsSource() {
  store_.reset();  // before the directory it keeps its files in
  std::error_code ignored;
  if (!scratch_.empty()) fs::remove_all(scratch_, ignored);
}

}  // namespace bloomcrawl::cli
