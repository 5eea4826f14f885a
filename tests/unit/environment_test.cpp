#include <catch2/catch.hpp>

#include <cstring>

#include "frontend/host/environment.h"

using namespace framelock::frontend;

namespace {
Environment make_env() {
    EnvironmentConfig config;
    config.system_dir = "/srv/bios";
    config.save_dir = "/srv/saves";
    config.username = "ryu";
    return Environment(config);
}
}  // namespace

TEST_CASE("Directories, username and language", "[frontend][environment]") {
    Environment env = make_env();
    const char* text = nullptr;
    REQUIRE(env.handle(RETRO_ENVIRONMENT_GET_SYSTEM_DIRECTORY, &text));
    CHECK(std::string(text) == "/srv/bios");
    REQUIRE(env.handle(RETRO_ENVIRONMENT_GET_SAVE_DIRECTORY, &text));
    CHECK(std::string(text) == "/srv/saves");
    REQUIRE(env.handle(RETRO_ENVIRONMENT_GET_USERNAME, &text));
    CHECK(std::string(text) == "ryu");
    unsigned language = 99;
    REQUIRE(env.handle(RETRO_ENVIRONMENT_GET_LANGUAGE, &language));
    CHECK(language == RETRO_LANGUAGE_ENGLISH);
}

TEST_CASE("All three pixel formats are accepted, others refused", "[frontend][environment]") {
    Environment env = make_env();
    CHECK(env.pixel_format() == PixelFormat::k0RGB1555);
    retro_pixel_format format = RETRO_PIXEL_FORMAT_RGB565;
    CHECK(env.handle(RETRO_ENVIRONMENT_SET_PIXEL_FORMAT, &format));
    CHECK(env.pixel_format() == PixelFormat::kRGB565);
    format = RETRO_PIXEL_FORMAT_XRGB8888;
    CHECK(env.handle(RETRO_ENVIRONMENT_SET_PIXEL_FORMAT, &format));
    CHECK(env.pixel_format() == PixelFormat::kXRGB8888);
    format = static_cast<retro_pixel_format>(7);
    CHECK_FALSE(env.handle(RETRO_ENVIRONMENT_SET_PIXEL_FORMAT, &format));
    CHECK(env.pixel_format() == PixelFormat::kXRGB8888);
}

TEST_CASE("Commands that differ only by the EXPERIMENTAL bit are told apart",
          "[frontend][environment]") {
    Environment env = make_env();
    // 44 = SET_SERIALIZATION_QUIRKS; 44|EXPERIMENTAL = SET_HW_SHARED_CONTEXT (unsupported).
    std::uint64_t quirks = RETRO_SERIALIZATION_QUIRK_CORE_VARIABLE_SIZE | (1ull << 40);
    CHECK(env.handle(RETRO_ENVIRONMENT_SET_SERIALIZATION_QUIRKS, &quirks));
    CHECK(quirks == RETRO_SERIALIZATION_QUIRK_CORE_VARIABLE_SIZE);  // unknown bit cleared
    CHECK(env.serialization_quirks() == RETRO_SERIALIZATION_QUIRK_CORE_VARIABLE_SIZE);
    CHECK_FALSE(env.handle(RETRO_ENVIRONMENT_SET_HW_SHARED_CONTEXT, nullptr));
    CHECK(env.unhandled_commands().count(RETRO_ENVIRONMENT_SET_HW_SHARED_CONTEXT) == 1);
}

TEST_CASE("Unhandled commands return false and are recorded once", "[frontend][environment]") {
    Environment env = make_env();
    CHECK_FALSE(env.handle(RETRO_ENVIRONMENT_GET_CAMERA_INTERFACE, nullptr));
    CHECK_FALSE(env.handle(RETRO_ENVIRONMENT_GET_CAMERA_INTERFACE, nullptr));
    CHECK_FALSE(env.handle(9999, nullptr));
    CHECK(env.unhandled_commands().size() == 2);
}

TEST_CASE("Options through the environment, with the offered API version",
          "[frontend][environment]") {
    EnvironmentConfig config;
    config.core_options_version = 0;
    Environment env(config);
    unsigned version = 9;
    REQUIRE(env.handle(RETRO_ENVIRONMENT_GET_CORE_OPTIONS_VERSION, &version));
    CHECK(version == 0);
    retro_core_option_definition v1[2] = {};
    v1[0].key = "k";
    v1[0].values[0] = {"v", nullptr};
    CHECK_FALSE(env.handle(RETRO_ENVIRONMENT_SET_CORE_OPTIONS, v1));  // v0 only was offered

    const retro_variable vars[] = {{"k", "K; a|b"}, {nullptr, nullptr}};
    REQUIRE(env.handle(RETRO_ENVIRONMENT_SET_VARIABLES, const_cast<retro_variable*>(vars)));
    retro_variable query{"k", nullptr};
    REQUIRE(env.handle(RETRO_ENVIRONMENT_GET_VARIABLE, &query));
    CHECK(std::string(query.value) == "a");
    bool updated = false;
    REQUIRE(env.handle(RETRO_ENVIRONMENT_GET_VARIABLE_UPDATE, &updated));
    CHECK(updated);
    retro_variable set{"k", "b"};
    CHECK(env.handle(RETRO_ENVIRONMENT_SET_VARIABLE, &set));
    REQUIRE(env.handle(RETRO_ENVIRONMENT_GET_VARIABLE, &query));
    CHECK(std::string(query.value) == "b");
    retro_variable unknown{"nope", nullptr};
    CHECK_FALSE(env.handle(RETRO_ENVIRONMENT_GET_VARIABLE, &unknown));
}

