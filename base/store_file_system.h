// The file system under every RocksDB store (the frontier's UrlStore, the records' RecordStore):
// RocksDB's own by default, or one a test installs to fail its writes, syncs, renames or reads
// (tests/support/faulty_store_file_system.h), as base/file_system.h is for the project's own files. RocksDB does its
// I/O through its own FileSystem, so that is where its faults are injected, as in RocksDB's own fault-injection tests.
// A store opened (or verified) after set_store_file_system() uses the new one; one already open
// keeps its own until it closes. Thread-safe.
// Also what every store opens, clones and verifies its checkpoints with, the same for each.
#pragma once

#include <rocksdb/compression_type.h>

#include <filesystem>
#include <initializer_list>
#include <memory>
#include <string>

namespace rocksdb {
class Env;
class FileSystem;
class Logger;
struct Options;
}  // namespace rocksdb

namespace bloomcrawl {

// Installs `fs` (nullptr: RocksDB's default) and returns the one it replaces.
std::shared_ptr<rocksdb::FileSystem> set_store_file_system(std::shared_ptr<rocksdb::FileSystem> fs);

// The Env a store opens with: RocksDB's default, or one over the installed file system (the
// caller keeps it for as long as the store is open). Never null.
std::shared_ptr<rocksdb::Env> store_env();

// A logger that drops RocksDB's info log (no LOG file): its writer ignores a failed append and
// appends again, which on a full disk trips Debian's RocksDB assertion on reusing a failed
// WritableFileWriter (exit 134, issue 25); every failure that matters reaches a store as a status.
std::shared_ptr<rocksdb::Logger> no_info_log();

// The first of `wanted` this RocksDB build supports, else no compression.
rocksdb::CompressionType best_supported_compression(std::initializer_list<rocksdb::CompressionType> wanted);

// Makes `live` (emptied first) a writable copy of the RocksDB checkpoint `checkpoint`: SST files
// hard-linked (they are never modified), the small files copied. Throws CheckpointError
// "PATH: STORE_NAME: PROBLEM" (e.g. "frontier store") naming a missing one.
void clone_store_checkpoint(const std::filesystem::path& checkpoint, const std::filesystem::path& live,
                            const std::string& store_name);

// Opens the checkpoint `checkpoint` read-only with `options` (create_if_missing cleared) and reads
// every block, checking its checksum, writing nothing there. Throws CheckpointError
// "CHECKPOINT: STORE_NAME: STATUS" (the status names a corrupted or unreadable file).
void verify_store_checkpoint(rocksdb::Options options, const std::filesystem::path& checkpoint,
                             const std::string& store_name);

}  // namespace bloomcrawl
