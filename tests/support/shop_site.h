// ShopSite: a generated shop with every case of the content-seen test (issue 29; docs/testweb.md,
// "The shop web"): the same page behind many URLs, and the parameters that do and do not change a
// page. Pure: renders a request's page and says which distinct content page a request is, so a
// server (shop_web.h) and a test agree on the truth.
//
// Host i ("shop<i>.test") of `items` items serves, with L = ceil(items / 10) list pages:
// - a store whose every link carries a visit id fresh on every render (`vid`): /list?page=P&vid=V
//   (P in 1..L; its next page and 10 items) and /item?id=K&vid=V (its next item, itself with
//   `&sort=price` and with `&ref=nav`, its two stock pages). Odd items render a counter and items
//   K % 3 == 0 a rotating sponsor, list pages a sponsor too: their renders differ (the per-render
//   group: list and item pages).
// - a catalog whose renders are byte-identical (the byte-identical group): /catalog?page=P (its
//   next page, its products with `&ref=catalog`), /product?id=K (its next product with
//   `&ref=related`, itself with `&sort=name` and with `&ref=self`; K % 10 == 0 its print version).
//   Links are relative, and the same pages are served byte-identical under /print/ (a mirror, linked from
//   the home page and the products K % 10 == 0): /print/catalog resolves its links to /print/...
// - stock pages /stock?id=K&v=0|1 (linked from the items), whose `v` changes the page only when
//   K % 4 == 0 (absent: v=0); byte-identical renders (the group of a parameter that changes some).
// - / (linking /list?page=1, /catalog?page=1, /print/catalog?page=1 and the next host's home),
//   a 404 robots.txt.
// The parameters that matter: page, id, and v for K % 4 == 0; vid, sort and ref never do.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bloomcrawl::testweb {

// kIdentical: renders byte-identical, behind parameters that never change them and mirrors;
// kPerRender: renders differ; kSometimes: the stock pages, behind a parameter that changes some.
enum class ShopGroup { kIdentical, kPerRender, kSometimes, kOther };

// Which distinct content page a request is: its group and a key naming the page ("list 3",
// "product 12", "stock 8/1"; a mirror's page is the page it mirrors); kOther (home, 404) has none.
struct ShopPage {
  ShopGroup group = ShopGroup::kOther;
  std::string key;
};

class ShopSite {
 public:
  ShopSite(size_t hosts, uint32_t items);

  size_t hosts() const { return hosts_; }
  uint32_t items() const { return items_; }
  uint32_t list_pages() const { return (items_ + 9) / 10; }
  static std::string host_name(size_t i);  // "shop<i>.test"
  // The host index of a Host header ("shop<i>.test[:port]").
  std::optional<size_t> host_index(std::string_view host_header) const;

  // The page for a path and its query string (without '?'); nullopt: 404.
  std::optional<std::string> render(size_t host, std::string_view path, std::string_view query, uint16_t port);
  ShopPage classify(std::string_view path, std::string_view query) const;
  static ShopGroup group_of(std::string_view key);  // of a ShopPage's key
  // The distinct content pages of a host in each group.
  uint64_t distinct_pages(ShopGroup group) const;
  // The keys every crawl must fetch (the parameters that matter), in one host.
  std::vector<std::string> required_keys() const;

 private:
  // The pages of host `host`: its name in every title and text of its own, so no two hosts share a page.
  std::string list(size_t host, uint32_t page);
  std::string item(size_t host, uint32_t id);
  std::string catalog(size_t host, uint32_t page) const;
  std::string product(size_t host, uint32_t id) const;
  static std::string stock(size_t host, uint32_t id, uint32_t v);
  std::string vid() { return std::to_string(visits_.fetch_add(1, std::memory_order_relaxed)); }
  std::string sponsor() { return kSponsors[renders_.fetch_add(1, std::memory_order_relaxed) % 4]; }
  static constexpr const char* kSponsors[4] = {"acme", "globex", "initech", "umbrella"};

  const size_t hosts_;
  const uint32_t items_;
  std::atomic<uint64_t> visits_{0};
  std::atomic<uint64_t> renders_{0};
};

}  // namespace bloomcrawl::testweb
