// The lobby's web page: one document, no external assets (it must work on a LAN without
// the internet). It polls /api/rooms every two seconds with the filters chosen. The filters
// live in the page's own query string too (/?game=X&mode=nowait&has_slots=1), so a filtered
// list is a link that can be shared, and a headless browser can load one directly.
//
// Tests read the DOM, so it has stable hooks: each row is <tr data-code data-game data-mode>,
// each cell a data-col, #count holds the number of rooms shown, and #status carries
// data-state="ok" or "error" once the first answer (or failure) arrived.
//
// The room's own columns (which field each shows, under which heading, and which the rows
// carry as data-* hooks) are walked from the room's description, lobby/record_fields.h: the
// table head and the script's list of them are filled in when the page is first served.
//
// The core check column is what the core atlas (docs/cores.json, compiled into the lobby:
// common/core_atlas.h) says of the room's core in the room's mode: safe, unsafe with the
// atlas's reason, or unknown (another version, a core it did not measure). The lobby
// decides it from the room's core name, version and mode; the host does not claim it.
//
// The delay column is the input delay this browser's network would get in each room
// (expected_delay, from the relay probes `framelock lobby list` sent from the same address
// in the last 10 minutes: a browser cannot send UDP probes itself); "—" with a hint when
// there are none, or when the room's host runs its own server (not probed before a join).
#include "lobby/web_page.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

#include "lobby/record_fields.h"

