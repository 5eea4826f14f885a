// Where a player keeps its rejoin token (netplay::Welcome::rejoin_token) for a restart after
// a crash: the same `framelock join` command, run again, takes its slot back.
//
// One small file holding the token as hex, locked (flock) while its framelock runs: two
// players on one machine never share one, and a crashed process's lock goes with it. Made
// readable by its owner only: the token is the slot's key.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "netplay/base/result.h"
#include "netplay/crypto/join_proof.h"

namespace framelock::frontend {

class RejoinFile {
  public:
    // Opens and locks `path`, creating it and its folder. kIo error naming the path when it
    // cannot be made or another running framelock holds it.
    static Result<RejoinFile> open(const std::filesystem::path& path);
    // The first of `base`, `base`-2, `base`-3 ... that no running framelock holds.
    static Result<RejoinFile> open_free(const std::filesystem::path& base);
    // The default place for a player's token: one per server address and player name, under
    // the state folder (default_state_dir(), frontend/files/user_dirs.h).
    static std::filesystem::path default_path(const std::string& server_address,
                                              const std::string& player_name);

    RejoinFile(RejoinFile&& other) noexcept;
    RejoinFile& operator=(RejoinFile&& other) noexcept;
    RejoinFile(const RejoinFile&) = delete;
    RejoinFile& operator=(const RejoinFile&) = delete;
    ~RejoinFile();

    // What it held when opened: nullopt when empty or not a token.
    const std::optional<netplay::RejoinToken>& token() const { return m_token; }
    // Replaces what it holds, on disk before it returns.
    Status write(const netplay::RejoinToken& token);
    // Removes the file (the session ended cleanly: there is no slot to take back).
    void remove();
    const std::filesystem::path& path() const { return m_path; }

  private:
    RejoinFile(std::filesystem::path path, int fd) : m_path(std::move(path)), m_fd(fd) {}
    // As open(); `in_use`: it failed because another process holds the lock.
    static Result<RejoinFile> open(const std::filesystem::path& path, bool& in_use);

    std::filesystem::path m_path;
    int m_fd = -1;
    std::optional<netplay::RejoinToken> m_token;
};

}  // namespace framelock::frontend
