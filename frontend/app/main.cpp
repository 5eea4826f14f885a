#include "frontend/app/cli.h"

int main(int argc, char** argv) {
    return framelock::frontend::run_cli(argc, argv);
}
