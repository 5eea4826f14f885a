// Expected failures come back as values: a code plus a message written for the
// person who has to fix the problem (what went wrong, with which value, what to do).
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace framelock {

enum class ErrorCode {
    kUsage = 2,        // bad command line or option value
    kCoreLoad = 3,     // core file missing, not a core, missing symbols, wrong API
    kContent = 4,      // content missing or refused by the core
    kInputScript = 5,  // malformed input script
    kIo = 6,           // file system: unwritable directory, failed write
    kConfig = 7,       // malformed config file
    kState = 8,        // savestate refused or unsupported
    kProtocol = 9,     // malformed or unexpected network data
};

struct Error {
    ErrorCode code;
    std::string message;
};

// Either a T or an Error. Deliberately small: check ok(), then value() or error().
template <class T>
class [[nodiscard]] Result {
  public:
    Result(T value) : m_data(std::move(value)) {}      // NOLINT: implicit by design
    Result(Error error) : m_data(std::move(error)) {}  // NOLINT

    bool ok() const { return std::holds_alternative<T>(m_data); }
    explicit operator bool() const { return ok(); }

    T& value() & {
        assert(ok());
        return std::get<T>(m_data);
    }
    T&& value() && {
        assert(ok());
        return std::get<T>(std::move(m_data));
    }
    const T& value() const& {
        assert(ok());
        return std::get<T>(m_data);
    }
    const Error& error() const {
        assert(!ok());
        return std::get<Error>(m_data);
    }

  private:
    std::variant<T, Error> m_data;
};

// Result of an operation that yields nothing but may fail.
class [[nodiscard]] Status {
  public:
    Status() = default;
    Status(Error error) : m_error(std::move(error)) {}  // NOLINT: implicit by design

    bool ok() const { return !m_error.has_value(); }
    explicit operator bool() const { return ok(); }
    const Error& error() const {
        assert(!ok());
        return *m_error;
    }

  private:
    std::optional<Error> m_error;
};

inline Error make_error(ErrorCode code, std::string message) {
    return Error{code, std::move(message)};
}

}  // namespace framelock
