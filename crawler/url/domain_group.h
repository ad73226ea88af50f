// The politeness group of a host under politeness.group_by "domain": its registrable domain
// (public suffix plus one label, e.g. www.bbc.co.uk -> bbc.co.uk), from the Public Suffix List
// through libpsl, so that a thousand subdomains of one site share one delay and concurrency.
//
// Contract:
// - Input is a crawler host key as canonical URLs spell it: "host" or "host:port", lowercase, IDN
//   labels in Punycode ("xn--..."); UTF-8 labels are accepted too. The port is ignored: every
//   port of a domain is in its group.
// - The answer is the registrable domain, or "" when the host is its own group: IP addresses
//   (v4, and bracketed v6), single-label hosts ("localhost") and public suffixes themselves
//   ("co.uk", "github.io"), which have no registrable domain.
// - The PSL's private section counts (x.github.io and y.github.io are separate groups), as in
//   browsers: they are separate sites whose owners differ; grouping one server's sites is what
//   group_by "ip" is for.
// - The list is Debian's (package publicsuffix) via psl_latest(NULL): the newer of the system
//   file and the data built into libpsl, loaded once per process. Thread-safe. Should neither be
//   there, every host is its own group: public_suffix_list_loaded() says so beforehand.
#pragma once

#include <string>
#include <string_view>

namespace bloomcrawl {

std::string domain_group(std::string_view host_key);
bool public_suffix_list_loaded();

}  // namespace bloomcrawl
