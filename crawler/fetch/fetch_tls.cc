#include "crawler/fetch/fetch_tls.h"

#include <spdlog/spdlog.h>

#include <fstream>
#include <stdexcept>
#include <string>

namespace bloomcrawl {

void check_tls_options(const FetchOptions& options) {
  if (!options.ca_file.empty() && !std::ifstream(options.ca_file).good()) {
    throw std::invalid_argument("FetchOptions.ca_file cannot be read: " + options.ca_file);
  }
  if (!options.tls_verify) {
    spdlog::warn(
        "fetch.tls_verify is false: TLS certificates are NOT verified, so any server can pose as any https "
        "site; use it only for sites you own");
  }
}

void set_tls_options(CURL* easy, const FetchOptions& options) {
  const long verify = options.tls_verify ? 1L : 0L;
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, verify);
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, options.tls_verify ? 2L : 0L);
  // CAINFO replaces libcurl's default bundle file, but the default CA directory (CAPATH) stays
  // in force, so the file adds to the system's CAs.
  if (!options.ca_file.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, options.ca_file.c_str());
}

}  // namespace bloomcrawl
