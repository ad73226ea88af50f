// GroupedHosts: the hosts the crawler has already put in their address's politeness group
// (politeness.group_by_ip), so the frontier is told once per host rather than once per page.
// Bounded whatever the crawl's size: a direct-mapped table of host-name hashes, kSlots × 8 bytes
// (2 MiB), not a set of every host ever seen. A host whose slot another host has taken since is
// reported as new again; grouping it again is harmless (the frontier ignores a move to the group
// a host is in), except that a host on several addresses may then join the group of another of
// them, which keeps it polite (the joined group takes the stricter clock). Thread-safe, lock-free.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace bloomcrawl {

class GroupedHosts {
 public:
  static constexpr size_t kSlots = size_t{1} << 18;

  GroupedHosts();

  // True when `host` is not (or no longer) remembered; it is remembered from now on.
  bool first_time(std::string_view host);

 private:
  std::unique_ptr<std::atomic<uint64_t>[]> slots_;
};

}  // namespace bloomcrawl
