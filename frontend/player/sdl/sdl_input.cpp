#include "frontend/player/sdl/sdl_input.h"

#include <fmt/core.h>

#include "common/log.h"

namespace framelock::frontend {

Result<std::unique_ptr<SdlInput>> SdlInput::create(const InputBindings& bindings) {
    if (!bindings.mapping_db.empty() &&
        SDL_GameControllerAddMappingsFromFile(bindings.mapping_db.c_str()) < 0) {
        return make_error(ErrorCode::kConfig,
                          fmt::format("input.mapping_db: cannot read controller mappings from "
                                      "'{}': {}",
                                      bindings.mapping_db, SDL_GetError()));
    }
    return std::unique_ptr<SdlInput>(new SdlInput(bindings));
}

SdlInput::~SdlInput() {
    for (auto& [instance, controller] : m_controllers) SDL_GameControllerClose(controller);
}

std::string SdlInput::ports_of_pad(int number) const {
    std::string ports;
    for (int p = 0; p < kMaxLocalPorts; ++p) {
        if (m_mapper.bindings().ports[p].pad == number)
            ports += (ports.empty() ? "" : ", ") + std::to_string(p + 1);
    }
    return ports.empty() ? "no port" : "port " + ports;
}

void SdlInput::controller_added(int device_index) {
    if (!SDL_IsGameController(device_index)) return;
    SDL_GameController* controller = SDL_GameControllerOpen(device_index);
    if (!controller) {
        log_warn("cannot open controller {}: {}", device_index, SDL_GetError());
        return;
    }
    const SDL_JoystickID instance =
        SDL_JoystickInstanceID(SDL_GameControllerGetJoystick(controller));
    if (m_controllers.count(instance)) {  // already known (SDL reports some twice)
        SDL_GameControllerClose(controller);
        return;
    }
    const int number = m_mapper.pad_added(instance);
    const char* name = SDL_GameControllerName(controller);
    if (number == 0) {
        log_warn("controller '{}' ignored: {} are connected already", name ? name : "?", kMaxPads);
        SDL_GameControllerClose(controller);
        return;
    }
    m_controllers[instance] = controller;
    const std::string text = fmt::format("controller {} connected: {} ({})", number,
                                         name ? name : "unnamed", ports_of_pad(number));
    log_info("{}", text);
    m_notices.push_back(text);
}

void SdlInput::controller_removed(SDL_JoystickID instance) {
    const auto it = m_controllers.find(instance);
    if (it == m_controllers.end()) return;
    const int number = m_mapper.pad_number(instance);
    m_mapper.pad_removed(instance);
    SDL_GameControllerClose(it->second);
    m_controllers.erase(it);
    const std::string text =
        fmt::format("controller {} unplugged: {} neutral", number, ports_of_pad(number));
    log_info("{}", text);
    m_notices.push_back(text);
}

void SdlInput::handle_event(const SDL_Event& event, std::uint64_t frame) {
    switch (event.type) {
        case SDL_KEYDOWN:
        case SDL_KEYUP: {
            if (event.key.repeat) return;
            const KeyCode key = static_cast<KeyCode>(event.key.keysym.scancode);
            const bool down = event.type == SDL_KEYDOWN;
            m_mapper.key(key, down);
            if (log_level() <= LogLevel::kDebug) {
                const std::string name = key_name(key);
                log_debug("input: key {} ({}) {} before frame {}", name.empty() ? "?" : name, key,
                          down ? "down" : "up", frame);
            }
            return;
        }
        case SDL_CONTROLLERDEVICEADDED:
            controller_added(event.cdevice.which);
            return;
        case SDL_CONTROLLERDEVICEREMOVED:
            controller_removed(event.cdevice.which);
            return;
        case SDL_CONTROLLERBUTTONDOWN:
        case SDL_CONTROLLERBUTTONUP:
            if (event.cbutton.button < static_cast<int>(PadControl::kButtonCount)) {
                m_mapper.pad_button(event.cbutton.which,
                                    static_cast<PadControl>(event.cbutton.button),
                                    event.type == SDL_CONTROLLERBUTTONDOWN);
            }
            return;
        case SDL_CONTROLLERAXISMOTION:
            if (event.caxis.axis < kPadAxes) {
                m_mapper.pad_axis(event.caxis.which, static_cast<PadAxis>(event.caxis.axis),
                                  event.caxis.value / 32767.0);
            }
            return;
        case SDL_WINDOWEVENT:
            // Keys released while another window has the focus never reach this one.
            if (event.window.event == SDL_WINDOWEVENT_FOCUS_LOST) m_mapper.release_all();
            return;
        default:
            return;
    }
}

netplay::InputFrame SdlInput::input_for(std::uint64_t frame) {
    const netplay::InputFrame presses = m_mapper.take_presses();
    // Asked again for the same frame, it has not been sampled yet: a button pressed since
    // the last frame's sample still belongs to this one, even if released by now. What was
    // already held then and is released now is released.
    if (frame != m_sampled_frame) {
        m_sampled_frame = frame;
        m_presses = presses;
    } else {
        for (int p = 0; p < kMaxLocalPorts; ++p) m_presses.pads[p] |= presses.pads[p];
    }
    netplay::InputFrame out;
    for (int p = 0; p < kMaxLocalPorts; ++p) {
        out.pads[p] = static_cast<netplay::InputWord>(m_mapper.held().pads[p] | m_presses.pads[p]);
    }
    return out;
}

std::vector<std::string> SdlInput::take_notices() {
    std::vector<std::string> out;
    out.swap(m_notices);
    return out;
}

}  // namespace framelock::frontend
