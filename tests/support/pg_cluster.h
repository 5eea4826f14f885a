// A throwaway PostgreSQL server for one test process: initdb into a private temp dir,
// started with pg_ctl on a Unix socket in that dir (no TCP, so nothing on the machine can
// reach it or collide with it), stopped and deleted again when the object goes.
//
// Cleanup does not rely on the destructor running: a watchdog process started first
// waits for this process to end in any way (normal exit, failed assertion, crash, kill
// by CTest's timeout) and only then stops the server and deletes the directory. The
// postmaster runs in its own session, so nothing else would take it down.
//
// When the PostgreSQL server binaries are missing (Debian: postgresql), the constructor
// prints why and exits 77: the test is reported as skipped, never as passed. As root
// (initdb refuses to run as root), the server runs as the `postgres` system user.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace framelock::test {

class PgCluster {
  public:
    PgCluster();
    ~PgCluster();
    PgCluster(const PgCluster&) = delete;
    PgCluster& operator=(const PgCluster&) = delete;

    // A new empty database on the server; returns its postgresql:// URL.
    std::string create_database();

  private:
    std::vector<std::string> as_server_user(std::vector<std::string> args) const;
    void start_watchdog();

    std::string m_bin;  // directory holding initdb, pg_ctl, createdb
    std::string m_dir;  // the cluster's temp dir: data/, log, the socket
    int m_port = 0;
    bool m_as_postgres = false;
    int m_databases = 0;
    int m_watchdog_fd = -1;  // write end of the pipe the watchdog waits on
    pid_t m_watchdog = -1;
};

}  // namespace framelock::test
