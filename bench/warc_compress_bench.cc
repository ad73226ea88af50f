// The WARC writer's compressor alone, on given bodies: the floor under what archiving adds per
// page (bench/crawl_bench.sh --warc reports it beside the crawl's cost). For each file of the
// list, one gzip member of the body: with zlib at level 1 and at its default level (the issue's
// named floor: zlib's own cost, its state reused across records, as cheap as zlib gets), and with
// the writer's own compressor (WarcGzip: libdeflate at the writer's level); then the whole writer
// (WarcWriter::write: digests, both records compressed, the index line, the write) into a
// temporary directory, the cost per page of archiving apart from the fetch. CPU time of this
// process (it is single-threaded; the writer's background sync thread wakes every 100 ms and is
// counted too).
//
//   warc_compress_bench LIST_OF_FILES   -> one JSON object on stdout
#include <ctime>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <zlib.h>

#include <nlohmann/json.hpp>

#include "crawler/fetch/payload_digest.h"
#include "crawler/output/warc_gzip.h"
#include "crawler/output/warc_writer.h"

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

nlohmann::json figures(const char* compressor, int level, size_t records, double cpu, uint64_t in, uint64_t out) {
  return {{"compressor", compressor},
          {"level", level},
          {"records", records},
          {"cpu_s", cpu},
          {"us_per_record", records == 0 ? 0.0 : 1e6 * cpu / double(records)},
          {"bytes_in", in},
          {"bytes_out", out},
          {"ratio", in ? double(out) / double(in) : 0.0}};
}

// zlib, one gzip member per body, its state reset between bodies rather than made anew.
nlohmann::json measure_zlib(const std::vector<std::string>& bodies, int level) {
  z_stream zs{};
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("zlib: deflateInit2 failed");
  }
  std::string member;
  uint64_t in = 0;
  uint64_t out = 0;
  const double start = cpu_seconds();
  for (const std::string& body : bodies) {
    deflateReset(&zs);
    const size_t bound = deflateBound(&zs, uLong(body.size()));
    if (member.size() < bound) member.resize(bound);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
    zs.avail_in = uInt(body.size());
    zs.next_out = reinterpret_cast<Bytef*>(member.data());
    zs.avail_out = uInt(member.size());
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("zlib: deflate did not finish");
    in += body.size();
    out += zs.total_out;
  }
  const double cpu = cpu_seconds() - start;
  deflateEnd(&zs);
  return figures("zlib", level, bodies.size(), cpu, in, out);
}

// The writer's compressor, as the writer uses it: one per thread, appending to a reused buffer.
nlohmann::json measure_writer_gzip(const std::vector<std::string>& bodies) {
  bloomcrawl::WarcGzip gzip;
  std::string member;
  uint64_t in = 0;
  uint64_t out = 0;
  const double start = cpu_seconds();
  for (const std::string& body : bodies) {
    member.clear();
    gzip.append_member({body}, &member);
    in += body.size();
    out += member.size();
  }
  const double cpu = cpu_seconds() - start;
  return figures("libdeflate", bloomcrawl::kWarcGzipLevel, bodies.size(), cpu, in, out);
}

nlohmann::json measure_writer(const std::vector<std::string>& bodies) {
  char dir_template[] = "/tmp/warc-bench.XXXXXX";
  const std::filesystem::path dir = mkdtemp(dir_template);
  const std::string request = "GET /page.html HTTP/1.1\r\nHost: 127.0.0.2:8080\r\nUser-Agent: bench\r\n\r\n";
  double cpu = 0;
  {
    bloomcrawl::WarcWriter writer({.directory = dir});
    const double start = cpu_seconds();
    for (const std::string& body : bodies) {
      const std::string head = "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/html\r\nContent-Length: " +
                               std::to_string(body.size()) + "\r\n\r\n";
      const std::string digest = bloomcrawl::sha1_base32_digest(body);  // the fetcher's, as it streams in
      writer.write({.url = "http://127.0.0.2:8080/page.html",
                    .remote_ip = "127.0.0.2",
                    .date = std::chrono::system_clock::now(),
                    .request_head = request,
                    .response_head = head,
                    .body = body,
                    .payload_digest = digest,
                    .status = 200,
                    .content_type = "text/html"});
    }
    writer.close();
    cpu = cpu_seconds() - start;
  }
  std::filesystem::remove_all(dir);
  return {{"records", bodies.size()},
          {"cpu_s", cpu},
          {"us_per_record", bodies.empty() ? 0.0 : 1e6 * cpu / double(bodies.size())}};
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s LIST_OF_FILES\n", argv[0]);
    return 2;
  }
  std::vector<std::string> bodies;
  std::ifstream list(argv[1]);
  for (std::string path; std::getline(list, path);) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    bodies.push_back(s.str());
  }
  const nlohmann::json result = {{"zlib_level_1", measure_zlib(bodies, 1)},
                                 {"zlib_default_level", measure_zlib(bodies, Z_DEFAULT_COMPRESSION)},
                                 {"writer_gzip", measure_writer_gzip(bodies)},
                                 {"writer", measure_writer(bodies)}};
  std::cout << result.dump() << "\n";
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "warc_compress_bench: %s\n", e.what());
  return 1;
}
