#include "crawler/fetch/body_decoder.h"

#include <brotli/decode.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>

namespace bloomcrawl {
namespace {

constexpr size_t kPieceBytes = 64 << 10;

std::string lowercase_trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

// RFC 9112 7.1: size line (hex, optional extensions), data, CRLF, ..., a zero size, trailer
// fields, an empty line. Bare LF is accepted where CRLF is due, as libcurl does.
class BodyDecoder::Chunked {
 public:
  // Appends the chunk data of `in` to *out; false (with *error) on malformed framing.
  bool feed(std::string_view in, std::string* out, std::string* error) {
    for (size_t i = 0; i < in.size();) {
      const char c = in[i];
      switch (state_) {
        case State::kSize: {
          const int digit = hex_value(c);
          if (digit >= 0) {
            if (size_ >> 56) return fail("chunk size too large", error);
            size_ = size_ * 16 + uint64_t(digit);
            ++digits_;
          } else if (c == ';' || c == ' ' || c == '\t') {
            state_ = State::kExtension;
          } else if (c == '\r') {
            state_ = State::kSizeLf;
          } else if (c == '\n') {
            if (!end_size_line(error)) return false;
          } else {
            return fail("bad chunk size", error);
          }
          ++i;
          break;
        }
        case State::kExtension:
          if (c == '\n' && !end_size_line(error)) return false;
          ++i;
          break;
        case State::kSizeLf:
          if (c != '\n') return fail("bad chunk size line", error);
          if (!end_size_line(error)) return false;
          ++i;
          break;
        case State::kData: {
          const size_t n = size_t(std::min<uint64_t>(size_, in.size() - i));
          out->append(in.substr(i, n));
          size_ -= n;
          i += n;
          if (size_ == 0) state_ = State::kDataCr;
          break;
        }
        case State::kDataCr:
          if (c == '\r') {
            state_ = State::kDataLf;
          } else if (c == '\n') {
            start_size();
          } else {
            return fail("chunk data not followed by CRLF", error);
          }
          ++i;
          break;
        case State::kDataLf:
          if (c != '\n') return fail("chunk data not followed by CRLF", error);
          start_size();
          ++i;
          break;
        case State::kTrailerStart:
          state_ = c == '\r' ? State::kEndLf : c == '\n' ? State::kDone : State::kTrailerLine;
          ++i;
          break;
        case State::kTrailerLine:
          if (c == '\n') state_ = State::kTrailerStart;
          ++i;
          break;
        case State::kEndLf:
          if (c != '\n') return fail("bad end of chunked body", error);
          state_ = State::kDone;
          ++i;
          break;
        case State::kDone: return true;  // nothing follows the last chunk
      }
    }
    return true;
  }

 private:
  enum class State { kSize, kExtension, kSizeLf, kData, kDataCr, kDataLf, kTrailerStart, kTrailerLine, kEndLf, kDone };

  void start_size() {
    state_ = State::kSize;
    size_ = 0;
    digits_ = 0;
  }
  bool end_size_line(std::string* error) {
    if (digits_ == 0) return fail("chunk size missing", error);
    state_ = size_ == 0 ? State::kTrailerStart : State::kData;
    return true;
  }
  static bool fail(const char* what, std::string* error) {
    *error = std::string("chunked body: ") + what;
    return false;
  }

  State state_ = State::kSize;
  uint64_t size_ = 0;
  int digits_ = 0;
};

// One content coding undone with zlib (gzip, deflate) or brotli (br).
class BodyDecoder::Inflater {
 public:
  enum class Kind { kGzip, kDeflate, kBrotli };

