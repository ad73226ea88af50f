// The one error type for files the project cannot read or write: bad on-disk data (a checkpoint,
// journal, manifest or audit file that is truncated, corrupted or of another version) and I/O
// failures while writing one. The message always starts with the path of the file.
#pragma once

#include <stdexcept>
#include <string>

namespace bloomcrawl {

class CheckpointError : public std::runtime_error {
 public:
  CheckpointError(const std::string& file, const std::string& problem) : std::runtime_error(file + ": " + problem) {}
};

}  // namespace bloomcrawl
