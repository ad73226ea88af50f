#include "seenfilter/shard_key_files.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <iterator>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>

#include "base/checksum.h"
#include "base/coding.h"
#include "base/data_error.h"
#include "base/file_system.h"
#include "seenfilter/hash_log.h"
#include "seenfilter/key_hash.h"

namespace bloomcrawl::seenfilter {
namespace fs = std::filesystem;
namespace {

static_assert(std::endian::native == std::endian::little, "key files are raw little-endian words");

constexpr char kMagic[8] = {'B', 'C', 'S', 'H', 'K', 'E', 'Y', 'S'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 24;  // magic, version, bits, covered
constexpr size_t kShardBytes = 16;   // keys, check
constexpr uint32_t kMaxBits = 16;
constexpr const char* kManifest = "KEYS";

// CheckpointError naming `path`, with errno's text when the failed call set it (iostreams do not
// promise to; on Linux the failed open(2) or write(2) does).
[[noreturn]] void fail(const fs::path& path, const std::string& what, int error) {
  if (error != 0) throw_file_error(path, what, error);
  throw CheckpointError(path.string(), what);
}

uint64_t check_of(std::span<const uint64_t> keys) {
  return std::accumulate(keys.begin(), keys.end(), uint64_t{0},
                         [](uint64_t sum, uint64_t key) { return sum + mix64(key); });
}

}  // namespace

ShardKeyFiles::ShardKeyFiles(fs::path dir, uint32_t bits)
    : dir_(std::move(dir)), bits_(bits), keys_(size_t{1} << bits), checks_(size_t{1} << bits) {
  if (bits > kMaxBits) throw std::invalid_argument("ShardKeyFiles: too many shards");
}

fs::path ShardKeyFiles::file(uint32_t shard) const { return dir_ / ("shard-" + std::to_string(shard)); }

bool ShardKeyFiles::is_shard_file(std::string_view name) const {
  constexpr std::string_view kPrefix = "shard-";
  if (!name.starts_with(kPrefix)) return false;
  uint64_t shard = 0;
  const char* end = name.data() + name.size();
  const auto parsed = std::from_chars(name.data() + kPrefix.size(), end, shard);
  return parsed.ec == std::errc() && parsed.ptr == end && shard < keys_.size();
}

ShardKeyFiles ShardKeyFiles::fresh(const fs::path& dir, uint32_t bits) {
  ShardKeyFiles files(dir, bits);
  // The files of the last job are emptied, not deleted: a job creating and deleting hundreds of
  // files each time spent 6% of its time in ext4's inode allocation.
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!files.is_shard_file(name)) fs::remove_all(entry.path());
  }
  for (uint32_t s = 0; s < files.keys_.size(); ++s) {
    errno = 0;
    std::ofstream out(files.file(s), std::ios::binary | std::ios::trunc);
    if (!out) fail(files.file(s), "cannot create a rebuild's key file", errno);
  }
  return files;
}

std::optional<KeyCacheManifest> decode_key_cache_manifest(std::string_view bytes) {
  if (bytes.size() < kHeaderBytes + 8 || bytes.substr(0, 8) != std::string_view(kMagic, 8) ||
      get_le(bytes, 8, 4) != kVersion ||
      get_le(bytes, bytes.size() - 8, 8) != checksum64(bytes.data(), bytes.size() - 8)) {
    return std::nullopt;
  }
  KeyCacheManifest m;
  m.bits = static_cast<uint32_t>(get_le(bytes, 12, 4));
  m.covered = get_le(bytes, 16, 8);
  if (m.bits > kMaxBits || bytes.size() != kHeaderBytes + (size_t{1} << m.bits) * kShardBytes + 8) return std::nullopt;
  uint64_t keys = 0;
  for (size_t s = 0; s < (size_t{1} << m.bits); ++s) {
    m.keys.push_back(get_le(bytes, kHeaderBytes + s * kShardBytes, 8));
    m.checks.push_back(get_le(bytes, kHeaderBytes + s * kShardBytes + 8, 8));
    if (m.keys.back() > m.covered - keys) return std::nullopt;
    keys += m.keys.back();
  }
  if (keys != m.covered) return std::nullopt;
  return m;
}

