// The player's pads: keyboard and game controllers through SDL's GameController API (its
// built-in mapping database, plus an optional SDL_GameControllerDB file), folded into
// RetroPad words per port by an InputMapper. Controllers can come and go at any time; a
// port whose controller is unplugged goes neutral at once.
#pragma once

#include <SDL.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/host/io.h"
#include "frontend/player/input_bindings.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

class SdlInput final : public InputSource {
  public:
    // Needs SDL's game controller subsystem initialised. Loads bindings.mapping_db when
    // given (kConfig error naming the file when SDL cannot read it). Controllers already
    // plugged in arrive as SDL_CONTROLLERDEVICEADDED events like any other.
    static Result<std::unique_ptr<SdlInput>> create(const InputBindings& bindings);
    ~SdlInput() override;
    SdlInput(const SdlInput&) = delete;
    SdlInput& operator=(const SdlInput&) = delete;

    // Takes keyboard, controller and focus events; ignores the rest. `frame`: the frame
    // these events will reach, for the log.
    void handle_event(const SDL_Event& event, std::uint64_t frame);

    // InputSource: what is held, plus anything pressed since an earlier frame was last
    // asked for (the netplay client asks for the same frame until it samples it).
    netplay::InputFrame input_for(std::uint64_t frame) override;

    // Lines for the screen about controllers coming and going, since the last call.
    std::vector<std::string> take_notices();

    const InputMapper& mapper() const { return m_mapper; }
    // The keyboard goes to the chat line: every key is released (controllers still play).
    void release_keys() { m_mapper.release_keys(); }
    int controllers() const { return static_cast<int>(m_controllers.size()); }

  private:
    explicit SdlInput(const InputBindings& bindings) : m_mapper(bindings) {}
    void controller_added(int device_index);
    void controller_removed(SDL_JoystickID instance);
    std::string ports_of_pad(int number) const;

    InputMapper m_mapper;
    std::map<SDL_JoystickID, SDL_GameController*> m_controllers;
    std::vector<std::string> m_notices;
    std::uint64_t m_sampled_frame = UINT64_MAX;
    netplay::InputFrame m_presses;  // pressed since the last earlier frame was asked for
};

}  // namespace framelock::frontend
