// `bloomcrawl url`: canonicalize URLs from stdin, one output line per input line.
//
// Input lines are read and output written in large blocks (line by line to a terminal or with
// --line-buffered); when the output's reader goes away (`| head`) the command stops quietly.
// Input lines are "URL" or "BASE<TAB>HREF". Output is the canonical URL, the WHATWG href with
// --href (parser only, for conformance checks), or "ERROR<TAB>category: detail" where category
// is a UrlDropReason name (invalid, unsupported_scheme, too_long).
//
// With --links FILE.html --base URL it instead extracts the page's links (crawler/extract/links.h),
// resolves them against the page's <base href> (itself resolved against URL) or URL, and prints
// "KIND<TAB>CANONICAL_URL[<TAB>nofollow]" per link, or "KIND<TAB>ERROR<TAB>category: detail<TAB>HREF".
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "crawler/cli/command.h"
#include "crawler/cli/line_stream.h"
#include "crawler/extract/links.h"
#include "crawler/url/canonical.h"
#include "crawler/url/url.h"

namespace bloomcrawl::cli {
namespace {

struct UrlCommandArgs {
  CanonicalizeOptions options;
  std::vector<std::string> extra_strip_params;
  bool href_only = false;
  bool line_buffered = false;
  std::string links_file;
  std::string page_url;
  std::string content_type;  // the page's Content-Type header, for its charset
};

void print_error(LineWriter& out, UrlDropReason reason, std::string_view detail) {
  out.append("ERROR\t");
  out.append(url_drop_reason_name(reason));
  out.append(": ");
  out.append_line(detail);
}

// Parses the base of a "BASE<TAB>HREF" line, reusing the previous one when unchanged (files of
// links usually repeat the page they came from).
class BaseCache {
 public:
  const Url* get(std::string_view text, std::string& error) {
    if (text != text_ || !url_) {
      text_ = text;
      url_ = parse_url(text, nullptr, &error_);
    }
    if (!url_) error = "base URL: " + error_;
    return url_ ? &*url_ : nullptr;
  }

 private:
  std::string text_;
  std::optional<Url> url_;
  std::string error_;
};

// One input line: "URL" or "BASE<TAB>HREF", a trailing CR dropped.
void canonicalize_line(std::string_view line, const UrlCommandArgs& args, BaseCache& bases, LineWriter& out,
                       size_t& errors) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::string_view href = line;
  const Url* base = nullptr;
  const size_t tab = href.find('\t');
  if (tab != std::string_view::npos) {
    std::string error;
    base = bases.get(href.substr(0, tab), error);
    if (!base) {
      ++errors;
      print_error(out, UrlDropReason::kInvalid, error);
      return;
    }
    href.remove_prefix(tab + 1);
  }
  if (args.href_only) {
    std::string error;
    std::optional<Url> url = parse_url(href, base, &error);
    if (url) {
      out.append_line(url->href());
    } else {
      ++errors;
      print_error(out, UrlDropReason::kInvalid, error);
    }
    return;
  }
  CanonicalUrl canonical = canonicalize(href, base, args.options);
  if (canonical.ok()) {
    out.append_line(canonical.url);
  } else {
    ++errors;
    print_error(out, canonical.reason, canonical.error);
  }
}

int run_url(const UrlCommandArgs& args) {
  BaseCache bases;
  size_t lines = 0;
  size_t errors = 0;
  try {
    LineWriter out("url", STDOUT_FILENO,
                   args.line_buffered ? LineWriter::Buffering::kLine : LineWriter::Buffering::kAuto);
    read_lines(STDIN_FILENO, "url", [&](std::span<const std::string_view> batch) {
      for (std::string_view line : batch) canonicalize_line(line, args, bases, out, errors);
      lines += batch.size();
    });
    out.flush();
  } catch (const OutputClosed&) {
    return kOutputClosedExitStatus;
  }
  std::cerr << "bloomcrawl url: " << lines << " lines, " << errors << " errors\n";
  return 0;
}

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot open HTML file '" + path + "'");
  std::ostringstream content;
  content << file.rdbuf();
  if (file.bad()) throw std::runtime_error("cannot read HTML file '" + path + "'");
  return content.str();
}

