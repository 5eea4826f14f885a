#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

// Tests never use the display of whoever runs them: framelock's --video auto would open
// windows on it. The window tests start their own Xvfb and set DISPLAY themselves.
int main(int argc, char** argv) {
    ::unsetenv("DISPLAY");
    ::unsetenv("WAYLAND_DISPLAY");
    return Catch::Session().run(argc, argv);
}
