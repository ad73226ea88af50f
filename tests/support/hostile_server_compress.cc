#include "tests/support/hostile_server_compress.h"

#include <brotli/encode.h>
#include <dlfcn.h>
#include <zlib.h>

#include <stdexcept>

namespace bloomcrawl::testing {
namespace {

constexpr size_t kOutputChunk = 64 << 10;

class GzipEncoder : public StreamEncoder {
 public:
  GzipEncoder() {
    // windowBits 15 + 16: a gzip wrapper, which is what "Content-Encoding: gzip" means.
    if (deflateInit2(&stream_, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
      throw std::runtime_error("hostile server: deflateInit2 failed");
    }
  }
  ~GzipEncoder() override { deflateEnd(&stream_); }

  std::string encode(std::string_view input, bool final) override {
    std::string out;
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
    stream_.avail_in = static_cast<uInt>(input.size());
    int status = Z_OK;
    do {
      char buffer[kOutputChunk];
      stream_.next_out = reinterpret_cast<Bytef*>(buffer);
      stream_.avail_out = sizeof buffer;
      status = deflate(&stream_, final ? Z_FINISH : Z_NO_FLUSH);
      out.append(buffer, sizeof buffer - stream_.avail_out);
    } while (stream_.avail_in > 0 || (final && status != Z_STREAM_END));
    return out;
  }

 private:
  z_stream stream_{};
};

// The few libbrotlienc entry points we need, resolved from the shared library at run time.
struct BrotliApi {
  decltype(&BrotliEncoderCreateInstance) create = nullptr;
  decltype(&BrotliEncoderSetParameter) set_parameter = nullptr;
  decltype(&BrotliEncoderCompressStream) compress_stream = nullptr;
  decltype(&BrotliEncoderDestroyInstance) destroy = nullptr;
  decltype(&BrotliEncoderIsFinished) is_finished = nullptr;

  static const BrotliApi* get() {
    static const BrotliApi api = load();
    return api.create != nullptr ? &api : nullptr;
  }

 private:
  static BrotliApi load() {
    BrotliApi api;
    void* library = dlopen("libbrotlienc.so.1", RTLD_NOW | RTLD_LOCAL);  // kept for the process
    if (library == nullptr) return api;
    api.set_parameter = reinterpret_cast<decltype(set_parameter)>(dlsym(library, "BrotliEncoderSetParameter"));
    api.compress_stream = reinterpret_cast<decltype(compress_stream)>(dlsym(library, "BrotliEncoderCompressStream"));
    api.destroy = reinterpret_cast<decltype(destroy)>(dlsym(library, "BrotliEncoderDestroyInstance"));
    api.is_finished = reinterpret_cast<decltype(is_finished)>(dlsym(library, "BrotliEncoderIsFinished"));
    if (api.set_parameter && api.compress_stream && api.destroy && api.is_finished) {
      api.create = reinterpret_cast<decltype(create)>(dlsym(library, "BrotliEncoderCreateInstance"));
    }
    return api;
  }
};

class BrotliEncoder : public StreamEncoder {
 public:
  explicit BrotliEncoder(const BrotliApi& api) : api_(api), state_(api.create(nullptr, nullptr, nullptr)) {
    if (state_ == nullptr) throw std::runtime_error("hostile server: BrotliEncoderCreateInstance failed");
    api_.set_parameter(state_, BROTLI_PARAM_QUALITY, 5);
  }
  ~BrotliEncoder() override { api_.destroy(state_); }

  std::string encode(std::string_view input, bool final) override {
    std::string out;
    size_t available_in = input.size();
    const auto* next_in = reinterpret_cast<const uint8_t*>(input.data());
    const BrotliEncoderOperation operation = final ? BROTLI_OPERATION_FINISH : BROTLI_OPERATION_PROCESS;
    for (;;) {
      uint8_t buffer[kOutputChunk];
      size_t available_out = sizeof buffer;
      uint8_t* next_out = buffer;
      if (!api_.compress_stream(state_, operation, &available_in, &next_in, &available_out, &next_out, nullptr)) {
        throw std::runtime_error("hostile server: BrotliEncoderCompressStream failed");
      }
      out.append(reinterpret_cast<char*>(buffer), sizeof buffer - available_out);
      const bool drained = available_in == 0 && available_out != 0;
      if (drained && (!final || api_.is_finished(state_))) break;
    }
    return out;
  }

 private:
  const BrotliApi& api_;
  BrotliEncoderState* state_;
};

}  // namespace

std::unique_ptr<StreamEncoder> make_gzip_encoder() { return std::make_unique<GzipEncoder>(); }

std::unique_ptr<StreamEncoder> make_brotli_encoder() {
  const BrotliApi* api = BrotliApi::get();
  if (api == nullptr) return nullptr;
  return std::make_unique<BrotliEncoder>(*api);
}

}  // namespace bloomcrawl::testing
