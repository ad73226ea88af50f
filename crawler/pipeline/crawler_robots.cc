// The Crawler's robots.txt members (crawler.h): the verdict for a URL, the robots.txt requests
// (queued, given their share, submitted) and what an answer does to its host. RFC 9309,
// docs/robots.md.
#include <string>
#include <string_view>
#include <utility>

#include <spdlog/spdlog.h>

#include "crawler/pipeline/crawl_checkpointer.h"
#include "crawler/pipeline/crawler.h"

namespace bloomcrawl {
namespace {

// "http://host:port" of a canonical URL: robots.txt is per scheme and authority (RFC 9309 2.3).
std::string origin_of(std::string_view url) {
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::string(url);
  size_t path = url.find_first_of("/?", scheme_end + 3);
  return std::string(url.substr(0, path));
}

// No server answered at all (no DNS answer, a refused connection, a failed TLS handshake).
bool unreachable(const FetchResult& result) {
  return result.outcome == FetchOutcome::kDnsFailed || result.outcome == FetchOutcome::kConnectFailed ||
         result.outcome == FetchOutcome::kTlsError;
}

}  // namespace

// What robots.txt says about `url` now. When the rules for its origin are unknown or expired, or
// its robots.txt is being retried, holds the host (kWait) and starts the robots.txt fetch (once).
Crawler::RobotsVerdict Crawler::robots_verdict(const std::string& host, std::string_view url, Clock::time_point now) {
  using Kind = RobotsVerdict::Kind;
  inject_fault(WorkerPath::kRobotsLookup, url);
  std::string origin = origin_of(url);
  RobotsLookup lookup = robots_.lookup(origin, now);
  if (lookup.state == RobotsLookup::State::kFetching) {
    // The fetch may settle, and release the host, between the lookup and a hold: the host would
    // stay held for good and the crawl never end. Asked again once held, a settled fetch shows.
    frontier_.hold_host(host);
    lookup = robots_.lookup(origin, now);
    if (lookup.state == RobotsLookup::State::kFetching) return RobotsVerdict{Kind::kWait};
    frontier_.release_host(host, now);  // as the settled fetch's own release would have
  }
  switch (lookup.state) {
    case RobotsLookup::State::kReady: {
      // A re-fetch of a failing robots.txt: the last good copy decides meanwhile.
      if (lookup.refetch) start_robots_fetch({host, origin, origin + "/robots.txt"});
      RobotsDecision d = lookup.rules->check(url);
      return d.allowed ? RobotsVerdict{Kind::kAllowed} : RobotsVerdict{Kind::kDisallowed, std::move(d.rule)};
    }
    case RobotsLookup::State::kGivenUp: return RobotsVerdict{Kind::kGivenUp, "", lookup.given_up};
    case RobotsLookup::State::kNeedFetch:
      frontier_.hold_host(host);
      start_robots_fetch({host, origin, origin + "/robots.txt"});
      return RobotsVerdict{Kind::kWait};
    case RobotsLookup::State::kFetching: break;  // answered above
  }
  return RobotsVerdict{Kind::kWait};
}

void Crawler::start_robots_fetch(RobotsRequest request) {
  pending_.fetch_add(1);
  robots_share_.add_pending();
  queue_robots_fetch(std::move(request));
  start_ready_robots_fetches(Clock::now());
}

void Crawler::queue_robots_fetch(RobotsRequest request) {
  const uint64_t token = next_request_id_.fetch_add(1);
  const std::string host = request.host;
  requests_.queue(token, std::move(request));
  frontier_.push_prerequisite(host, token);
}

// A request goes when its host's politeness key lets it (the frontier's prerequisite), its share
// has a slot and the whole budget has room: pages in flight may use what robots.txt does not hold,
// and the scheduler starts a waiting request as soon as a transfer ends or its key is ready.
void Crawler::start_ready_robots_fetches(Clock::time_point now) {
  while (fetcher_->in_flight() < in_flight_budget() && robots_share_.try_start()) {
    std::optional<PrerequisiteLease> lease = frontier_.pop_prerequisite(now);
    if (!lease) {
      robots_share_.finished();
      return;
    }
    std::optional<RobotsRequest> request = requests_.take_queued(lease->token);
    if (!request) {  // dropped by a stop in between: nothing to send
      frontier_.release_prerequisite(*lease);
      robots_share_.finished();
      continue;
    }
    request->lease = std::move(*lease);
    submit_robots(std::move(*request));
  }
}

void Crawler::submit_robots(RobotsRequest request) {
  FetchRequest fr;
  fr.url = request.url;
  fr.host = request.host;
  fr.accept_types_override = "*/*";  // robots.txt is text/plain, but servers vary
  // A larger file is no failure: its first part is parsed (RFC 9309 2.5) and the rest not read.
  fr.keep_first_bytes = settings_.robots.max_body_bytes;
  fr.id = next_request_id_.fetch_add(1);
  requests_.add(fr.id, std::move(request));
  stats_.robots_fetches.fetch_add(1, std::memory_order_relaxed);
  fetcher_->submit(std::move(fr));
}

// Due retries join their hosts' prerequisites (they were pending while they waited); then those
// whose keys are ready take the free slots of the share.
void Crawler::start_due_robots_fetches(Clock::time_point now) {
  for (RobotsRequest& r : requests_.take_due(now)) queue_robots_fetch(std::move(r));
  start_ready_robots_fetches(now);
}

void Crawler::robots_work_done() {
  robots_share_.pending_done();
  work_done();
}

void Crawler::schedule_robots_fetch(RobotsRequest request, Clock::time_point due, Clock::time_point now) {
  if (due <= now) {
    start_robots_fetch(std::move(request));
    return;
  }
  pending_.fetch_add(1);  // until start_due_robots_fetches() submits it
  robots_share_.add_pending();
  requests_.wait(std::move(request), due);
}

void Crawler::process_robots(const RobotsRequest& request, const FetchResult& result) {
  const Clock::time_point now = Clock::now();
  RobotsNext next;
  try {
    inject_fault(WorkerPath::kRobots, request.url);
    if (follow_robots_redirect(request, result)) return;
    if (result.outcome == FetchOutcome::kBlockedAddress) {
      // The SSRF guard refused the host's address: its pages will be refused the same way and
      // recorded as blocked_address, which says more than "disallowed by robots.txt" would.
      robots_.on_fetched(request.origin, 404, "", now);
      frontier_.release_host(request.host);
      return;
    }
    next = apply_robots(request, result, now);
  } catch (const CheckpointError&) {
    throw;  // an output failure stops the crawl (parse_worker)
  } catch (const std::exception& e) {
    // A bug or exhausted memory while reading the answer: as a failed fetch, it is tried again.
    spdlog::error("{}: robots.txt not applied: {}", request.url, e.what());
    next = robots_.on_failed(request.origin, RobotsFailure::kOutage, now);
  }
  if (next.kind != RobotsNext::Kind::kSettled) log_robots_failure(request, result, next, now);
  settle_robots(request, next, now);
}

// What follows for the host from its robots.txt's fate: a retry it waits for, or its release.
void Crawler::settle_robots(const RobotsRequest& request, const RobotsNext& next, Clock::time_point now) {
  if (next.kind == RobotsNext::Kind::kRetry) {
    // An outage should not cost a whole host: it waits, its queue kept, for the next try.
    RobotsRequest retry = request;
    retry.attempt = next.failures;
    retry.url = request.origin + "/robots.txt";  // from the start, not the failed hop
    retry.hops = 0;
    schedule_robots_fetch(std::move(retry), next.at, now);
  }
  // The robots.txt request counted toward the host's politeness like any other (its answer
  // started the delay, settle_robots_slot()); released from now, the first page also waits a
  // Crawl-delay the answer gave. A host given up has its URLs recorded at once, with no request
  // to wait for.
  if (next.kind == RobotsNext::Kind::kGivenUp) frontier_.release_host(request.host);
  if (next.kind == RobotsNext::Kind::kSettled || next.kind == RobotsNext::Kind::kKeptLastGood) {
    frontier_.release_host(request.host, now);
  }
}

bool Crawler::follow_robots_redirect(const RobotsRequest& request, const FetchResult& result) {
  if (result.outcome != FetchOutcome::kOk || result.status < 300 || result.status >= 400 || result.location.empty() ||
      request.hops >= uint32_t(kRobotsMaxRedirects)) {
    return false;
  }
  // RFC 9309 2.3.1.2: follow at least five redirects, to any host.
  std::optional<Url> base = parse_url(request.url);
  std::optional<Url> target = base ? parse_url(result.location, &*base) : std::nullopt;
  if (!target || (target->scheme != "http" && target->scheme != "https")) return false;
  // Each hop is a request like any other: a prerequisite of the same host, it waits for the
  // host's politeness key, whose delay the answer started. A hop to another host waits this
  // host's clock, not that host's (docs/politeness.md).
  RobotsRequest hop = request;
  hop.url = target->href();
  hop.hops = request.hops + 1;
  start_robots_fetch(std::move(hop));
  return true;
}

// The answer (or its absence) into the robots cache, and what follows from the rules: the host's
// crawl delay and, with sitemaps_as_seeds, the sitemaps it names.
RobotsNext Crawler::apply_robots(const RobotsRequest& request, const FetchResult& result, Clock::time_point now) {
  RobotsNext next;
  if (result.outcome == FetchOutcome::kOk) {
    std::optional<Clock::time_point> retry_after;
    if (result.status == 429 || result.status == 503) {
      retry_after = parse_retry_after(result.retry_after, now, settings_.backoff.max_retry_after);
    }
    next = robots_.on_fetched(request.origin, int(result.status), result.body, now, retry_after);
    if (settings_.sitemaps_as_seeds && result.status >= 200 && result.status < 300 && next.rules &&
        !next.rules->sitemaps().empty()) {
      std::optional<Url> base = parse_url(request.url);
      admit_sitemaps(next.rules->sitemaps(), base ? &*base : nullptr, 0, request.url);
    }
  } else {
    // No server answered at all: as for pages, a few tries settle it. Anything else (a timeout,
    // a reset, a broken answer) is an outage that may pass.
    next = robots_.on_failed(request.origin,
                             unreachable(result) ? RobotsFailure::kHostUnreachable : RobotsFailure::kOutage, now);
  }
  if (next.rules) {
    // Crawl-delay: 0 asks for nothing; any other value makes the host serial (set_host_delay).
    if (std::optional<double> delay = next.rules->crawl_delay_seconds(); delay && *delay > 0) {
      auto ms = std::chrono::milliseconds(int64_t(*delay * 1000));
      auto cap = std::max(settings_.frontier.default_delay, settings_.max_crawl_delay);
      frontier_.set_host_delay(request.host, std::clamp(ms, settings_.frontier.default_delay, cap));
    }
  }
  return next;
}

// A host waiting on its robots.txt is never silent: each failure says what happens next.
void Crawler::log_robots_failure(const RobotsRequest& request, const FetchResult& result, const RobotsNext& next,
                                 Clock::time_point now) {
  const std::string what = result.outcome == FetchOutcome::kOk ? "HTTP " + std::to_string(result.status) : result.error;
  const double in_s = std::chrono::duration<double>(next.at - now).count();
  switch (next.kind) {
    case RobotsNext::Kind::kRetry: {
      const RobotsWaits waits = requests_.robots_waits();
      spdlog::warn(
          "{}: robots.txt failed ({}), failure {}: the host waits with its queue, next try in {:.1f} s; "
          "{} host(s) wait for robots.txt",
          request.origin, what, next.failures, in_s, waits.hosts);
      break;
    }
    case RobotsNext::Kind::kKeptLastGood:
      spdlog::warn("{}: robots.txt failed ({}), failure {}: its last good copy stays in force, next try in {:.1f} s",
                   request.origin, what, next.failures, in_s);
      break;
    case RobotsNext::Kind::kGivenUp:
      spdlog::warn("{}: robots.txt failed ({}), failure {}: given up, the host's URLs are recorded as {}",
                   request.origin, what, next.failures, robots_give_up_outcome(next.given_up));
      break;
    case RobotsNext::Kind::kSettled: break;
  }
}

// As for a page (settle_page), at the end of the transfer: an answer starts the host's delay. A
// request that reached no server (cancelled, refused by the SSRF guard, unreachable) leaves the
// clock as it was: there was no one to be polite to, and an unreachable host's tries stay as
// close as docs/robots.md says.
void Crawler::settle_robots_slot(const RobotsRequest& request, const FetchResult& result) {
  if (result.outcome == FetchOutcome::kCancelled || result.outcome == FetchOutcome::kBlockedAddress ||
      unreachable(result)) {
    frontier_.release_prerequisite(request.lease);
  } else {
    frontier_.complete_prerequisite(request.lease, Clock::now());
  }
}

}  // namespace bloomcrawl
