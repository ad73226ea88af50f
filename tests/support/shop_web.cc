#include "tests/support/shop_web.h"

#include <httplib.h>

#include <stdexcept>

#include "tests/support/host_header_server.h"

namespace bloomcrawl::testweb {

nlohmann::json to_json(const ShopWebLog& log) {
  const auto group = [](const ShopGroupLog& g) {
    return nlohmann::json{
        {"distinct_pages", g.distinct_pages}, {"fetched_pages", g.fetched_pages}, {"fetches", g.fetches}};
  };
  return {{"identical", group(log.identical)},
          {"per_render", group(log.per_render)},
          {"sometimes", group(log.sometimes)},
          {"other_requests", log.other_requests},
          {"missing", log.missing}};
}

ShopWeb::ShopWeb(ShopWebOptions options) : options_(options), site_(options.hosts, options.items) {
  if (options_.hosts == 0 || options_.items == 0 || options_.threads == 0) {
    throw std::invalid_argument("shop web: hosts, items and threads must be >= 1");
  }
}

ShopWeb::~ShopWeb() { stop(); }

std::string ShopWeb::seed_url() const { return "http://" + ShopSite::host_name(0) + ":" + std::to_string(port_) + "/"; }

std::string ShopWeb::resolve_entry() const { return "*:" + std::to_string(port_) + ":127.0.0.1"; }

std::vector<std::string> ShopWeb::host_names() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < options_.hosts; ++i) names.push_back(ShopSite::host_name(i));
  return names;
}

void ShopWeb::start() {
  if (server_) throw std::logic_error("shop web: start() called twice");
  server_ = testing::host_header_server(options_.threads);
  server_->Get(R"(/.*)", [this](const httplib::Request& request, httplib::Response& response) {
    const std::optional<size_t> host = site_.host_index(request.get_header_value("Host"));
    const std::string target = request.target;
    const size_t q = target.find('?');
    const std::string_view path = std::string_view(target).substr(0, q);
    const std::string_view query = q == std::string::npos ? std::string_view() : std::string_view(target).substr(q + 1);
    const ShopPage page = host ? site_.classify(path, query) : ShopPage{};
    {
      std::lock_guard lock(mu_);
      if (page.group == ShopGroup::kOther) {
        ++other_requests_;
      } else {
        ++fetches_[ShopSite::host_name(*host) + " " + page.key];
      }
    }
    const std::optional<std::string> body = host ? site_.render(*host, path, query, port_) : std::nullopt;
    if (!body) {
      response.status = 404;
      return;
    }
    response.set_content(*body, "text/html");
  });
  port_ = testing::listen_on_loopback(*server_, options_.port, thread_, "shop web");
}

void ShopWeb::stop() {
  if (!server_) return;
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

ShopWebLog ShopWeb::log() const {
  ShopWebLog out;
  out.identical.distinct_pages = site_.distinct_pages(ShopGroup::kIdentical) * options_.hosts;
  out.per_render.distinct_pages = site_.distinct_pages(ShopGroup::kPerRender) * options_.hosts;
  out.sometimes.distinct_pages = site_.distinct_pages(ShopGroup::kSometimes) * options_.hosts;
  std::lock_guard lock(mu_);
  out.other_requests = other_requests_;
  for (const std::string& name : host_names()) {
    for (const std::string& key : site_.required_keys()) {
      const auto it = fetches_.find(name + " " + key);
      if (it == fetches_.end()) {
        out.missing.push_back(name + " " + key);
        continue;
      }
      const ShopGroup kind = ShopSite::group_of(key);
      ShopGroupLog& group = kind == ShopGroup::kIdentical   ? out.identical
                            : kind == ShopGroup::kPerRender ? out.per_render
                                                            : out.sometimes;
      ++group.fetched_pages;
      group.fetches += it->second;
    }
  }
  return out;
}

}  // namespace bloomcrawl::testweb
