// Status and Expected<T>: expected failures are values (see STYLE.md).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace ig {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad input from the user or the model
  kNotFound,
  kUnsupported,  // a valid request this platform cannot do
  kParseError,
  kIoError,
  kResourceExhausted,  // size limits, memory budget
  kInternal,
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return {}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "context: message", so errors read outermost first (file, node, problem).
  Status with_context(const std::string& context) const {
    if (ok()) return *this;
    Status s(code_, context + ": " + message_);
    s.node_ = node_;
    return s;
  }
  // The node (its index in the main graph) this failure belongs to, set by the executor that ran
  // it, so that who failed travels as a fact rather than inside the message. Executors set it on
  // the way out, so a subgraph's node is overridden by the enclosing If or Loop.
  Status at_node(int64_t index) const {
    Status s = *this;
    if (!ok()) s.node_ = index;
    return s;
  }
  int64_t node() const { return node_; }
  std::string to_string() const {
    return ok() ? "ok" : std::string(status_code_name(code_)) + ": " + message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  int64_t node_ = -1;
};

template <typename... Args>
Status invalid_argument(fmt::format_string<Args...> f, Args&&... args) {
  return {StatusCode::kInvalidArgument, fmt::format(f, std::forward<Args>(args)...)};
}
template <typename... Args>
Status unsupported(fmt::format_string<Args...> f, Args&&... args) {
  return {StatusCode::kUnsupported, fmt::format(f, std::forward<Args>(args)...)};
}
template <typename... Args>
Status not_found(fmt::format_string<Args...> f, Args&&... args) {
  return {StatusCode::kNotFound, fmt::format(f, std::forward<Args>(args)...)};
}
template <typename... Args>
Status io_error(fmt::format_string<Args...> f, Args&&... args) {
  return {StatusCode::kIoError, fmt::format(f, std::forward<Args>(args)...)};
}
template <typename... Args>
Status parse_error(fmt::format_string<Args...> f, Args&&... args) {
  return {StatusCode::kParseError, fmt::format(f, std::forward<Args>(args)...)};
}
template <typename... Args>
Status resource_exhausted(fmt::format_string<Args...> f, Args&&... args) {
  return {StatusCode::kResourceExhausted, fmt::format(f, std::forward<Args>(args)...)};
}
template <typename... Args>
Status internal_error(fmt::format_string<Args...> f, Args&&... args) {
  return {StatusCode::kInternal, fmt::format(f, std::forward<Args>(args)...)};
}

// Thrown only from deep inside kernels (allocation over budget, a broken invariant); the
// executor catches it at the node boundary and turns it back into a Status naming the node.
class StatusError : public std::runtime_error {
 public:
  explicit StatusError(Status s) : std::runtime_error(s.to_string()), status_(std::move(s)) {}
  const Status& status() const { return status_; }

 private:
  Status status_;
};

template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Expected(Status status) : v_(std::move(status)) {  // NOLINT
    if (std::get<Status>(v_).ok())
      v_ = Status(StatusCode::kInternal, "Expected built from ok Status");
  }
  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

#define IG_CONCAT_INNER(a, b) a##b
#define IG_CONCAT(a, b) IG_CONCAT_INNER(a, b)

#define IG_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::ig::Status ig_status_ = (expr);        \
    if (!ig_status_.ok()) return ig_status_; \
  } while (0)

#define IG_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

// Expands to several statements (it declares `lhs` in the enclosing scope): always use it inside
// braces, never as the body of an unbraced if/for.
#define IG_ASSIGN_OR_RETURN(lhs, expr) \
  IG_ASSIGN_OR_RETURN_IMPL(IG_CONCAT(ig_expected_, __LINE__), lhs, expr)

}  // namespace ig
