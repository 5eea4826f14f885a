// A build without SDL (FRAMELOCK_SDL=OFF): no window, ever. `--video auto` runs headless,
// `--video sdl` says why it cannot.
#include "frontend/player/player_window.h"

namespace framelock::frontend {

bool display_available(std::string* why) {
    if (why) *why = "this framelock was built without SDL (FRAMELOCK_SDL=OFF)";
    return false;
}

Result<std::unique_ptr<PlayerWindow>> open_player_window(const PlayerWindowConfig&) {
    return make_error(ErrorCode::kUsage,
                      "--video sdl: this framelock was built without SDL (FRAMELOCK_SDL=OFF); "
                      "use --video none");
}

}  // namespace framelock::frontend