TEST_CASE("Memory maps keep names, apply offsets and skip empty descriptors",
          "[frontend][environment]") {
    Environment env = make_env();
    static std::uint8_t wram[64];
    static std::uint8_t vram[32];
    retro_memory_descriptor d[3] = {};
    d[0].ptr = wram;
    d[0].offset = 16;
    d[0].start = 0x7e0000;
    d[0].len = 48;
    d[0].addrspace = "WRAM";
    d[1].ptr = nullptr;
    d[1].len = 10;
    d[2].ptr = vram;
    d[2].start = 0x2000;
    d[2].len = sizeof vram;
    retro_memory_map map{d, 3};
    REQUIRE(env.handle(RETRO_ENVIRONMENT_SET_MEMORY_MAPS, &map));
    REQUIRE(env.memory_descriptors().size() == 2);
    CHECK(env.memory_descriptors()[0].name == "WRAM");
    CHECK(env.memory_descriptors()[0].ptr == wram + 16);
    CHECK(env.memory_descriptors()[0].length == 48);
    CHECK(env.memory_descriptors()[1].name == "002000");  // no addrspace: named by address
}

TEST_CASE("AV info, geometry, audio/video enable and savestate context",
          "[frontend][environment]") {
    EnvironmentConfig config;
    config.savestate_context = RETRO_SAVESTATE_CONTEXT_ROLLBACK_NETPLAY;
    Environment env(config);
    retro_system_av_info av{};
    av.geometry.base_width = 320;
    av.geometry.base_height = 224;
    av.timing.fps = 59.185;
    REQUIRE(env.handle(RETRO_ENVIRONMENT_SET_SYSTEM_AV_INFO, &av));
    CHECK(env.take_av_info_changed());
    retro_game_geometry geometry{256, 240, 512, 480, 4.0f / 3.0f};
    REQUIRE(env.handle(RETRO_ENVIRONMENT_SET_GEOMETRY, &geometry));
    CHECK(env.av_info().geometry.base_width == 256);
    CHECK(env.av_info().timing.fps == Approx(59.185));  // geometry leaves timing alone

    int av_enable = 0;
    env.set_audio_video_enable(false, true);
    REQUIRE(env.handle(RETRO_ENVIRONMENT_GET_AUDIO_VIDEO_ENABLE, &av_enable));
    CHECK(av_enable == 2);
    int context = -1;
    REQUIRE(env.handle(RETRO_ENVIRONMENT_GET_SAVESTATE_CONTEXT, &context));
    CHECK(context == RETRO_SAVESTATE_CONTEXT_ROLLBACK_NETPLAY);
    bool can_dupe = false;
    REQUIRE(env.handle(RETRO_ENVIRONMENT_GET_CAN_DUPE, &can_dupe));
    CHECK(can_dupe);
    CHECK(env.handle(RETRO_ENVIRONMENT_GET_INPUT_BITMASKS, nullptr));
}

TEST_CASE("Controller info and input descriptors are recorded", "[frontend][environment]") {
    Environment env = make_env();
    const retro_controller_description pad_types[] = {
        {"RetroPad", RETRO_DEVICE_JOYPAD},
        {"Multitap", RETRO_DEVICE_SUBCLASS(RETRO_DEVICE_JOYPAD, 1)}};
    const retro_controller_info info[] = {{pad_types, 2}, {pad_types, 1}, {nullptr, 0}};
    REQUIRE(env.handle(RETRO_ENVIRONMENT_SET_CONTROLLER_INFO,
                       const_cast<retro_controller_info*>(info)));
    REQUIRE(env.controller_types().size() == 2);
    CHECK(env.controller_types()[0][1].description == "Multitap");
    const retro_input_descriptor descriptors[] = {
        {0, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_A, "Fire"},
        {1, RETRO_DEVICE_JOYPAD, 0, RETRO_DEVICE_ID_JOYPAD_B, "Jump"},
        {0, 0, 0, 0, nullptr}};
    REQUIRE(env.handle(RETRO_ENVIRONMENT_SET_INPUT_DESCRIPTORS,
                       const_cast<retro_input_descriptor*>(descriptors)));
    CHECK(env.input_descriptor_count() == 2);
}
