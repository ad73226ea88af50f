#include "tests/support/shop_site.h"

#include <charconv>

#include "tests/support/site_random.h"

namespace bloomcrawl::testweb {
namespace {

constexpr uint32_t kPerList = 10;

// The value of `name` in a query string; nullopt when absent.
std::optional<std::string_view> param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view p = query.substr(0, amp);
    if (p.starts_with(name) && p.size() > name.size() && p[name.size()] == '=') return p.substr(name.size() + 1);
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

// A number below `limit` (digits only), or nullopt.
std::optional<uint32_t> number(std::optional<std::string_view> text, uint32_t limit) {
  if (!text || text->empty()) return std::nullopt;
  uint32_t n = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
  if (ec != std::errc() || end != text->data() + text->size() || n >= limit) return std::nullopt;
  return n;
}

// 300 words of a page's text, fixed by `salt`: enough that a render's counter or sponsor moves
// its SimHash by a few bits only.
std::string description(size_t host, uint64_t salt) {
  SiteRandom random(page_seed(host, salt, "shop"));
  std::string text = "<p>";
  for (int i = 0; i < 300; ++i) text.append("w").append(std::to_string(random.below(3000))).append(" ");
  return text + "</p>";
}

std::string head(size_t host, const std::string& title) {
  return "<!doctype html><html><head><title>" + ShopSite::host_name(host) + " " + title + "</title></head><body>\n";
}

std::string link(const std::string& href) { return "<a href=\"" + href + "\">link</a>\n"; }

// The path without every leading "/print" (the mirror's prefix): the page it mirrors.
std::string_view unmirrored(std::string_view path, bool& mirrored) {
  mirrored = false;
  while (path.starts_with("/print/")) {
    path.remove_prefix(6);
    mirrored = true;
  }
  return path;
}

}  // namespace

ShopSite::ShopSite(size_t hosts, uint32_t items) : hosts_(hosts), items_(items) {}

std::string ShopSite::host_name(size_t i) {
  std::string name = "shop";
  name.append(std::to_string(i)).append(".test");
  return name;
}

std::optional<size_t> ShopSite::host_index(std::string_view host_header) const {
  std::string_view host = host_header.substr(0, host_header.find(':'));
  if (!host.starts_with("shop") || !host.ends_with(".test")) return std::nullopt;
  host = host.substr(4, host.size() - 9);
  const std::optional<uint32_t> i = number(host, uint32_t(hosts_));
  return i ? std::optional<size_t>(*i) : std::nullopt;
}

ShopPage ShopSite::classify(std::string_view path, std::string_view query) const {
  bool mirrored = false;
  path = unmirrored(path, mirrored);
  const uint32_t lists = list_pages();
  if (!mirrored && path == "/list") {
    if (const auto p = number(param(query, "page"), lists + 1); p && *p > 0) {
      return {ShopGroup::kPerRender, "list " + std::to_string(*p)};
    }
  } else if (!mirrored && path == "/item") {
    if (const auto k = number(param(query, "id"), items_)) return {ShopGroup::kPerRender, "item " + std::to_string(*k)};
  } else if (path == "/catalog") {
    if (const auto p = number(param(query, "page"), lists + 1); p && *p > 0) {
      return {ShopGroup::kIdentical, "catalog " + std::to_string(*p)};
    }
  } else if (path == "/product") {
    if (const auto k = number(param(query, "id"), items_)) {
      return {ShopGroup::kIdentical, "product " + std::to_string(*k)};
    }
  } else if (path == "/stock") {
    const auto k = number(param(query, "id"), items_);
    const std::optional<std::string_view> v_text = param(query, "v");
    const auto v = v_text ? number(v_text, 2) : std::optional<uint32_t>(0);
    if (k && v) {
      return {ShopGroup::kSometimes,
              "stock " + std::to_string(*k) + (*k % 4 == 0 ? "/" + std::to_string(*v) : std::string())};
    }
  }
  return {};
}

ShopGroup ShopSite::group_of(std::string_view key) {
  if (key.starts_with("list ") || key.starts_with("item ")) return ShopGroup::kPerRender;
  return key.starts_with("stock ") ? ShopGroup::kSometimes : ShopGroup::kIdentical;
}

std::optional<std::string> ShopSite::render(size_t host, std::string_view path, std::string_view query, uint16_t port) {
  if (path == "/") {
    std::string body = head(host, "home") + link("/list?page=1&vid=" + vid()) + link("/catalog?page=1") +
                       link("/print/catalog?page=1");
    if (host + 1 < hosts_) body += link("http://" + host_name(host + 1) + ":" + std::to_string(port) + "/");
    return body + "</body></html>\n";
  }
  const ShopPage page = classify(path, query);
  if (page.group == ShopGroup::kOther) return std::nullopt;
  const size_t space = page.key.find(' ');
  const std::string_view kind = std::string_view(page.key).substr(0, space);
  const auto n = uint32_t(std::stoul(page.key.substr(space + 1)));
  if (kind == "list") return list(host, n);
  if (kind == "item") return item(host, n);
  if (kind == "catalog") return catalog(host, n);
  if (kind == "product") return product(host, n);
  const size_t slash = page.key.find('/');
  return stock(host, n, slash == std::string::npos ? 0 : uint32_t(std::stoul(page.key.substr(slash + 1))));
}

std::string ShopSite::list(size_t host, uint32_t page) {
  std::string body = head(host, "List " + std::to_string(page));
  if (page < list_pages()) body += link("/list?page=" + std::to_string(page + 1) + "&vid=" + vid());
  for (uint32_t k = (page - 1) * kPerList; k < std::min(items_, page * kPerList); ++k) {
    body += link("/item?id=" + std::to_string(k) + "&vid=" + vid());
  }
  return body + "<p>sponsor " + sponsor() + "</p>" + description(host, page + (1ULL << 32)) + "</body></html>\n";
}

std::string ShopSite::item(size_t host, uint32_t id) {
  const std::string k = std::to_string(id);
  std::string body = head(host, "Item " + k);
  if (id + 1 < items_) body += link("/item?id=" + std::to_string(id + 1) + "&vid=" + vid());
  body += link("/item?id=" + k + "&sort=price&vid=" + vid()) + link("/item?id=" + k + "&ref=nav&vid=" + vid());
  body += link("/stock?id=" + k + "&v=0") + link("/stock?id=" + k + "&v=1");
  if (id % 2 == 1) body += "<p>rendered " + std::to_string(renders_.fetch_add(1, std::memory_order_relaxed)) + "</p>";
  if (id % 3 == 0) body += "<p>sponsor " + sponsor() + "</p>";
  return body + description(host, id) + "</body></html>\n";
}

std::string ShopSite::catalog(size_t host, uint32_t page) const {
  std::string body = head(host, "Catalog " + std::to_string(page));
  if (page < list_pages()) body += link("catalog?page=" + std::to_string(page + 1));
  for (uint32_t k = (page - 1) * kPerList; k < std::min(items_, page * kPerList); ++k) {
    body += link("product?id=" + std::to_string(k) + "&ref=catalog");
  }
  return body + description(host, page + (2ULL << 32)) + "</body></html>\n";
}

std::string ShopSite::product(size_t host, uint32_t id) const {
  const std::string k = std::to_string(id);
  std::string body = head(host, "Product " + k);
  if (id + 1 < items_) body += link("product?id=" + std::to_string(id + 1) + "&ref=related");
  body += link("product?id=" + k + "&sort=name") + link("product?id=" + k + "&ref=self");
  if (id % 10 == 0) body += link("print/product?id=" + k);
  return body + description(host, id + (3ULL << 32)) + "</body></html>\n";
}

std::string ShopSite::stock(size_t host, uint32_t id, uint32_t v) {
  const std::string changed = v == 1 ? description(host, id + (5ULL << 32)) : "";
  return head(host, "Stock " + std::to_string(id)) + description(host, id + (4ULL << 32)) + changed +
         "</body></html>\n";
}

uint64_t ShopSite::distinct_pages(ShopGroup group) const {
  // Per render: list pages and items; byte-identical: catalog pages and products; sometimes: a
  // stock page per item, two for K % 4 == 0.
  if (group == ShopGroup::kOther) return 0;
  return group == ShopGroup::kSometimes ? items_ + (items_ + 3) / 4 : list_pages() + items_;
}

std::vector<std::string> ShopSite::required_keys() const {
  std::vector<std::string> keys;
  for (uint32_t p = 1; p <= list_pages(); ++p) {
    keys.push_back("list " + std::to_string(p));
    keys.push_back("catalog " + std::to_string(p));
  }
  for (uint32_t k = 0; k < items_; ++k) {
    const std::string n = std::to_string(k);
    keys.push_back("item " + n);
    keys.push_back("product " + n);
    if (k % 4 != 0) {
      keys.push_back("stock " + n);
    } else {
      keys.push_back("stock " + n + "/0");
      keys.push_back("stock " + n + "/1");
    }
  }
  return keys;
}

}  // namespace bloomcrawl::testweb
