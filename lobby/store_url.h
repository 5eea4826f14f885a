// Inside the lobby library: where the passwords are in a store URL, for redact_store_url()
// and for scrubbing them out of libpq's messages, which quote parts of a malformed URL.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace framelock::lobby {

// (position, length) of each password in `url` (user:PASSWORD@ and password=PASSWORD),
// in order; none for a file path.
std::vector<std::pair<std::size_t, std::size_t>> url_password_spans(const std::string& url);

}  // namespace framelock::lobby