std::optional<ShardKeyFiles> ShardKeyFiles::reopen(const fs::path& dir, uint32_t bits, uint64_t covered) {
  std::string bytes;
  {
    std::ifstream in(dir / kManifest, std::ios::binary);
    if (!in) return std::nullopt;
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::optional<KeyCacheManifest> m = decode_key_cache_manifest(bytes);
  if (!m || m->bits != bits || m->covered != covered) return std::nullopt;
  ShardKeyFiles files(dir, bits);
  files.covered_ = covered;
  files.keys_ = std::move(m->keys);
  files.checks_ = std::move(m->checks);
  for (uint32_t s = 0; s < files.keys_.size(); ++s) {
    std::error_code ec;
    const uintmax_t size = fs::file_size(files.file(s), ec);
    if (ec || size < files.keys_[s] * 8) return std::nullopt;
    if (size > files.keys_[s] * 8) {
      fs::resize_file(files.file(s), files.keys_[s] * 8, ec);  // a killed merge's appends
      if (ec) return std::nullopt;
    }
  }
  return files;
}

uint64_t ShardKeyFiles::append_from_log(const fs::path& log, uint64_t first, uint64_t upto, size_t batch) {
  const bool empty = std::all_of(keys_.begin(), keys_.end(), [](uint64_t k) { return k == 0; });
  if (!empty && first != covered_) throw std::invalid_argument("ShardKeyFiles: appending out of order");
  const size_t shards = keys_.size();
  // The streams are unbuffered: these buffers are the only ones (one write call per batch).
  std::vector<uint64_t> pending(shards * batch);
  std::vector<uint32_t> filled(shards);
  std::vector<std::ofstream> out(shards);
  for (uint32_t s = 0; s < shards; ++s) {
    out[s].rdbuf()->pubsetbuf(nullptr, 0);
    out[s].open(file(s), std::ios::binary | std::ios::app);
  }
  const auto write_pending = [&](size_t s) {
    const std::span<const uint64_t> gathered(&pending[s * batch], filled[s]);
    errno = 0;
    out[s].write(reinterpret_cast<const char*>(gathered.data()),
                 static_cast<std::streamsize>(gathered.size() * sizeof(uint64_t)));
    // Unbuffered: the write(2) that failed set errno (ENOSPC on a full disk), said in the error.
    if (!out[s]) fail(file(s), "cannot write a rebuild's key file", errno);
    keys_[s] += gathered.size();
    checks_[s] += check_of(gathered);
    filled[s] = 0;
  };
  uint64_t read = first;
  read_hash_log(
      log,
      [&](std::span<const uint64_t> hashes) {
        for (const uint64_t h : hashes) {
          if (read++ >= upto) return;
          const size_t s = bits_ == 0 ? 0 : h >> (64 - bits_);
          pending[s * batch + filled[s]] = std::rotl(h, static_cast<int>(bits_));
          if (++filled[s] == batch) write_pending(s);
        }
      },
      first);
  if (read < upto)
    throw CheckpointError(log.string(), "holds " + std::to_string(read) + " keys, the filter " + std::to_string(upto));
  for (uint32_t s = 0; s < shards; ++s) {
    write_pending(s);
    out[s].close();
    if (!out[s]) throw CheckpointError(file(s).string(), "cannot write a rebuild's key file");
  }
  covered_ = upto;
  return pending.capacity() * sizeof(uint64_t);
}

bool ShardKeyFiles::read(uint32_t shard, std::vector<uint64_t>& keys) const {
  keys.resize(keys_[shard]);
  std::ifstream in(file(shard), std::ios::binary);
  in.read(reinterpret_cast<char*>(keys.data()), static_cast<std::streamsize>(keys.size() * sizeof(uint64_t)));
  return in && check_of(keys) == checks_[shard];
}

bool ShardKeyFiles::read_in_chunks(uint32_t shard, std::span<uint64_t> chunk,
                                   const std::function<void(std::span<const uint64_t>)>& visit) const {
  std::ifstream in(file(shard), std::ios::binary);
  uint64_t check = 0;
  for (uint64_t left = keys_[shard]; left > 0 && in;) {
    const std::span<uint64_t> piece = chunk.first(std::min<uint64_t>(left, chunk.size()));
    in.read(reinterpret_cast<char*>(piece.data()), static_cast<std::streamsize>(piece.size_bytes()));
    if (!in) break;
    check += check_of(piece);
    visit(piece);
    left -= piece.size();
  }
  return in && check == checks_[shard];
}

void ShardKeyFiles::clear(uint32_t shard) const {
  std::error_code ec;  // its page cache is freed; the file stays for the next job
  fs::resize_file(file(shard), 0, ec);
}

bool ShardKeyFiles::save() const {
  std::string out;
  out.append(kMagic, sizeof kMagic);
  put_le(out, kVersion, 4);
  put_le(out, bits_, 4);
  put_le(out, covered_, 8);
  for (size_t s = 0; s < keys_.size(); ++s) {
    put_le(out, keys_[s], 8);
    put_le(out, checks_[s], 8);
  }
  put_le(out, checksum64(out), 8);
  const fs::path temp = dir_ / (std::string(kManifest) + ".tmp");
  std::ofstream file(temp, std::ios::binary | std::ios::trunc);
  file.write(out.data(), static_cast<std::streamsize>(out.size()));
  file.close();
  std::error_code ec;
  if (file) fs::rename(temp, dir_ / kManifest, ec);
  return file && !ec;
}

}  // namespace bloomcrawl::seenfilter
