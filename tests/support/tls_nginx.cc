#include "tests/support/tls_nginx.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/support/loopback_port.h"
#include "tests/support/spawn.h"

namespace bloomcrawl::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kNginx = "/usr/sbin/nginx";
constexpr const char* kOpenssl = "/usr/bin/openssl";

// Runs a command to completion, its output to `log`; throws naming it if it fails.
void run(std::vector<std::string> args, const fs::path& log) {
  const std::string what = args[0] + " " + args[1];
  const pid_t pid = spawn_to_files(std::move(args), log, log);
  if (pid < 0 || wait_exit_code(pid) != 0)
    throw std::runtime_error("TlsNginx: " + what + " failed; see " + log.string());
}

bool accepts_connections(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  close(fd);
  return ok;
}

}  // namespace

std::string TlsNginx::missing_tools() {
  std::string missing;
  for (const char* tool : {kNginx, kOpenssl}) {
    if (access(tool, X_OK) == 0) continue;
    if (!missing.empty()) missing.append(", ");
    missing.append(tool);
  }
  return missing;
}

TlsNginx::TlsNginx(TlsNginxOptions options) {
  // nginx started as root serves files as an unprivileged user: it must be able to read them.
  chmod(dir_.path().c_str(), 0755);
  make_certificates();
  write_site(options.pages);
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (start_on_free_port(options.http2)) return;
  }
  throw std::runtime_error("TlsNginx: nginx did not start; see " + (dir_.path() / "error.log").string());
}

TlsNginx::~TlsNginx() { stop(); }

void TlsNginx::make_certificates() const {
  const fs::path d = dir_.path();
  const fs::path log = d / "openssl.log";
  run({kOpenssl,
       "req",
       "-x509",
       "-newkey",
       "ec",
       "-pkeyopt",
       "ec_paramgen_curve:prime256v1",
       "-nodes",
       "-keyout",
       d / "ca.key",
       "-out",
       d / "ca.pem",
       "-days",
       "2",
       "-subj",
       "/CN=bloomcrawl test CA",
       "-addext",
       "basicConstraints=critical,CA:TRUE",
       "-addext",
       "keyUsage=critical,keyCertSign,cRLSign"},
      log);
  run({kOpenssl, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
       d / "server.key", "-out", d / "server.csr", "-subj", "/CN=localhost"},
      log);
  std::ofstream(d / "server.ext") << "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                                     "basicConstraints=CA:FALSE\n"
                                     "keyUsage=critical,digitalSignature\n"
                                     "extendedKeyUsage=serverAuth\n";
  run({kOpenssl, "x509", "-req", "-in", d / "server.csr", "-CA", d / "ca.pem", "-CAkey", d / "ca.key",
       "-CAcreateserial", "-out", d / "server.pem", "-days", "2", "-extfile", d / "server.ext"},
      log);
}

void TlsNginx::write_site(int pages) const {
  const fs::path site = dir_.path() / "site";
  fs::create_directories(site);
  std::ofstream index(site / "index.html");
  index << "<!doctype html><title>index</title>\n";
  for (int i = 0; i < pages; ++i) index << "<a href=\"p" << i << ".html\">" << i << "</a>\n";
  for (int i = 0; i < pages; ++i) {
    std::string name = "p";
    name += std::to_string(i);
    name += ".html";
    std::ofstream page(site / name);
    page << "<!doctype html><title>p" << i << "</title><p>page " << i << "</p>\n";
    for (int next : {i + 1, i + 2}) {
      if (next < pages) page << "<a href=\"p" << next << ".html\">next</a>\n";
    }
  }
}

void TlsNginx::write_config(bool http2) const {
  const std::string d = dir_.path().string();
  std::ofstream conf(dir_.path() / "nginx.conf");
  conf << "worker_processes 1;\n"
       << "pid " << d << "/nginx.pid;\n"
       << "error_log " << d << "/error.log warn;\n"
       << "events { worker_connections 256; }\n"
       << "http {\n"
       << "  types { text/html html; text/plain txt; }\n"
       << "  default_type application/octet-stream;\n";
  for (const char* temp : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"}) {
    conf << "  " << temp << "_temp_path " << d << "/tmp_" << temp << ";\n";
  }
  conf << "  log_format tls "
          "'$server_protocol\\t$connection\\t$connection_requests\\t$request_uri\\t$status\\t$msec\\t$request_time';\n"
       << "  access_log " << d << "/access.log tls;\n"
       << "  server {\n"
       << "    listen 127.0.0.1:" << port_ << " ssl" << (http2 ? " http2" : "") << ";\n"
       << "    server_name localhost;\n"
       << "    ssl_certificate " << d << "/server.pem;\n"
       << "    ssl_certificate_key " << d << "/server.key;\n"
       << "    root " << d << "/site;\n"
       << "  }\n"
       << "}\n";
}

bool TlsNginx::start_on_free_port(bool http2) {
  port_ = unused_loopback_port();  // nginx may lose it to another process: the caller retries
  write_config(http2);
  const std::string d = dir_.path().string();
  pid_ = spawn_to_files({kNginx, "-p", d, "-c", d + "/nginx.conf", "-e", d + "/error.log", "-g", "daemon off;"},
                        d + "/nginx.out", d + "/nginx.out");
  if (pid_ < 0) return false;
  // Bounded wait for the listening socket; nginx exiting first means it could not bind the port.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (accepts_connections(port_)) return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop();
  return false;
}

std::string TlsNginx::url(const std::string& path) const { return "https://127.0.0.1:" + std::to_string(port_) + path; }

void TlsNginx::stop() {
  if (pid_ < 0) return;
  kill(pid_, SIGTERM);  // fast shutdown; the access log is unbuffered, so every line is written
  wait_exit_code(pid_);
  pid_ = -1;
}

std::vector<TlsAccessEntry> TlsNginx::access_log() const {
  std::vector<TlsAccessEntry> entries;
  std::ifstream log(dir_.path() / "access.log");
  std::string line;
  while (std::getline(log, line)) {
    std::istringstream fields(line);
    TlsAccessEntry e;
    std::getline(fields, e.protocol, '\t');
    fields >> e.connection >> e.connection_request >> std::ws;
    std::getline(fields, e.uri, '\t');
    double request_seconds = 0;
    fields >> e.status >> e.ended >> request_seconds;
    e.started = e.ended - request_seconds;
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace bloomcrawl::testing
