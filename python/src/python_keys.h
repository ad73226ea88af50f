// Keys from Python objects. A str key is its UTF-8 bytes and a bytes key its bytes, so "a" and
// b"a" are one key (and the same key as the line "a" in `bloomcrawl dedup`). Other types, bytearray
// and memoryview included, are refused: add_many reads keys with the GIL released, and a mutable
// buffer could be resized under it.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <string_view>
#include <vector>

namespace bloomcrawl::python {

// The bytes of `key`, valid while `key` lives. Needs the GIL. Throws pybind11::type_error; `index`
// (when not kNoIndex) names the position of the key in a batch.
inline constexpr size_t kNoIndex = static_cast<size_t>(-1);
std::string_view key_bytes(PyObject* key, size_t index = kNoIndex);

// A batch of keys whose bytes stay valid with the GIL released: the keys are held by a tuple of
// their own (a list given by the caller could be changed by another thread meanwhile).
class KeyBatch {
 public:
  // Takes any iterable of str or bytes.
  explicit KeyBatch(pybind11::handle keys);
  const std::vector<std::string_view>& views() const { return views_; }

 private:
  pybind11::tuple holder_;
  std::vector<std::string_view> views_;
};

}  // namespace bloomcrawl::python