  explicit Inflater(Kind kind) : kind_(kind), piece_(kPieceBytes, '\0') {
    if (kind_ == Kind::kBrotli) brotli_ = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
  }
  ~Inflater() {
    if (zlib_ready_) inflateEnd(&zs_);
    if (brotli_ != nullptr) BrotliDecoderDestroyInstance(brotli_);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  bool feed(std::string_view in, const DecodedSink& decoded, std::string* error) {
    return kind_ == Kind::kBrotli ? feed_brotli(in, decoded, error) : feed_zlib(in, decoded, error);
  }

 private:
  // "deflate" is meant to be zlib-wrapped (RFC 9110 8.4.1.2), but some servers send raw deflate:
  // the first two bytes tell which, as libcurl decides too.
  bool start_zlib(std::string_view in, std::string* error) {
    int window = 15 + 16;  // gzip
    if (kind_ == Kind::kDeflate) {
      const auto b0 = static_cast<unsigned char>(in[0]);
      const auto b1 = static_cast<unsigned char>(in[1]);
      const bool wrapped = (b0 & 0x0f) == 8 && ((b0 << 8) | b1) % 31 == 0;
      window = wrapped ? 15 : -15;
    }
    if (inflateInit2(&zs_, window) != Z_OK) {
      *error = "zlib: inflateInit2 failed";
      return false;
    }
    zlib_ready_ = true;
    return true;
  }

  bool feed_zlib(std::string_view in, const DecodedSink& decoded, std::string* error) {
    if (!zlib_ready_) {
      head_.append(in);
      if (head_.size() < 2) return true;
      if (!start_zlib(head_, error)) return false;
      const std::string head = std::move(head_);
      return inflate_bytes(head, decoded, error);
    }
    return inflate_bytes(in, decoded, error);
  }

  bool inflate_bytes(std::string_view in, const DecodedSink& decoded, std::string* error) {
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs_.avail_in = uInt(in.size());
    while (zs_.avail_in > 0) {
      if (ended_) {
        // Bytes after the end of the stream: another gzip member (RFC 1952 2.2), or junk ignored.
        if (kind_ != Kind::kGzip) return true;
        inflateReset(&zs_);
        ended_ = false;
      }
      zs_.next_out = reinterpret_cast<Bytef*>(piece_.data());
      zs_.avail_out = uInt(piece_.size());
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        *error = std::string("bad ") + (kind_ == Kind::kGzip ? "gzip" : "deflate") +
                 " data: " + (zs_.msg != nullptr ? zs_.msg : "zlib error " + std::to_string(rc));
        return false;
      }
      const size_t produced = piece_.size() - zs_.avail_out;
      if (produced > 0 && !decoded(std::string_view(piece_.data(), produced))) return false;
      if (rc == Z_STREAM_END) ended_ = true;
      if (rc == Z_BUF_ERROR && produced == 0) break;  // needs more input
    }
    return true;
  }

  bool feed_brotli(std::string_view in, const DecodedSink& decoded, std::string* error) {
    if (brotli_ == nullptr) {
      *error = "brotli: cannot create a decoder";
      return false;
    }
    size_t avail_in = in.size();
    const auto* next_in = reinterpret_cast<const uint8_t*>(in.data());
    for (;;) {
      size_t avail_out = piece_.size();
      auto* next_out = reinterpret_cast<uint8_t*>(piece_.data());
      const BrotliDecoderResult rc =
          BrotliDecoderDecompressStream(brotli_, &avail_in, &next_in, &avail_out, &next_out, nullptr);
      if (rc == BROTLI_DECODER_RESULT_ERROR) {
        *error = std::string("bad br data: ") + BrotliDecoderErrorString(BrotliDecoderGetErrorCode(brotli_));
        return false;
      }
      const size_t produced = piece_.size() - avail_out;
      if (produced > 0 && !decoded(std::string_view(piece_.data(), produced))) return false;
      if (rc != BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) return true;
    }
  }

  Kind kind_;
  std::string piece_;
  z_stream zs_{};
  bool zlib_ready_ = false;
  bool ended_ = false;
  std::string head_;  // deflate: the first bytes, until two tell the wrapping
  BrotliDecoderState* brotli_ = nullptr;
};

BodyDecoder::BodyDecoder(bool chunked, std::string_view content_encoding) {
  if (chunked) chunked_ = std::make_unique<Chunked>();
  const std::string coding = lowercase_trimmed(content_encoding);
  if (coding.empty() || coding == "identity") return;
  if (coding == "gzip" || coding == "x-gzip") {
    inflater_ = std::make_unique<Inflater>(Inflater::Kind::kGzip);
  } else if (coding == "deflate") {
    inflater_ = std::make_unique<Inflater>(Inflater::Kind::kDeflate);
  } else if (coding == "br") {
    inflater_ = std::make_unique<Inflater>(Inflater::Kind::kBrotli);
  } else {
    error_ = "unsupported Content-Encoding: " + coding;
  }
}

BodyDecoder::~BodyDecoder() = default;

bool BodyDecoder::feed(std::string_view received, const PayloadSink& payload, const DecodedSink& decoded) {
  if (!error_.empty()) return false;
  if (!chunked_) {
    payload(received);
    return decode(received, decoded);
  }
  scratch_.clear();
  if (!chunked_->feed(received, &scratch_, &error_)) return false;
  if (scratch_.empty()) return true;
  payload(scratch_);
  return decode(scratch_, decoded);
}

bool BodyDecoder::decode(std::string_view bytes, const DecodedSink& decoded) {
  if (!inflater_) return decoded(bytes);
  return inflater_->feed(bytes, decoded, &error_);
}

}  // namespace bloomcrawl
