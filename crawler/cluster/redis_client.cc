#include "crawler/cluster/redis_client.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <algorithm>
#include <memory>
#include <string_view>
#include <thread>

namespace bloomcrawl {
namespace {

const char* type_name(RedisValue::Type type) {
  switch (type) {
    case RedisValue::Type::kNil: return "nil";
    case RedisValue::Type::kString: return "string";
    case RedisValue::Type::kStatus: return "status";
    case RedisValue::Type::kInteger: return "integer";
    case RedisValue::Type::kArray: return "array";
  }
  return "?";
}

[[noreturn]] void wrong_type(const char* expected, RedisValue::Type got) {
  throw RedisError(std::string("expected ") + expected + ", got " + type_name(got));
}

timeval to_timeval(std::chrono::milliseconds ms) {
  return timeval{static_cast<time_t>(ms.count() / 1000), static_cast<suseconds_t>(ms.count() % 1000 * 1000)};
}

struct ReplyFree {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyFree>;

// Sends argv and reads its reply; null when the connection failed (context->errstr says why).
ReplyPtr send_argv(redisContext* context, const std::vector<std::string>& argv) {
  std::vector<const char*> args;
  std::vector<size_t> lengths;
  for (const std::string& a : argv) {
    args.push_back(a.data());
    lengths.push_back(a.size());
  }
  return ReplyPtr(
      static_cast<redisReply*>(redisCommandArgv(context, static_cast<int>(args.size()), args.data(), lengths.data())));
}

}  // namespace

RedisValue RedisValue::from(const redisReply& reply) {
  RedisValue v;
  switch (reply.type) {
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
      v.type_ = reply.type == REDIS_REPLY_STRING ? Type::kString : Type::kStatus;
      v.text_.assign(reply.str, reply.len);
      break;
    case REDIS_REPLY_INTEGER:
      v.type_ = Type::kInteger;
      v.integer_ = reply.integer;
      break;
    case REDIS_REPLY_ARRAY:
      v.type_ = Type::kArray;
      v.elements_.reserve(reply.elements);
      for (size_t i = 0; i < reply.elements; ++i) v.elements_.push_back(from(*reply.element[i]));
      break;
    default:  // nil; an error inside an array (EXEC) reads as nil, the callers here send no EXEC
      break;
  }
  return v;
}

const std::string& RedisValue::text() const {
  if (type_ != Type::kString && type_ != Type::kStatus) wrong_type("string", type_);
  return text_;
}

int64_t RedisValue::integer() const {
  if (type_ != Type::kInteger) wrong_type("integer", type_);
  return integer_;
}

const std::vector<RedisValue>& RedisValue::array() const {
  if (type_ != Type::kArray) wrong_type("array", type_);
  return elements_;
}

RedisClient::RedisClient(RedisEndpoint endpoint, RedisOptions options)
    : endpoint_(std::move(endpoint)), options_(options) {
  connect();
}

RedisClient::~RedisClient() {
  if (context_ != nullptr) redisFree(context_);
}

void RedisClient::connect() {
  if (context_ != nullptr) redisFree(context_);
  context_ = redisConnectWithTimeout(endpoint_.host.c_str(), endpoint_.port, to_timeval(options_.timeout));
  if (context_ == nullptr) throw RedisError("cannot connect to " + endpoint_.url() + ": out of memory");
  if (context_->err != 0) {
    std::string why = context_->errstr;
    redisFree(context_);
    context_ = nullptr;
    throw RedisError("cannot connect to " + endpoint_.url() + ": " + why);
  }
  redisSetTimeout(context_, to_timeval(options_.timeout));
  if (!endpoint_.password.empty()) authenticate();
  ++connections_;
}

void RedisClient::authenticate() {
  std::vector<std::string> argv = {"AUTH"};
  if (!endpoint_.user.empty()) argv.push_back(endpoint_.user);
  argv.push_back(endpoint_.password);
  const ReplyPtr reply = send_argv(context_, argv);
  std::string why;
  if (!reply) {
    why = context_->errstr;
  } else if (reply->type == REDIS_REPLY_ERROR) {
    why = std::string(reply->str, reply->len);
  } else {
    return;
  }
  redisFree(context_);
  context_ = nullptr;
  const std::string who = endpoint_.user.empty() ? "" : " as user " + endpoint_.user;
  throw RedisError("cannot authenticate to " + endpoint_.url() + who + ": " + why);
}

std::string RedisClient::where(const std::vector<std::string>& argv) const {
  return endpoint_.url() + ", " + (argv.empty() ? std::string("(no command)") : argv[0]);
}

RedisValue RedisClient::command(const std::vector<std::string>& argv) {
  const auto give_up_at = std::chrono::steady_clock::now() + options_.reconnect_for;
  std::chrono::milliseconds backoff = options_.backoff_min;
  std::string lost;
  for (;;) {
    if (context_ != nullptr) {
      const ReplyPtr reply = send_argv(context_, argv);
      if (!reply) {
        lost = context_->errstr;  // the connection is unusable after an I/O error
        redisFree(context_);
        context_ = nullptr;
      } else if (reply->type != REDIS_REPLY_ERROR) {
        return RedisValue::from(*reply);
      } else if (std::string_view(reply->str, reply->len).starts_with("LOADING")) {
        lost = "the server is loading its data";  // restarted, reading its append-only file
      } else {
        throw RedisError(where(argv) + ": " + std::string(reply->str, reply->len));
      }
    }
    if (std::chrono::steady_clock::now() >= give_up_at) {
      throw RedisError(where(argv) + ": connection lost (" + lost + ") and not restored within " +
                       std::to_string(options_.reconnect_for.count()) + " ms");
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, options_.backoff_max);
    if (context_ != nullptr) continue;  // still connected: the server was loading
    try {
      connect();
    } catch (const RedisError& e) {
      lost = e.what();
    }
  }
}

}  // namespace bloomcrawl
