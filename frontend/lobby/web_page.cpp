// The lobby's web page: one document, no external assets (it must work on a LAN without
// the internet). It polls /api/rooms every two seconds with the filters chosen.
#include <string>

#include "frontend/lobby/api.h"

namespace framelock::lobby {

const std::string& web_page() {
    static const std::string page = R"HTML(<!doctype html>
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
  .lock::after { content:" \1F512"; }
  #empty { padding:24px; color:var(--dim); }
</style>
</head>
<body>
<header><h1>framelock lobby</h1><span id="status">loading…</span></header>
<form id="filters" onsubmit="return false">
  <label>Game <input id="f-game" name="game" placeholder="any" size="18"></label>
  <label>Core <input id="f-core" name="core" placeholder="any" size="14"></label>
  <label>Mode <select id="f-mode" name="mode">
    <option value="">any</option><option value="framelock">frame lock</option>
    <option value="nowait">no-wait</option><option value="rollback">rollback</option></select></label>
  <label><input type="checkbox" id="f-slots" name="has_slots"> has free slots</label>
</form>
<table id="rooms">
  <thead><tr><th>Code</th><th>Game</th><th>Host</th><th>Players</th><th>Watching</th><th>Mode</th><th>Core</th><th>Region</th><th>Ping hint</th><th>Age</th></tr></thead>
  <tbody></tbody>
</table>
<div id="empty" hidden>No rooms match. Host one with <code>framelock host --lobby URL --public</code>.</div>
<script>
"use strict";
const modes = { framelock: "frame lock", nowait: "no-wait", rollback: "rollback" };
function cell(text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}
function age(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? s + " s" : Math.round(s / 60) + " min";
}
async function refresh() {
  const q = new URLSearchParams();
  for (const [id, key] of [["f-game", "game"], ["f-core", "core"], ["f-mode", "mode"]]) {
    const v = document.getElementById(id).value.trim();
    if (v) q.set(key, v);
  }
  if (document.getElementById("f-slots").checked) q.set("has_slots", "1");
  const started = performance.now();
  try {
    const res = await fetch("/api/rooms?" + q.toString(), { cache: "no-store" });
    const rtt = Math.round(performance.now() - started);
    const data = await res.json();
    if (!res.ok) throw new Error(data.error || res.status);
    const body = document.querySelector("#rooms tbody");
    body.replaceChildren();
    for (const r of data.rooms) {
      const tr = document.createElement("tr");
      tr.dataset.code = r.code;
      tr.appendChild(cell(r.code, "code"));
      tr.appendChild(cell(r.game_name, r.has_password ? "lock" : ""));
      tr.appendChild(cell(r.host_name));
      tr.appendChild(cell(r.players + "/" + r.slots, r.players >= r.slots ? "full" : ""));
      tr.appendChild(cell(String(r.spectators)));
      tr.appendChild(cell(modes[r.mode] || r.mode));
      tr.appendChild(cell(r.core_name + " " + r.core_version));
      tr.appendChild(cell(r.region || "-"));
      // The lobby's own round trip: a hint, the room's server may be elsewhere.
      tr.appendChild(cell(r.region ? rtt + " ms (lobby)" : rtt + " ms"));
      tr.appendChild(cell(age(data.now_ms - r.created_ms)));
      body.appendChild(tr);
    }
    document.getElementById("empty").hidden = data.rooms.length > 0;
    document.getElementById("status").textContent =
      data.rooms.length + (data.rooms.length === 1 ? " room" : " rooms") + " · updated " +
      new Date().toLocaleTimeString();
  } catch (e) {
    document.getElementById("status").textContent = "lobby unreachable: " + e.message;
  }
}
for (const el of document.querySelectorAll("#filters input, #filters select"))
  el.addEventListener("input", refresh);
refresh();
setInterval(refresh, 2000);
</script>
</body>
</html>
)HTML";
    return page;
}

}  // namespace framelock::lobby
