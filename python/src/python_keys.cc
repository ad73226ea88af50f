#include "python/src/python_keys.h"

#include <string>

namespace bloomcrawl::python {
namespace py = pybind11;

std::string_view key_bytes(PyObject* key, size_t index) {
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_Check(key)) {
    if (PyBytes_AsStringAndSize(key, &data, &size) != 0) throw py::error_already_set();
    return {data, static_cast<size_t>(size)};
  }
  if (PyUnicode_Check(key)) {
    // Cached in the str object, so it lives as long as the key does.
    const char* utf8 = PyUnicode_AsUTF8AndSize(key, &size);
    if (utf8 == nullptr) throw py::error_already_set();  // e.g. a lone surrogate: not encodable
    return {utf8, static_cast<size_t>(size)};
  }
  std::string where = index == kNoIndex ? "key" : "key " + std::to_string(index);
  throw py::type_error(where + " must be str or bytes, not " + std::string(Py_TYPE(key)->tp_name));
}

KeyBatch::KeyBatch(py::handle keys) {
  if (PyUnicode_Check(keys.ptr()) || PyBytes_Check(keys.ptr())) {
    throw py::type_error("keys must be an iterable of keys, not a single " + std::string(Py_TYPE(keys.ptr())->tp_name));
  }
  // A tuple is immutable, so it is held as it is; any other iterable is copied into one.
  holder_ = py::reinterpret_steal<py::tuple>(PySequence_Tuple(keys.ptr()));
  if (!holder_) throw py::error_already_set();
  const auto n = static_cast<size_t>(PyTuple_GET_SIZE(holder_.ptr()));
  views_.resize(n);
  for (size_t i = 0; i < n; ++i) views_[i] = key_bytes(PyTuple_GET_ITEM(holder_.ptr(), static_cast<Py_ssize_t>(i)), i);
}

}  // namespace bloomcrawl::python
