#include "seenfilter/checkpoint_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <system_error>
#include <vector>

#include "base/checksum.h"
#include "base/coding.h"
#include "base/file_system.h"

namespace bloomcrawl::seenfilter {
namespace fs = std::filesystem;
namespace {

class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const fs::path& path) : path_(path.string()) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      throw CheckpointError(path_, errno == ENOENT
                                       ? "missing layer file"
                                       : std::string("cannot open: ") + std::generic_category().message(errno));
    }
  }
  ~ReadOnlyFile() { ::close(fd_); }
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;

  uint64_t size() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0)
      throw CheckpointError(path_, std::string("cannot stat: ") + std::generic_category().message(errno));
    return static_cast<uint64_t>(st.st_size);
  }

  void read_exactly(uint8_t* out, size_t size, uint64_t offset) {
    while (size > 0) {
      const ssize_t n = ::read(fd_, out, size);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw CheckpointError(path_, std::string("read failed: ") + std::generic_category().message(errno));
      if (n == 0) throw CheckpointError(path_, "truncated at byte offset " + std::to_string(offset));
      out += n;
      offset += static_cast<uint64_t>(n);
      size -= static_cast<size_t>(n);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace

std::string resolve_manifest_name(const fs::path& dir, std::string_view requested) {
  std::string name(requested);
  const fs::path current = dir / kCurrentFileName;
  if (name.empty()) {
    if (!fs::exists(current)) throw CheckpointError(current.string(), "missing: no checkpoint in this directory");
    name = read_whole_file(current, 64);
    if (name.empty() || name.back() != '\n') throw CheckpointError(current.string(), "truncated (no final newline)");
    name.pop_back();
  }
  if (!parse_manifest_file_name(name)) {
    throw CheckpointError(requested.empty() ? current.string() : (dir / name).string(),
                          "'" + name + "' is not a manifest file name (MANIFEST-NNNNNN)");
  }
  return name;
}

Manifest read_manifest_file(const fs::path& path) {
  const std::string bytes = read_whole_file(path, max_manifest_bytes());
  Manifest m = decode_manifest({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, path.string());
  const auto named = parse_manifest_file_name(path.filename().string());
  if (named && *named != m.sequence) {
    throw CheckpointError(path.string(),
                          "sequence number " + std::to_string(m.sequence) + " does not match the file name");
  }
  return m;
}

void scan_layer_file(const fs::path& path, const ManifestLayer& entry, const LayerBytesConsumer& consume) {
  const std::string where = path.string();
  ReadOnlyFile file(path);
  const uint64_t size = file.size();
  if (size != entry.file_size) {
    throw CheckpointError(where, std::string(size < entry.file_size ? "truncated" : "wrong size") + ": " +
                                     std::to_string(size) + " bytes, expected " + std::to_string(entry.file_size));
  }
  uint8_t header[kLayerHeaderBytes];
  file.read_exactly(header, sizeof header, 0);
  check_layer_header(header, entry, where);
  Checksum checksum;
  checksum.update(header, sizeof header);
  constexpr size_t kPiece = size_t{1} << 20;
  std::vector<uint8_t> piece(kPiece);
  const uint64_t total = entry.blocks * kBlockBytes;
  for (uint64_t done = 0; done < total;) {
    const auto n = static_cast<size_t>(std::min<uint64_t>(kPiece, total - done));
    file.read_exactly(piece.data(), n, kLayerHeaderBytes + done);
    checksum.update(piece.data(), n);
    consume(done, piece.data(), n);
    done += n;
  }
  uint8_t trailer[kChecksumBytes];
  file.read_exactly(trailer, sizeof trailer, kLayerHeaderBytes + total);
  const uint64_t stored = load_u64(trailer);
  if (stored != checksum.digest()) throw CheckpointError(where, "checksum mismatch (corrupted layer data)");
  if (stored != entry.checksum)
    throw CheckpointError(where, "checksum differs from the manifest's (foreign layer file)");
}

}  // namespace bloomcrawl::seenfilter
