#include "crawler/fetch/payload_digest.h"

#include <openssl/evp.h>

#include <cstdint>
#include <new>

namespace bloomcrawl {
namespace {

// SHA-1 fetched from its provider once: OpenSSL 3 looks EVP_sha1() up again at every init, which
// costs as much as digesting a request head, and a WARC page takes three inits.
const EVP_MD* sha1() {
  static const EVP_MD* const md = [] {
    const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA1", nullptr);
    return fetched != nullptr ? fetched : EVP_sha1();
  }();
  return md;
}

}  // namespace

PayloadDigest::PayloadDigest() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) throw std::bad_alloc();
  reset();
}

PayloadDigest::~PayloadDigest() { EVP_MD_CTX_free(ctx_); }

void PayloadDigest::reset() { EVP_DigestInit_ex(ctx_, sha1(), nullptr); }

void PayloadDigest::update(std::string_view bytes) { EVP_DigestUpdate(ctx_, bytes.data(), bytes.size()); }

std::string PayloadDigest::finish() {
  unsigned char sha[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx_, sha, &length);
  return payload_digest_of_sha1(std::string_view(reinterpret_cast<const char*>(sha), length));
}

std::string sha1_base32_digest(std::string_view data) {
  thread_local PayloadDigest digest;
  digest.reset();
  digest.update(data);
  return digest.finish();
}

std::string payload_digest_of_sha1(std::string_view raw) {
  if (raw.size() != 20) return {};
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out = "sha1:";
  uint32_t bits = 0;
  int count = 0;
  for (const char c : raw) {
    bits = (bits << 8) | uint8_t(c);
    count += 8;
    while (count >= 5) {
      count -= 5;
      out.push_back(kAlphabet[(bits >> count) & 31]);
    }
  }
  return out;  // 160 bits: 32 digits, nothing left over
}

std::string sha1_of_payload_digest(std::string_view digest) {
  constexpr std::string_view kPrefix = "sha1:";
  if (!digest.starts_with(kPrefix) || digest.size() != kPrefix.size() + 32) return {};
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (const char c : digest.substr(kPrefix.size())) {
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    if (c >= '2' && c <= '7') v = c - '2' + 26;
    if (v < 0) return {};
    bits = (bits << 5) | uint32_t(v);
    count += 5;
    if (count >= 8) {
      count -= 8;
      out.push_back(char((bits >> count) & 0xff));
    }
  }
  return out;
}

}  // namespace bloomcrawl
