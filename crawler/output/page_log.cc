#include "crawler/output/page_log.h"

#include <concepts>
#include <fstream>
#include <stdexcept>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "base/data_error.h"
#include "base/durable_file.h"
#include "crawler/output/json_text.h"
#include "crawler/output/timestamp.h"

namespace bloomcrawl {
namespace {

// The length of `path` up to and including its last '\n' (0 if none), read from the end.
uint64_t complete_lines_length(const std::filesystem::path& path, uint64_t size) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CheckpointError(path.string(), "cannot be read to find its last complete line");
  constexpr uint64_t kBlock = 64 << 10;
  std::string block;
  for (uint64_t end = size; end > 0;) {
    const uint64_t start = end > kBlock ? end - kBlock : 0;
    block.resize(end - start);
    in.seekg(static_cast<std::streamoff>(start));
    if (!in.read(block.data(), static_cast<std::streamsize>(block.size()))) {
      throw CheckpointError(path.string(), "cannot be read to find its last complete line");
    }
    const size_t newline = block.rfind('\n');
    if (newline != std::string::npos) return start + newline + 1;
    end = start;
  }
  return 0;
}

// A line torn by a failed write or a kill would otherwise be glued to the next record.
void cut_torn_line(const std::filesystem::path& path) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec || size == 0) return;
  const uint64_t keep = complete_lines_length(path, size);
  if (keep == size) return;
  if (const int error = file_system().truncate(path, keep)) throw_file_error(path, "cannot cut a torn line", error);
  spdlog::warn("{}: cut {} bytes of a record torn by an earlier stop", path.string(), size - keep);
}

}  // namespace

void record_fetch(const FetchResult& result, PageRecord* record) {
  record->fetch_time = result.fetch_time;
  record->ip = result.remote_ip;
  record->http_version = result.http_version;
  record->wire_bytes = result.header_bytes + result.body_wire_bytes;
  record->payload_digest = result.payload_digest;
  record->truncated = result.body_truncated;
  record->etag = result.etag;
  record->last_modified = result.last_modified;
}

PageLog::PageLog(const std::filesystem::path& dir, bool edges) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir.string() + ": cannot create output directory: " + ec.message());
  open(pages_, dir / "pages.jsonl");
  if (edges) open(edges_, dir / "edges.jsonl");
  sync_directory(dir);  // the files' names: a record synced into a file a power loss unnames is lost
}

PageLog::~PageLog() {
  try {
    sync();
  } catch (const CheckpointError& e) {
    spdlog::error("{}", e.what());
  }
  for (Output* out : {&pages_, &edges_}) {
    if (!out->file) continue;
    try {
      out->file->close();
    } catch (const CheckpointError& e) {
      spdlog::error("{}", e.what());  // synced above: the records are on disk whatever close says
    }
  }
}

void PageLog::open(Output& out, const std::filesystem::path& path) {
  out.path = path;
  cut_torn_line(path);
  // 0 for a file that is none (/dev/full in a test): its offsets are then too low, and a resume
  // checking them finds no page's line there and fetches the page again, which is safe.
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  out.bytes = ec ? 0 : size;
  // Closed explicitly by the destructor; one that failed is closed without a check by its last
  // holder (a sync() may be using it), its failure being the one reported.
  out.file = std::shared_ptr<WritableFile>(std::make_unique<WritableFile>(path, FileSystem::Mode::kAppend).release(),
                                           [](WritableFile* file) {
                                             file->abandon();
                                             delete file;  // NOLINT(cppcoreguidelines-owning-memory)
                                           });
}

