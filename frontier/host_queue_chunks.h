// RecordFifo: a FIFO of (small tag, bytes) records packed back to back in a singly linked list of
// chunks. While the queue fits in one chunk that chunk grows 1.5x (moving its live bytes) from
// 40 bytes to 4 KiB, so a host with three URLs costs one small allocation; beyond that, 4 KiB
// chunks are linked, so a host with a million URLs wastes at most one chunk. Drained chunks are
// freed at once.
// push_front reuses the space the last pop_front vacated, so putting a lease back costs nothing.
// Not thread-safe; the Frontier's mutex guards it, except that pinned records (pin()) may be read
// on another thread while the fifo goes on changing: live bytes are never rewritten in place, a
// pinned chunk is never reused for push_front, and the last holder of a chunk frees it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/prefetch.h"

namespace bloomcrawl {

class PinnedRecords;

class RecordFifo {
 public:
  struct Record {
    uint32_t tag;
    std::string_view bytes;  // valid until the next mutation of the fifo
  };

  RecordFifo() = default;
  RecordFifo(RecordFifo&& other) noexcept;
  RecordFifo& operator=(RecordFifo&& other) noexcept;
  RecordFifo(const RecordFifo&) = delete;
  RecordFifo& operator=(const RecordFifo&) = delete;
  ~RecordFifo();

  void push_back(uint32_t tag, std::string_view bytes);
  void push_front(uint32_t tag, std::string_view bytes);
  Record front() const;  // requires !empty()
  void pop_front();      // requires !empty()
  void clear();

  bool empty() const { return head_ == nullptr; }
  void prefetch_head() const { prefetch_for_read(head_); }
  uint32_t size() const { return size_; }
  size_t allocated_bytes() const;

  // Visits every record from front to back.
  template <typename Visitor>
  void for_each(Visitor&& visit) const {
    for (const Chunk* chunk = head_; chunk != nullptr; chunk = chunk->next) {
      visit_span(chunk, chunk->begin, chunk->end, visit);
    }
  }

  // Appends the fifo's current records to `out` without copying them: they stay readable there,
  // unchanged, whatever the fifo does next, until `out` is destroyed.
  void pin(PinnedRecords& out) const;

 private:
  friend class PinnedRecords;
  struct Chunk {
    Chunk* next;
    uint32_t capacity;
    uint32_t begin;                 // first live byte
    uint32_t end;                   // one past the last live byte
    std::atomic<uint32_t> holders;  // the fifo (while linked) plus each PinnedRecords holding it
    char* data() { return reinterpret_cast<char*>(this + 1); }
    const char* data() const { return reinterpret_cast<const char*>(this + 1); }
  };
  struct Decoded {
    Record record;
    uint32_t next_offset;
  };

  template <typename Visitor>
  static void visit_span(const Chunk* chunk, uint32_t begin, uint32_t end, Visitor& visit) {
    for (uint32_t offset = begin; offset < end;) {
      const Decoded decoded = decode(chunk, offset, end);
      visit(decoded.record);
      offset = decoded.next_offset;
    }
  }

  void make_room_at_tail(uint32_t needed);
  static Chunk* allocate_chunk(uint32_t capacity);
  static void release_chunk(const Chunk* chunk);
  // `end` is passed, not read from the chunk: a pinned chunk's header may be changing.
  static Decoded decode(const Chunk* chunk, uint32_t offset, uint32_t end);
  static size_t encoded_size(uint32_t tag, std::string_view bytes);
  static void encode(char* dst, uint32_t tag, std::string_view bytes);

  Chunk* head_ = nullptr;
  Chunk* tail_ = nullptr;
  uint32_t size_ = 0;
};

// Records of many RecordFifos as they were when pinned, readable from any one thread afterwards
// while the fifos change under their own lock. Pins are ranges [first, last) of span indexes.
class PinnedRecords {
 public:
  PinnedRecords() = default;
  PinnedRecords(PinnedRecords&& other) noexcept = default;
  PinnedRecords& operator=(PinnedRecords&& other) noexcept;
  PinnedRecords(const PinnedRecords&) = delete;
  PinnedRecords& operator=(const PinnedRecords&) = delete;
  ~PinnedRecords();

  size_t spans() const { return spans_.size(); }
  void reserve(size_t spans) { spans_.reserve(spans); }

  // Visits the records of spans [first, last) in order.
  template <typename Visitor>
  void for_each(size_t first, size_t last, Visitor&& visit) const {
    for (size_t i = first; i < last; ++i) {
      RecordFifo::visit_span(spans_[i].chunk, spans_[i].begin, spans_[i].end, visit);
    }
  }

 private:
  friend class RecordFifo;
  struct Span {
    const RecordFifo::Chunk* chunk;
    uint32_t begin;
    uint32_t end;
  };
  void release_all();

  std::vector<Span> spans_;
};

}  // namespace bloomcrawl
