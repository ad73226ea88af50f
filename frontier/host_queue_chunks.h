// RecordFifo: a FIFO of (small tag, bytes) records packed back to back in a singly linked list of
// chunks. While the queue fits in one chunk that chunk grows 1.5x (moving its live bytes) from
// 40 bytes to 4 KiB, so a host with three URLs costs one small allocation; beyond that, 4 KiB
// chunks are linked, so a host with a million URLs wastes at most one chunk. Drained chunks are
// freed at once.
// push_front reuses the space the last pop_front vacated, so putting a lease back costs nothing.
// Not thread-safe; the Frontier's mutex guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace bloomcrawl {

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
  uint32_t size() const { return size_; }
  size_t allocated_bytes() const;

  // Visits every record from front to back.
  template <typename Visitor>
  void for_each(Visitor&& visit) const {
    for (const Chunk* chunk = head_; chunk != nullptr; chunk = chunk->next) {
      for (uint32_t offset = chunk->begin; offset < chunk->end;) {
        const Decoded decoded = decode(chunk, offset);
        visit(decoded.record);
        offset = decoded.next_offset;
      }
    }
  }

 private:
  struct Chunk {
    Chunk* next;
    uint32_t capacity;
    uint32_t begin;  // first live byte
    uint32_t end;    // one past the last live byte
    char* data() { return reinterpret_cast<char*>(this + 1); }
    const char* data() const { return reinterpret_cast<const char*>(this + 1); }
  };
  struct Decoded {
    Record record;
    uint32_t next_offset;
  };

  void make_room_at_tail(uint32_t needed);
  static Chunk* allocate_chunk(uint32_t capacity);
  static void free_chunk(Chunk* chunk);
  static Decoded decode(const Chunk* chunk, uint32_t offset);
  static size_t encoded_size(uint32_t tag, std::string_view bytes);
  static void encode(char* dst, uint32_t tag, std::string_view bytes);

  Chunk* head_ = nullptr;
  Chunk* tail_ = nullptr;
  uint32_t size_ = 0;
};

}  // namespace bloomcrawl
