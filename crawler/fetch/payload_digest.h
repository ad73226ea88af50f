// PayloadDigest: the SHA-1 of a body as it streams in, in the form web archives use: "sha1:" and
// the RFC 4648 base32 of the 20 bytes (32 digits, no padding). One value serves pages.jsonl's
// payload_digest and WARC's WARC-Payload-Digest (docs/warc.md), so they join.
#pragma once

#include <string>
#include <string_view>

struct evp_md_ctx_st;

namespace bloomcrawl {

class PayloadDigest {
 public:
  PayloadDigest();
  ~PayloadDigest();
  PayloadDigest(const PayloadDigest&) = delete;
  PayloadDigest& operator=(const PayloadDigest&) = delete;

  void reset();
  void update(std::string_view bytes);
  // The digest of everything updated since reset(); the state is then undefined until reset().
  std::string finish();

 private:
  evp_md_ctx_st* ctx_;
};

// The digest of `data` in one call.
std::string sha1_base32_digest(std::string_view data);

// The digest's text ("sha1:" + 32 base32 digits) of 20 raw SHA-1 bytes; empty for any other size.
std::string payload_digest_of_sha1(std::string_view raw);
// The 20 raw bytes of a digest's text, or empty when it is not one.
std::string sha1_of_payload_digest(std::string_view digest);

}  // namespace bloomcrawl
