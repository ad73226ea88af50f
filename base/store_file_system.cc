#include "base/store_file_system.h"

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/options.h>

#include <algorithm>
#include <cstdarg>
#include <mutex>
#include <utility>
#include <vector>

#include "base/data_error.h"

namespace bloomcrawl {
namespace {

std::mutex& installed_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::shared_ptr<rocksdb::FileSystem>& installed() {
  static std::shared_ptr<rocksdb::FileSystem> fs;
  return fs;
}

class NoInfoLog : public rocksdb::Logger {
 public:
  using rocksdb::Logger::Logv;
  void Logv(const char* /*format*/, va_list /*ap*/) override {}
};

}  // namespace

std::shared_ptr<rocksdb::FileSystem> set_store_file_system(std::shared_ptr<rocksdb::FileSystem> fs) {
  std::lock_guard lock(installed_mutex());
  return std::exchange(installed(), std::move(fs));
}

std::shared_ptr<rocksdb::Env> store_env() {
  std::shared_ptr<rocksdb::FileSystem> fs;
  {
    std::lock_guard lock(installed_mutex());
    fs = installed();
  }
  // Env::Default() lives as long as the process: a shared_ptr that never deletes it.
  if (fs == nullptr) return {rocksdb::Env::Default(), [](rocksdb::Env*) {}};
  return rocksdb::NewCompositeEnv(fs);
}

std::shared_ptr<rocksdb::Logger> no_info_log() { return std::make_shared<NoInfoLog>(); }

rocksdb::CompressionType best_supported_compression(std::initializer_list<rocksdb::CompressionType> wanted) {
  const std::vector<rocksdb::CompressionType> supported = rocksdb::GetSupportedCompressions();
  for (rocksdb::CompressionType type : wanted) {
    if (std::find(supported.begin(), supported.end(), type) != supported.end()) return type;
  }
  return rocksdb::kNoCompression;
}

void clone_store_checkpoint(const std::filesystem::path& checkpoint, const std::filesystem::path& live,
                            const std::string& store_name) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(checkpoint, error)) {
    throw CheckpointError(checkpoint.string(), store_name + ": missing (not a directory)");
  }
  if (fs::exists(live, error) && fs::equivalent(checkpoint, live, error)) {
    throw CheckpointError(live.string(), store_name + ": the live store cannot be the checkpoint itself");
  }
  try {
    fs::remove_all(live);
    fs::create_directories(live);
    for (const fs::directory_entry& entry : fs::directory_iterator(checkpoint)) {
      const fs::path target = live / entry.path().filename();
      if (entry.path().extension() == ".sst") {
        fs::create_hard_link(entry.path(), target);
      } else {
        fs::copy_file(entry.path(), target);
      }
    }
  } catch (const fs::filesystem_error& e) {
    throw CheckpointError(live.string(), store_name + ": not created from the checkpoint: " + e.what());
  }
}

void verify_store_checkpoint(rocksdb::Options options, const std::filesystem::path& checkpoint,
                             const std::string& store_name) {
  options.create_if_missing = false;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status status = rocksdb::DB::OpenForReadOnly(options, checkpoint.string(), &raw);
  const std::unique_ptr<rocksdb::DB> db(raw);
  if (status.ok()) {
    rocksdb::ReadOptions read;
    read.fill_cache = false;
    read.readahead_size = size_t{2} << 20;
    status = db->VerifyChecksum(read);
  }
  if (!status.ok()) throw CheckpointError(checkpoint.string(), store_name + ": " + status.ToString());
}

}  // namespace bloomcrawl
