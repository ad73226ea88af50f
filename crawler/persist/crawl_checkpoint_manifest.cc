// The crawl manifest's bytes: magic, version, a JSON body, XXH3-64 of all before it
// (docs/checkpoint-format.md, "Crawl manifest").
#include <cinttypes>
#include <cstdio>

#include "base/checksum.h"
#include "base/coding.h"
#include "base/data_error.h"
#include "crawler/persist/crawl_checkpoint.h"

namespace bloomcrawl {
namespace {

constexpr size_t kHeaderBytes = 16;  // magic, version u32, body length u32
constexpr size_t kMaxBodyBytes = size_t{1} << 30;

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

// Reads the JSON body field by field so a damaged manifest names the field that is wrong.
class BodyReader {
 public:
  explicit BodyReader(const std::string& name) : name_(name) {}

  const nlohmann::json& field(const nlohmann::json& obj, const char* key, nlohmann::json::value_t type) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(std::string("missing field \"") + key + "\"");
    const bool numeric_ok = type == nlohmann::json::value_t::number_unsigned && it->is_number_unsigned();
    if (!numeric_ok && it->type() != type) fail(std::string("field \"") + key + "\" has the wrong type");
    return *it;
  }
  uint64_t u64(const nlohmann::json& obj, const char* key) const {
    return field(obj, key, nlohmann::json::value_t::number_unsigned).get<uint64_t>();
  }
  std::string str(const nlohmann::json& obj, const char* key) const {
    return field(obj, key, nlohmann::json::value_t::string).get<std::string>();
  }
  const nlohmann::json& obj(const nlohmann::json& o, const char* key) const {
    return field(o, key, nlohmann::json::value_t::object);
  }
  const nlohmann::json& arr(const nlohmann::json& o, const char* key) const {
    return field(o, key, nlohmann::json::value_t::array);
  }
  uint64_t hex(const nlohmann::json& o, const char* key) const {
    std::string s = str(o, key);
    if (s.size() != 16 || s.find_first_not_of("0123456789abcdef") != std::string::npos) {
      fail(std::string("field \"") + key + "\" is not 16 lowercase hex digits");
    }
    return std::stoull(s, nullptr, 16);
  }
  // A file name in the checkpoint directory: no path separators, no way out of it.
  std::string file_name(const nlohmann::json& o, const char* key) const {
    std::string s = str(o, key);
    if (s.empty() || s == "." || s == ".." || s.find('/') != std::string::npos || s.find('\0') != std::string::npos) {
      fail(std::string("field \"") + key + "\" is not a plain file name");
    }
    return s;
  }
  [[noreturn]] void fail(const std::string& problem) const { throw CheckpointError(name_, problem); }

 private:
  const std::string& name_;
};

}  // namespace

std::string encode_crawl_manifest(const CrawlManifest& m) {
  nlohmann::json requeue = nlohmann::json::array();
  for (const FrontierUrl& u : m.requeue) requeue.push_back({{"host", u.host}, {"entry", u.url}, {"depth", u.depth}});
  nlohmann::json body = {
      {"generation", m.generation},
      {"key_hash", m.key_hash},
      {"config", m.config},
      {"stats", m.stats},
      {"counters", m.counters},
      {"filter", {{"manifest", m.filter_manifest}}},
      {"frontier", {{"directory", m.frontier_directory}, {"queued", m.queued}}},
      {"pages_done", m.pages_done},
      {"requeue", requeue},
      {"outstanding", m.outstanding},
  };
  if (!m.records_directory.empty()) body["records"] = {{"directory", m.records_directory}};
  if (!m.audit_file.empty()) {
    body["audit"] = {{"file", m.audit_file}, {"bytes", m.audit_bytes}, {"checksum", hex64(m.audit_checksum)}};
  }
  // Version 1 (tests of reading old checkpoints write it): a frontier snapshot file.
  const bool version1 = !m.frontier_file.empty();
  if (version1) {
    body["frontier"] = {{"file", m.frontier_file},
                        {"bytes", m.frontier_bytes},
                        {"checksum", hex64(m.frontier_checksum)},
                        {"queued", m.queued}};
  }
  // Invalid UTF-8 in a URL must not make the manifest unwritable: replace it (URLs are
  // canonical, hence ASCII, so this never changes one).
  const std::string text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out(kCrawlManifestMagic);
  put_le(out, version1 ? 1 : kCrawlManifestVersion, 4);
  put_le(out, text.size(), 4);
  out += text;
  const uint64_t sum = checksum64(out);
  put_le(out, sum, 8);
  return out;
}

CrawlManifest decode_crawl_manifest(std::string_view bytes, const std::string& name) {
  if (bytes.size() < kHeaderBytes + 8)
    throw CheckpointError(name, "truncated: " + std::to_string(bytes.size()) + " bytes");
  if (bytes.substr(0, 8) != kCrawlManifestMagic) throw CheckpointError(name, "bad magic (not a crawl manifest)");
  const uint64_t version = get_le(bytes, 8, 4);
  if (version != 1 && version != kCrawlManifestVersion)
    throw CheckpointError(name, "unsupported format version " + std::to_string(version));
  const uint64_t length = get_le(bytes, 12, 4);
  if (length > kMaxBodyBytes || bytes.size() != kHeaderBytes + length + 8) {
    throw CheckpointError(
        name, "size " + std::to_string(bytes.size()) + " does not match body length " + std::to_string(length));
  }
  if (checksum64(bytes.data(), kHeaderBytes + length) != get_le(bytes, kHeaderBytes + length, 8)) {
    throw CheckpointError(name, "checksum mismatch");
  }
  nlohmann::json body = nlohmann::json::parse(bytes.substr(kHeaderBytes, length), nullptr, false);
  if (!body.is_object()) throw CheckpointError(name, "body is not a JSON object");
  BodyReader r(name);
  CrawlManifest m;
  m.generation = r.u64(body, "generation");
  m.key_hash = r.str(body, "key_hash");
  m.config = r.obj(body, "config");
  m.stats = r.obj(body, "stats");
  m.counters = r.obj(body, "counters");
  m.filter_manifest = r.file_name(r.obj(body, "filter"), "manifest");
  const nlohmann::json& frontier = r.obj(body, "frontier");
  if (version == 1) {
    m.frontier_file = r.file_name(frontier, "file");
    m.frontier_bytes = r.u64(frontier, "bytes");
    m.frontier_checksum = r.hex(frontier, "checksum");
  } else {
    m.frontier_directory = r.file_name(frontier, "directory");
  }
  m.queued = r.u64(frontier, "queued");
  m.pages_done = r.u64(body, "pages_done");
  if (body.contains("records")) m.records_directory = r.file_name(r.obj(body, "records"), "directory");
  if (body.contains("audit")) {
    const nlohmann::json& audit = r.obj(body, "audit");
    m.audit_file = r.file_name(audit, "file");
    m.audit_bytes = r.u64(audit, "bytes");
    m.audit_checksum = r.hex(audit, "checksum");
  }
  for (const nlohmann::json& u : r.arr(body, "requeue")) {
    if (!u.is_object()) r.fail("a requeue entry is not an object");
    const uint64_t depth = r.u64(u, "depth");
    if (depth > UINT32_MAX) r.fail("a requeue entry's depth is out of range");
    m.requeue.push_back({r.str(u, "entry"), r.str(u, "host"), uint32_t(depth)});
  }
  for (const nlohmann::json& u : r.arr(body, "outstanding")) {
    if (!u.is_string()) r.fail("an outstanding entry is not a string");
    m.outstanding.push_back(u.get<std::string>());
  }
  return m;
}

}  // namespace bloomcrawl
