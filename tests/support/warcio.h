// Reading WARC files with warcio.js (an independent reader, installed by
// scripts/install-test-tools.sh) through tests/support/warc_dump.mjs. Header-only: it needs the
// including test's BLOOMCRAWL_SOURCE_DIR.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <nlohmann/json.hpp>

namespace bloomcrawl::testing {

inline std::string base64(const std::string& s) {
  std::string out(4 * ((s.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(s.data()), int(s.size()));
  out.resize(size_t(n));
  return out;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// The output of warc_dump.mjs run with `args` and the files; a failed run fails the test.
inline std::string run_warc_dump(const std::string& args, const std::vector<std::filesystem::path>& files) {
  const std::filesystem::path warcio = std::filesystem::path(BLOOMCRAWL_SOURCE_DIR) / "build/node/node_modules/warcio";
  EXPECT_TRUE(std::filesystem::exists(warcio / "dist/index.js")) << "run scripts/install-test-tools.sh";
  std::string cmd =
      "WARCIO_DIR='" + warcio.string() + "' node '" BLOOMCRAWL_SOURCE_DIR "/tests/support/warc_dump.mjs' " + args;
  for (const std::filesystem::path& f : files) cmd += " '" + f.string() + "'";
  cmd += " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  if (p == nullptr) return "";
  std::string out;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << out;
  return out;
}

// Every record of `files`, in order, as warcio.js reads them (fields: warc_dump.mjs).
inline std::vector<nlohmann::json> read_with_warcio(const std::vector<std::filesystem::path>& files) {
  std::vector<nlohmann::json> records;
  for (const std::string& line : lines_of(run_warc_dump("", files))) records.push_back(nlohmann::json::parse(line));
  return records;
}

// The CDXJ lines warcio's own indexer makes of `files`.
inline std::string warcio_cdxj(const std::vector<std::filesystem::path>& files) {
  return run_warc_dump("--cdxj", files);
}

}  // namespace bloomcrawl::testing
