#include "base/store_file_system.h"

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include <mutex>
#include <utility>

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

}  // namespace bloomcrawl
