#include "frontier/host_queue_chunks.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "base/coding.h"

namespace bloomcrawl {
namespace {
constexpr uint32_t kFirstChunkBytes = 40;  // with the 24-byte header, one 64-byte malloc
constexpr uint32_t kMaxChunkBytes = 4096;
}  // namespace

RecordFifo::RecordFifo(RecordFifo&& other) noexcept
    : head_(std::exchange(other.head_, nullptr)),
      tail_(std::exchange(other.tail_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

RecordFifo& RecordFifo::operator=(RecordFifo&& other) noexcept {
  if (this != &other) {
    clear();
    head_ = std::exchange(other.head_, nullptr);
    tail_ = std::exchange(other.tail_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

RecordFifo::~RecordFifo() { clear(); }

void RecordFifo::clear() {
  while (head_ != nullptr) release_chunk(std::exchange(head_, head_->next));
  tail_ = nullptr;
  size_ = 0;
}

RecordFifo::Chunk* RecordFifo::allocate_chunk(uint32_t capacity) {
  void* memory = ::operator new(sizeof(Chunk) + capacity);
  return new (memory) Chunk{nullptr, capacity, 0, 0, 1};
}

void RecordFifo::release_chunk(const Chunk* chunk) {
  // acq_rel: the holder that frees the chunk sees every other holder's reads and writes done.
  if (chunk->holders.load(std::memory_order_acquire) == 1 ||
      const_cast<Chunk*>(chunk)->holders.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    chunk->~Chunk();
    ::operator delete(const_cast<Chunk*>(chunk));
  }
}

void RecordFifo::pin(PinnedRecords& out) const {
  for (Chunk* chunk = head_; chunk != nullptr; chunk = chunk->next) {
    if (chunk->begin == chunk->end) continue;
    chunk->holders.fetch_add(1, std::memory_order_relaxed);
    out.spans_.push_back({chunk, chunk->begin, chunk->end});
  }
}

PinnedRecords& PinnedRecords::operator=(PinnedRecords&& other) noexcept {
  if (this != &other) {
    release_all();
    spans_ = std::move(other.spans_);
    other.spans_.clear();
  }
  return *this;
}

PinnedRecords::~PinnedRecords() { release_all(); }

void PinnedRecords::release_all() {
  for (const Span& span : spans_) RecordFifo::release_chunk(span.chunk);
  spans_.clear();
}

size_t RecordFifo::encoded_size(uint32_t tag, std::string_view bytes) {
  return varint_length(tag) + varint_length(bytes.size()) + bytes.size();
}

void RecordFifo::encode(char* dst, uint32_t tag, std::string_view bytes) {
  dst = encode_varint(dst, tag);
  dst = encode_varint(dst, bytes.size());
  if (!bytes.empty()) std::memcpy(dst, bytes.data(), bytes.size());
}

RecordFifo::Decoded RecordFifo::decode(const Chunk* chunk, uint32_t offset, uint32_t end_offset) {
  // Records were written by encode(), so the varints are well formed and inside the chunk.
  const char* p = chunk->data() + offset;
  const char* end = chunk->data() + end_offset;
  uint64_t tag = 0;
  uint64_t length = 0;
  p = decode_varint(p, end, &tag);
  p = decode_varint(p, end, &length);
  const auto next = static_cast<uint32_t>(p - chunk->data() + length);
  return {{static_cast<uint32_t>(tag), std::string_view(p, length)}, next};
}

void RecordFifo::make_room_at_tail(uint32_t needed) {
  if (tail_ == nullptr) {
    head_ = tail_ = allocate_chunk(std::max(kFirstChunkBytes, needed));
    return;
  }
  if (tail_->capacity - tail_->end >= needed) return;
  const uint32_t live = tail_->end - tail_->begin;
  if (tail_ == head_ && live + needed <= kMaxChunkBytes) {
    // A small queue grows like a vector: one chunk, live bytes moved to its start, so a host
    // with a handful of URLs pays for one header and at most a third of slack.
    const uint32_t grown =
        std::max(live + needed, std::min(kMaxChunkBytes, tail_->capacity + std::max(16u, tail_->capacity / 4)));
    Chunk* chunk = allocate_chunk(grown);
    std::memcpy(chunk->data(), tail_->data() + tail_->begin, live);
    chunk->end = live;
    release_chunk(tail_);
    head_ = tail_ = chunk;
    return;
  }
  // A large queue links fixed-size chunks: no copying, at most one chunk of slack.
  Chunk* chunk = allocate_chunk(std::max(kMaxChunkBytes, needed));
  tail_->next = chunk;
  tail_ = chunk;
}

void RecordFifo::push_back(uint32_t tag, std::string_view bytes) {
  const size_t needed = encoded_size(tag, bytes);
  make_room_at_tail(static_cast<uint32_t>(needed));
  encode(tail_->data() + tail_->end, tag, bytes);
  tail_->end += static_cast<uint32_t>(needed);
  ++size_;
}

void RecordFifo::push_front(uint32_t tag, std::string_view bytes) {
  const size_t needed = encoded_size(tag, bytes);
  // A pinned head's vacated bytes may still be read through the pin: not reused.
  if (head_ == nullptr || head_->begin < needed || head_->holders.load(std::memory_order_acquire) > 1) {
    Chunk* chunk = allocate_chunk(static_cast<uint32_t>(needed));
    chunk->begin = chunk->end = static_cast<uint32_t>(needed);
    chunk->next = head_;
    head_ = chunk;
    if (tail_ == nullptr) tail_ = chunk;
  }
  head_->begin -= static_cast<uint32_t>(needed);
  encode(head_->data() + head_->begin, tag, bytes);
  ++size_;
}

RecordFifo::Record RecordFifo::front() const { return decode(head_, head_->begin, head_->end).record; }

void RecordFifo::pop_front() {
  head_->begin = decode(head_, head_->begin, head_->end).next_offset;
  --size_;
  if (head_->begin == head_->end) {
    Chunk* drained = std::exchange(head_, head_->next);
    if (head_ == nullptr) tail_ = nullptr;
    release_chunk(drained);
  }
}

size_t RecordFifo::allocated_bytes() const {
  size_t total = 0;
  for (const Chunk* chunk = head_; chunk != nullptr; chunk = chunk->next) {
    total += sizeof(Chunk) + chunk->capacity;
  }
  return total;
}

}  // namespace bloomcrawl
