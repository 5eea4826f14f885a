#include "support/pg_cluster.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "support/process.h"
#include "support/skip.h"

namespace framelock::test {
namespace fs = std::filesystem;
namespace {

// Debian installs each major version side by side under /usr/lib/postgresql/<major>; any
// will do, the newest is taken. FRAMELOCK_PG_BIN points elsewhere (other distributions).
std::string find_server_bin() {
    if (const char* env = std::getenv("FRAMELOCK_PG_BIN")) return env;
    int best = -1;
    std::string dir;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        const int major = std::atoi(name.c_str());
        if (major > best && fs::exists(entry.path() / "bin" / "initdb")) {
            best = major;
            dir = (entry.path() / "bin").string();
        }
    }
    return dir;
}

// The server listens on no TCP address, so the port only names its socket file; a port
// free on loopback anyway keeps the cluster usable if someone turns TCP on to debug.
int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error("socket() failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
        port = ntohs(addr.sin_port);
    }
    ::close(fd);
    if (port == 0) throw std::runtime_error("no free port on 127.0.0.1");
    return port;
}

// SIGKILL to every process whose command line names the directory `text` (the cluster's:
// initdb, pg_ctl, createdb and the postmaster all name it; the postmaster's children exit
// by themselves once it is gone).
void kill_processes_naming(const std::string& text) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string cmdline = read_text(entry.path().string() + "/cmdline") + ' ';
        for (char& ch : cmdline) {
            if (ch == '\0') ch = ' ';
        }
        // Followed by '/' or a separator: /tmp/x-1 must not match /tmp/x-12.
        if (cmdline.find(text + '/') != std::string::npos ||
            cmdline.find(text + ' ') != std::string::npos) {
            ::kill(std::atoi(name.c_str()), SIGKILL);
        }
    }
}

void require(const ProcessResult& r, const std::string& what, const std::string& log_path = "") {
    if (!r.timed_out && !r.signaled && r.exit_code == 0) return;
    std::string message = what + (r.timed_out ? " timed out" : " failed") + "\nstdout: " + r.out +
                          "\nstderr: " + r.err;
    if (!log_path.empty()) message += "\nserver log: " + read_text(log_path);
    throw std::runtime_error(message);
}

}  // namespace

PgCluster::PgCluster() {
    m_bin = find_server_bin();
    FRAMELOCK_SKIP_UNLESS_FILE(
        m_bin.empty() ? "/usr/lib/postgresql/<major>/bin/initdb" : m_bin + "/initdb",
        "apt-get install postgresql");
    uid_t uid = 0;
    gid_t gid = 0;
    if (::geteuid() == 0) {
        const passwd* pw = ::getpwnam("postgres");
        if (!pw) {
            std::printf(
                "SKIPPED: running as root needs the 'postgres' system user to run the "
                "test server as (apt-get install postgresql)\n");
            std::fflush(stdout);
            std::_Exit(77);
        }
        m_as_postgres = true;
        uid = pw->pw_uid;
        gid = pw->pw_gid;
    }

    static std::atomic<int> counter{0};
    m_dir = (fs::temp_directory_path() /
             ("framelock-pg-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)))
                .string();
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    if (m_as_postgres && ::chown(m_dir.c_str(), uid, gid) != 0) {
        throw std::runtime_error("cannot hand " + m_dir + " to the postgres user");
    }
    start_watchdog();

    const std::string data = m_dir + "/data", log = m_dir + "/log";
    // trust: nothing but this process can reach the socket directory. UTF8 with the C
    // locale: the tests store non-ASCII text, and collation must not depend on the host.
    // -N and -F (no fsync): a throwaway server has nothing to keep.
    require(run_process(as_server_user({m_bin + "/initdb", "-D", data, "-U", "lobby", "-A", "trust",
                                        "-E", "UTF8", "--locale=C", "-N"}),
                        std::chrono::seconds(60)),
            "initdb");
    m_port = free_port();
    require(run_process(
                as_server_user(
                    {m_bin + "/pg_ctl", "-D", data, "-l", log, "-w", "-t", "30", "-o",
                     "-k " + m_dir + " -c listen_addresses='' -p " + std::to_string(m_port) + " -F",
                     "start"}),
                std::chrono::seconds(40)),
            "pg_ctl start", log);
}

PgCluster::~PgCluster() {
    // The watchdog does the stopping and deleting, here as after a crash; the byte tells
    // it that nothing of ours is still starting up, so one pass is enough.
    if (m_watchdog_fd >= 0) {
        const char done = 'q';
        [[maybe_unused]] const ssize_t n = ::write(m_watchdog_fd, &done, 1);
        ::close(m_watchdog_fd);
    }
    if (m_watchdog > 0) ::waitpid(m_watchdog, nullptr, 0);
}

std::string PgCluster::create_database() {
    const std::string name = "lobby_test_" + std::to_string(++m_databases);
    require(run_process({m_bin + "/createdb", "-h", m_dir, "-p", std::to_string(m_port), "-U",
                         "lobby", name},
                        std::chrono::seconds(30)),
            "createdb " + name, m_dir + "/log");
    return "postgresql://lobby@/" + name + "?host=" + m_dir + "&port=" + std::to_string(m_port);
}

std::vector<std::string> PgCluster::as_server_user(std::vector<std::string> args) const {
    if (!m_as_postgres) return args;
    std::vector<std::string> wrapped = {"/usr/sbin/runuser", "-u", "postgres", "--"};
    wrapped.insert(wrapped.end(), args.begin(), args.end());
    return wrapped;
}

void PgCluster::start_watchdog() {
    // The write end stays in this process only (close-on-exec keeps it out of pg_ctl and
    // the postmaster): the watchdog reads EOF exactly when this process is gone or the
    // destructor closed it.
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2() failed");
    // Built before fork, so the child only waits, execs, kills and deletes.
    const std::vector<std::string> stop = as_server_user(
        {m_bin + "/pg_ctl", "-D", m_dir + "/data", "-m", "immediate", "-w", "-t", "20", "stop"});
    std::vector<char*> argv;
    for (const auto& a : stop) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork() failed");
    if (pid == 0) {
        ::close(fds[1]);
        // Its own session: CTest's timeout kills the test's process group, and the
        // watchdog must outlive that to clean up. Quiet, and holding none of the test's
        // output pipes, so whoever reads them sees them close with the test.
        ::setsid();
        const int null = ::open("/dev/null", O_RDWR);
        ::dup2(null, 0);
        ::dup2(null, 1);
        ::dup2(null, 2);
        bool clean = false;
        char c;
        for (;;) {
            const ssize_t n = ::read(fds[0], &c, 1);
            if (n == 1) clean = true;
            if (n == 0 || (n < 0 && errno != EINTR)) break;
        }
        // After a crash, an initdb, pg_ctl or createdb the test had running carries on
        // as an orphan and may recreate files or even start the server after a first
        // pass; a few passes apart, killing whatever still names the directory, catch
        // those.
        const int passes = clean ? 1 : 4;
        for (int pass = 0; pass < passes; ++pass) {
            if (pass > 0) {
                kill_processes_naming(m_dir);
                ::usleep(250'000);
            }
            const pid_t stopper = ::fork();
            if (stopper == 0) {
                ::execv(argv[0], argv.data());
                ::_exit(127);
            }
            if (stopper > 0) ::waitpid(stopper, nullptr, 0);
            std::error_code ec;
            fs::remove_all(m_dir, ec);
        }
        ::_exit(0);
    }
    ::close(fds[0]);
    m_watchdog_fd = fds[1];
    m_watchdog = pid;
}

}  // namespace framelock::test