namespace {

// The record's line: keys in the order nlohmann::json's object (a std::map) wrote them,
// each optional field only when set.
std::string page_line(const PageRecord& r) {
  std::string line;
  line.reserve(256 + r.url.size() + r.parent.size() + r.error.size() + r.location.size());
  const auto key = [&line](std::string_view name) {
    line.append(line.empty() ? "{\"" : ",\"").append(name).append("\":");
  };
  const auto text = [&](std::string_view name, std::string_view value) {
    key(name);
    append_json_string(value, &line);
  };
  const auto number = [&](std::string_view name, std::integral auto value) {
    key(name);
    append_json_integer(value, &line);
  };
  const bool sent = r.fetch_time.has_value();  // the fields of a request sent
  number("bytes", r.bytes);
  text("content_type", r.content_type);
  number("depth", r.depth);
  if (!r.duplicate_of.empty()) text("duplicate_of", r.duplicate_of);
  if (!r.error.empty()) text("error", r.error);
  key("fetch_ms");
  append_json_double(r.fetch_ms, &line);
  if (sent) text("fetch_time", rfc3339_utc_ms(*r.fetch_time));
  if (sent && !r.http_version.empty()) text("http_version", r.http_version);
  if (sent && !r.ip.empty()) text("ip", r.ip);
  number("links_found", r.links_found);
  number("links_new", r.links_new);
  if (r.links_truncated) {
    key("links_truncated");
    line.append("true");
  }
  if (!r.location.empty()) text("location", r.location);
  if (!r.near_duplicate_of.empty()) text("near_duplicate_of", r.near_duplicate_of);
  text("outcome", r.outcome);
  text("parent", r.parent);
  if (sent && !r.payload_digest.empty()) text("payload_digest", r.payload_digest);
  number("status", r.status);
  if (sent && r.truncated) line.append(",\"truncated\":true");
  text("url", r.url);
  if (sent) number("wire_bytes", r.wire_bytes);
  line.append("}\n");
  return line;
}

}  // namespace

PageLogEnds PageLog::write_page(const PageRecord& r) {
  const std::string line = page_line(r);
  std::lock_guard<std::mutex> lock(mu_);
  // Written through at once: a page the journal records as done must be in pages.jsonl even
  // after a kill -9 (one write per page is nothing next to its fetch).
  write(pages_, line);
  return {.pages = pages_.bytes, .edges = edges_.bytes};
}

void PageLog::write_edges(const std::string& from, const std::vector<std::string>& to) {
  if (edges_.path.empty()) return;
  nlohmann::json j = {{"from", from}, {"to", to}};
  std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.push_back('\n');
  std::lock_guard<std::mutex> lock(mu_);
  // Written through, as the page's own record is: the journal marks the page done only once its
  // edges are on disk too, and a failed write then fails the page, not a group of them.
  write(edges_, line);
}

void PageLog::sync() {
  std::shared_ptr<WritableFile> pages;
  std::shared_ptr<WritableFile> edges;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Output* out : {&pages_, &edges_}) {
      if (!out->sync_error.empty())
        throw CheckpointError(out->path.string(), "not synced after an earlier failure: " + out->sync_error);
    }
    pages = pages_.file;
    edges = edges_.file;
  }
  if (pages) sync_output(pages_, pages);
  if (edges) sync_output(edges_, edges);
}

void PageLog::sync_output(Output& out, const std::shared_ptr<WritableFile>& file) {
  try {
    file->sync_data();
  } catch (const CheckpointError& e) {
    std::lock_guard<std::mutex> lock(mu_);
    if (out.sync_error.empty()) out.sync_error = e.what();
    out.file.reset();
    throw;
  }
}

void PageLog::write(Output& out, const std::string& bytes) {
  for (const std::string* error : {&out.sync_error, &out.write_error}) {
    if (!error->empty()) throw CheckpointError(out.path.string(), "not written after an earlier failure: " + *error);
  }
  if (!out.file) return;
  try {
    out.file->append(bytes);
    out.bytes += bytes.size();
  } catch (const CheckpointError& e) {
    out.write_error = e.what();  // the file stays open: its whole lines are synced with the rest
    throw;
  }
}

}  // namespace bloomcrawl
