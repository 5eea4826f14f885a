#include "lobby/record_json.h"

#include <string>
#include <string_view>
#include <type_traits>

#include "common/core_atlas.h"
#include "lobby/record_fields.h"
#include "netplay/base/safe_text.h"

namespace framelock::lobby {
namespace {

// Writes a record's shown fields into a JSON object.
class JsonWriter {
  public:
    void field(std::string_view column, const auto& value, unsigned use, PageColumn = {}) {
        if (!(use & field::kShown)) return;
        // Text is safe text (netplay/base/safe_text.h) however it came into the store (a row
        // of an older lobby that took bidi overrides): what the JSON and the page show of
        // it is escaped.
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>)
            m_out[std::string(column)] = safe_text(value);
        else
            m_out[std::string(column)] = value;
    }
    void thousandths(std::string_view, const int& value, std::string_view shown_as, unsigned use) {
        if (use & field::kShown) m_out[std::string(shown_as)] = value / 1000.0;
    }
    nlohmann::json take() { return std::move(m_out); }

  private:
    nlohmann::json m_out = nlohmann::json::object();
};

template <class Record>
nlohmann::json shown(const Record& record) {
    JsonWriter writer;
    fields(writer, record);
    return writer.take();
}

}  // namespace

nlohmann::json room_json(const Room& room) {
    nlohmann::json json = shown(room);
    const CoreAtlasAnswer check =
        built_in_core_atlas().answer(room.core_name, room.core_version, room.mode);
    json["core_verdict"] = std::string(mode_verdict_word(check.verdict));
    json["core_verdict_reason"] = safe_text(check.reason);
    return json;
}

nlohmann::json server_json(const RelayServer& server) {
    return shown(server);
}

}  // namespace framelock::lobby
