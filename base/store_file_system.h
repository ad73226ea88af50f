// The file system under every RocksDB store (the frontier's UrlStore, the records' RecordStore):
// RocksDB's own by default, or one a test installs to fail its writes, syncs, renames or reads
// (tests/support/faulty_store_file_system.h), as base/file_system.h is for the project's own files. RocksDB does its I/O through its own
// FileSystem, so that is where its faults are injected, as in RocksDB's own fault-injection tests.
// A store opened (or verified) after set_store_file_system() uses the new one; one already open
// keeps its own until it closes. Thread-safe.
#pragma once

#include <memory>

namespace rocksdb {
class Env;
class FileSystem;
}  // namespace rocksdb

namespace bloomcrawl {

// Installs `fs` (nullptr: RocksDB's default) and returns the one it replaces.
std::shared_ptr<rocksdb::FileSystem> set_store_file_system(std::shared_ptr<rocksdb::FileSystem> fs);

// The Env a store opens with: RocksDB's default, or one over the installed file system (the
// caller keeps it for as long as the store is open). Never null.
std::shared_ptr<rocksdb::Env> store_env();

}  // namespace bloomcrawl