int run_links(const UrlCommandArgs& args) {
  std::string error;
  std::optional<Url> page = parse_url(args.page_url, nullptr, &error);
  if (!page) throw std::runtime_error("--base '" + args.page_url + "' is not a URL: " + error);
  // Decoded and resolved as the crawler does a fetched page (docs/encodings.md): a legacy-encoded
  // page's links come out as a browser requests them.
  ExtractedLinks extracted = extract_page_links(read_file(args.links_file), args.content_type, LinkExtractOptions{});
  if (!extracted.parse_error.empty()) throw std::runtime_error("'" + args.links_file + "': " + extracted.parse_error);
  // The document's base URL is its <base href> resolved against the page URL, when valid.
  std::optional<Url> base_element;
  if (extracted.base_href) base_element = parse_url(*extracted.base_href, &*page, nullptr, extracted.encoding);
  const Url* base = base_element ? &*base_element : &*page;

  size_t dropped = 0;
  for (const Link& link : extracted.links) {
    std::cout << link_kind_name(link.kind) << '\t';
    std::string resolved;
    CanonicalUrl canonical;
    if (args.href_only) {
      std::optional<Url> url = parse_url(link.href, base, &canonical.error, extracted.encoding);
      if (url)
        resolved = url->href();
      else
        canonical.reason = UrlDropReason::kInvalid;
    } else {
      canonical = canonicalize(link.href, base, args.options, extracted.encoding);
      resolved = canonical.url;
    }
    if (canonical.ok()) {
      std::cout << resolved << (link.nofollow ? "\tnofollow\n" : "\n");
    } else {
      ++dropped;
      std::cout << "ERROR\t" << url_drop_reason_name(canonical.reason) << ": " << canonical.error << '\t' << link.href
                << '\n';
    }
  }
  std::cout.flush();
  std::cerr << "bloomcrawl url --links: " << extracted.links.size() << " links, " << dropped << " dropped; base "
            << base->href() << (extracted.meta_nofollow ? "; meta nofollow" : "")
            << (extracted.meta_noindex ? "; meta noindex" : "") << (extracted.truncated ? "; page truncated" : "")
            << (extracted.links_capped ? "; links capped" : "") << "\n";
  return 0;
}

RunFn setup_url(CLI::App& app) {
  auto args = std::make_shared<UrlCommandArgs>();
  app.add_flag("--href", args->href_only, "print the WHATWG href of each URL instead of its canonical form");
  app.add_flag("--sort-query", args->options.sort_query, "sort query parameters by name");
  app.add_flag("--strip-params", args->options.strip_params,
               "remove tracking query parameters (the crawl's default canonicalization.strip_param_names: "
               "utm_source, gclid, fbclid, ...)");
  app.add_option("--strip-param", args->extra_strip_params,
                 "also remove this query parameter (repeatable; 'prefix*' allowed); "
                 "implies --strip-params");
  app.add_flag("--strip-session-ids", args->options.strip_session_ids,
               "remove session ids (;jsessionid=..., PHPSESSID=...) from paths and queries");
  app.add_flag("--lowercase-path", args->options.lowercase_path, "lowercase the path");
  app.add_flag("--drop-index-pages", args->options.drop_index_pages,
               "turn .../index.html, index.php, default.aspx ... into the directory");
  app.add_flag("--line-buffered", args->line_buffered, "write each line at once (the default on a terminal)");
  app.add_option("--max-length", args->options.max_length, "reject URLs longer than this (bytes)")
      ->check(CLI::PositiveNumber);
  CLI::Option* links =
      app.add_option("--links", args->links_file, "print the links of this HTML file instead of reading stdin")
          ->check(CLI::ExistingFile);
  app.add_option("--base", args->page_url, "the URL of the --links page")->needs(links);
  app.add_option("--content-type", args->content_type,
                 "the --links page's Content-Type header (its charset decides the page's encoding)")
      ->needs(links);
  links->needs(app.get_option("--base"));
  return [args]() {
    for (const std::string& name : args->extra_strip_params) {
      args->options.strip_param_names.push_back(name);
      args->options.strip_params = true;
    }
    return args->links_file.empty() ? run_url(*args) : run_links(*args);
  };
}

}  // namespace

BLOOMCRAWL_COMMAND("url", "canonicalize URLs read from stdin (URL or BASE<TAB>HREF per line)", setup_url);

}  // namespace bloomcrawl::cli
