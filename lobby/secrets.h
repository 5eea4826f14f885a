// The lobby's secrets: random ids, join codes and tokens, and the hashes it stores
// instead of passwords and tokens (libsodium).
#pragma once

#include <string>

namespace framelock::lobby {

// Initializes libsodium once; false if it cannot (then nothing here is usable).
bool secrets_ready();

std::string random_hex(int bytes);  // 2 * bytes hex digits
// A join code: 6 characters people can read aloud (no 0/O, 1/I).
std::string random_code();
inline constexpr const char* kCodeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

// Room passwords: a salted, deliberately slow hash (Argon2id, interactive limits).
std::string hash_password(const std::string& password);
bool check_password(const std::string& stored_hash, const std::string& password);

// Host and server tokens are 256 random bits: a fast keyed-free hash suffices to keep
// them out of the database in clear; compared in constant time.
std::string hash_token(const std::string& token);
bool check_token(const std::string& stored_hash, const std::string& token);

}  // namespace framelock::lobby