namespace framelock::lobby {
namespace {

// Where the page's text takes what the room's description says of its columns.
constexpr std::string_view kHeadings = "<!--room headings-->";
constexpr std::string_view kColumns = "/*room columns*/";

const char* const kPage = R"HTML(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>framelock lobby</title>
<style>
  :root { color-scheme: dark; --bg:#14161a; --fg:#e8e6e3; --dim:#9aa0a6; --acc:#f5b942; --row:#1d2026; }
  body { margin:0; font:15px/1.4 system-ui, sans-serif; background:var(--bg); color:var(--fg); }
  header { padding:16px 24px; border-bottom:1px solid #2a2e35; display:flex; align-items:baseline; gap:16px; }
  h1 { font-size:20px; margin:0; color:var(--acc); letter-spacing:.5px; }
  #status { color:var(--dim); font-size:13px; }
  form { display:flex; gap:12px; padding:12px 24px; flex-wrap:wrap; align-items:center; }
  input, select { background:#0f1114; color:var(--fg); border:1px solid #343a42; border-radius:4px; padding:5px 8px; }
  table { border-collapse:collapse; width:calc(100% - 48px); margin:0 24px 24px; }
  th { text-align:left; color:var(--dim); font-weight:500; padding:6px 8px; border-bottom:1px solid #2a2e35; }
  td { padding:8px; border-bottom:1px solid #22262c; }
  tr:nth-child(even) td { background:var(--row); }
  .code { font-family:ui-monospace, monospace; color:var(--acc); font-weight:600; }
  .full { color:var(--dim); }
  /* Words, not a padlock emoji: machines without an emoji font drew an empty box. */
  .nodelay { color:var(--dim); cursor:help; }
  .check-safe { color:#7bc47f; }
  .check-unsafe { color:#f28b82; font-weight:600; }
  .check-unknown { color:var(--dim); }
  .lock::after { content:"password"; margin-left:8px; padding:1px 6px; border:1px solid #4a505a; border-radius:3px; color:var(--dim); font-size:11px; }
  #empty { padding:24px; color:var(--dim); }
</style>
</head>
<body>
<header><h1>framelock lobby</h1><span id="status" data-state="loading"><span id="count"></span><span id="status-text">loading…</span></span></header>
<form id="filters" onsubmit="return false">
  <label>Game <input id="f-game" name="game" placeholder="any" size="18"></label>
  <label>Core <input id="f-core" name="core" placeholder="any" size="14"></label>
  <label>Mode <select id="f-mode" name="mode">
    <option value="">any</option><option value="framelock">frame lock</option>
    <option value="nowait">no-wait</option><option value="rollback">rollback</option><option value="hybrid">hybrid</option></select></label>
  <label><input type="checkbox" id="f-slots" name="has_slots"> has free slots</label>
</form>
<table id="rooms">
  <thead><tr><!--room headings--><th title="what the core atlas measured of this core in this room's mode">Core check</th><th title="the input delay you would get, from your network's relay probes">Delay</th><th>Ping hint</th><th>Age</th></tr></thead>
  <tbody></tbody>
</table>
<div id="empty" hidden>No rooms match. Host one with <code>framelock host --lobby URL --public</code>.</div>
<script>
"use strict";
const modes = { framelock: "frame lock", nowait: "no-wait", rollback: "rollback", hybrid: "hybrid" };
// The room's own columns, from its description: [the cells' data-col, the JSON field the
// column shows, whether the row carries that field as data-COL].
const roomColumns = /*room columns*/;
// A room column's cell where it is more than its field's text: [text, class].
const roomCells = {
  code: v => [v, "code"],
  game: (v, r) => [v, r.has_password ? "lock" : ""],
  players: (v, r) => [v + "/" + r.slots, v >= r.slots ? "full" : ""],
  mode: v => [modes[v] || v, ""],
  core: (v, r) => [v + " " + r.core_version, ""],
  region: v => [v || "-", ""],
};
// The core atlas's word on the room's core in its mode (the lobby's, not the host's claim).
function coreCheck(r) {
  const mode = modes[r.mode] || r.mode;
  if (r.core_verdict === "safe") return ["safe in " + mode, "check-safe"];
  if (r.core_verdict === "unsafe") return ["unsafe in " + mode + ": " + r.core_verdict_reason, "check-unsafe"];
  return ["unknown: " + (r.core_verdict_reason || "not in the core atlas"), "check-unknown"];
}
// The filter inputs and the query keys they stand for, in the API and in the page's URL.
const textFilters = [["f-game", "game"], ["f-core", "core"], ["f-mode", "mode"]];
function cell(col, text, cls) {
  const td = document.createElement("td");
  td.dataset.col = col;
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}
function age(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? s + " s" : Math.round(s / 60) + " min";
}
function filterQuery() {
  const q = new URLSearchParams();
  for (const [id, key] of textFilters) {
    const v = document.getElementById(id).value.trim();
    if (v) q.set(key, v);
  }
  if (document.getElementById("f-slots").checked) q.set("has_slots", "1");
  return q;
}
// The URL's query string pre-fills the filters, so a shared link opens the same list.
function filtersFromUrl() {
  const q = new URLSearchParams(location.search);
  for (const [id, key] of textFilters) {
    if (q.has(key)) document.getElementById(id).value = q.get(key);
  }
  const slots = q.get("has_slots");
  document.getElementById("f-slots").checked = slots === "1" || slots === "true";
}
// replaceState rather than pushState: every keystroke would otherwise be a Back step.
function filtersToUrl() {
  const q = filterQuery().toString();
  history.replaceState(null, "", q ? "?" + q : location.pathname);
}
function setStatus(state, count, text) {
  const status = document.getElementById("status");
  status.dataset.state = state;
  document.getElementById("count").textContent = count;
  document.getElementById("status-text").textContent = text;
}
// Polls and filter changes overlap; only the newest request may draw, or a slow answer
// for old filters would replace the list for the new ones.
let latest = 0;
async function refresh() {
  const q = filterQuery();
  const mine = ++latest;
  const started = performance.now();
  try {
    const res = await fetch("/api/rooms?" + q.toString(), { cache: "no-store" });
    const rtt = Math.round(performance.now() - started);
    const data = await res.json();
    if (!res.ok) throw new Error(data.error || res.status);
    if (mine !== latest) return;
    const body = document.querySelector("#rooms tbody");
    body.replaceChildren();
    for (const r of data.rooms) {
      const tr = document.createElement("tr");
      for (const [col, field, hook] of roomColumns) {
        if (hook) tr.dataset[col] = r[field];
      }
      for (const [col, field] of roomColumns) {
        const [text, cls] = (roomCells[col] || (v => [String(v), ""]))(r[field], r);
        tr.appendChild(cell(col, text, cls));
      }
      const [checkText, checkClass] = coreCheck(r);
      const check = cell("check", checkText, checkClass);
      tr.dataset.check = r.core_verdict;
      tr.appendChild(check);
      if (typeof r.expected_delay === "number") {
        tr.appendChild(cell("delay", r.expected_delay + (r.expected_delay === 1 ? " frame" : " frames") +
                                     " (" + Math.round(r.expected_rtt_ms) + " ms)"));
      } else {
        const td = cell("delay", "\u2014", "nodelay");
        td.title = "run framelock lobby list on this network to measure";
        tr.appendChild(td);
      }
      // The lobby's own round trip: a hint, the room's server may be elsewhere.
      tr.appendChild(cell("ping", r.region ? rtt + " ms (lobby)" : rtt + " ms"));
      tr.appendChild(cell("age", age(data.now_ms - r.created_ms)));
      body.appendChild(tr);
    }
    document.getElementById("empty").hidden = data.rooms.length > 0;
    setStatus("ok", String(data.rooms.length),
              (data.rooms.length === 1 ? " room" : " rooms") + " · updated " +
                new Date().toLocaleTimeString());
  } catch (e) {
    if (mine === latest) setStatus("error", "", "lobby unreachable: " + e.message);
  }
}
filtersFromUrl();
for (const el of document.querySelectorAll("#filters input, #filters select")) {
  el.addEventListener("input", () => { filtersToUrl(); refresh(); });
}
refresh();
setInterval(refresh, 2000);
</script>
</body>
</html>
)HTML";

// The room's columns on the page, in the order of its description: the table head's cells
// and the script's list.
struct PageColumns {
    std::string headings;
    nlohmann::json columns = nlohmann::json::array();

    void field(std::string_view column, const auto&, unsigned, PageColumn page = {}) {
        if (page.id.empty()) return;
        headings += "<th>" + std::string(page.heading) + "</th>";
        columns.push_back({std::string(page.id), std::string(column), page.row_hook});
    }
    void thousandths(std::string_view, const auto&, std::string_view, unsigned) {}
};

void fill(std::string& page, std::string_view marker, const std::string& text) {
    const auto at = page.find(marker);
    if (at == std::string::npos) throw std::logic_error("the web page lost its marker");
    page.replace(at, marker.size(), text);
}

std::string page_with_columns() {
    PageColumns walk;
    const Room room;
    fields(walk, room);
    std::string page = kPage;
    fill(page, kHeadings, walk.headings);
    fill(page, kColumns, walk.columns.dump());
    return page;
}

}  // namespace

const std::string& web_page() {
    static const std::string page = page_with_columns();
    return page;
}

}  // namespace framelock::lobby
