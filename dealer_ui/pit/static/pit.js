// The pit view: signs a supervisor in, follows the live floor (/ws), shows every table's
// state and the open alerts, and a table's surveillance view from the REST API. Every
// value is put in the page as text (textContent), never as markup.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { token: sessionStorage.getItem("pit-token"), floor: null, table: null,
  seen: "", socket: null, retry: 1000, received: 0, detailAt: 0, detailTimer: null,
  statsTimer: null, house: null };
// The house's figures of the gaming day (/api/house) are read again this often.
const HOUSE_EVERY = 30000;
// A dealing table changes at each batch: its drill-down is read again at most this often.
const DETAIL_EVERY = 2000;
// The drill-down's page of buy-ins and cash-outs (the API's CHIP_MOVEMENTS).
const CHIP_PAGE = 50;
// The statistics for surveillance are read again this often, and this many charts shown
// (every flagged one, then those nearest the threshold).
const STATS_EVERY = 60000;
const STATS_SHOWN = 12;

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

// A code of the table's (an alert's kind, a chip movement's) in words, the one place the
// pit turns codes into words: "card_out_of_turn" reads "Card out of turn".
function words(code) {
  const text = String(code ?? "").replaceAll("_", " ");
  return text ? text[0].toUpperCase() + text.slice(1) : "";
}

function since(iso, now) {
  if (!iso) return "never";
  const seconds = Math.max(0, Math.round((Date.parse(now) - Date.parse(iso)) / 1000));
  return seconds < 90 ? `${seconds} s ago` : `${Math.round(seconds / 60)} min ago`;
}

// The floor database's clock now: its time in the last message, plus the time since.
function floorNow() {
  if (!state.floor) return new Date().toISOString();
  return new Date(Date.parse(state.floor.now) + (Date.now() - state.received)).toISOString();
}

// A deck's age from the start of its life (the table's clock) to the floor's now.
function deckLine(table, now) {
  if (!table.deck_since) return "no deck yet";
  const minutes = Math.max(0, Math.floor((Date.parse(now) - Date.parse(table.deck_since)) / 60000));
  const age = `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
  return `deck: ${table.deck_hands} hand${table.deck_hands === 1 ? "" : "s"}, ${age}${table.tag_checks === false ? " · NO TAG CHECKS" : ""}`;
}

function sharedLine(table) {
  return `${table.shared_tags} tag${table.shared_tags === 1 ? "" : "s"} of its deck in another table's deck`;
}

function time(iso) {
  return iso ? new Date(iso).toLocaleTimeString() : "";
}

function unreachable(reason) {
  const banner = $("unreachable");
  banner.hidden = !reason;
  banner.textContent = reason || "";
}

async function api(path, options = {}) {
  const headers = { ...(options.headers || {}) };
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
  const answer = await fetch(path, { ...options, headers });
  if (answer.status === 401) { signedOut(); throw new Error("signed out"); }
  const body = answer.status === 204 ? null : await answer.json();
  if (answer.status === 503) { unreachable(body.reason); throw new Error(body.reason); }
  if (!answer.ok) throw new Error(body.reason || answer.statusText);
  return body;
}

function signedOut() {
  state.token = null;
  sessionStorage.removeItem("pit-token");
  if (state.socket) state.socket.close();
  $("pit").hidden = true;
  $("sign-out").hidden = true;
  $("sign-in").hidden = false;
  $("connection").textContent = "signed out";
  $("who").focus();
}

async function signIn(event) {
  event.preventDefault();
  $("sign-in-error").textContent = "";
  const answer = await fetch("/api/sessions", { method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ role: "surveillance", id: $("who").value, pin: $("pin").value }) });
  const body = await answer.json();
  if (!answer.ok) { $("sign-in-error").textContent = body.reason; return; }
  state.token = body.token;
  sessionStorage.setItem("pit-token", body.token);
  $("pin").value = "";
  start();
}

function start() {
  $("sign-in").hidden = true;
  $("pit").hidden = false;
  $("sign-out").hidden = false;
  follow();
  showRoute();
  loadStatistics();
  loadHouse();
  loadRequests();
}

// The dealers' requests waiting at the tables with a console (the floor service asks each
// table's console: docs/floor.md, "Requests from the tables"): a table is connected with the
// supervisor's PIN (checked by the table), and each approval carries the PIN again, checked
// and journaled at the table. Read again every REQUESTS_EVERY ms; drawn again only when they
// change (a PIN being typed stays).
const REQUESTS_EVERY = 2000;
// The supervisor's actions as the dealer's console words them (dealer_ui/static/console.js).
const ACTION_WORDS = { call: "Come to the table", undo: "Undo a decision", "enter-card": "Enter the unread card",
  "correct-card": "Correct a misread card", "wrong-face": "A card dealt with the wrong face", resolve: "Resolve an alert",
  "correct-stack": "Correct a stack", void: "Void the hand" };

async function loadRequests() {
  clearTimeout(state.requestsTimer);
  if (!state.token) return;
  try {
    const tables = await api("/api/requests");
    const seen = JSON.stringify(tables);
    if (seen !== state.requestsSeen) renderRequests(tables);
    state.requestsSeen = seen;
  } catch (error) {
    $("requests").replaceChildren(el("li", error.message, "error"));
    state.requestsSeen = "";
  }
  state.requestsTimer = setTimeout(loadRequests, REQUESTS_EVERY);
}

function describeRequest(request) {
  const body = request.body || {};
  const facts = [];
  if (body.card) facts.push(body.wrong ? `${body.wrong} is ${body.card}` : body.card);
  if (body.seat) facts.push(`seat ${body.seat}${body.do ? ` ${words(body.do).toLowerCase()}` : ""}`);
  if (body.place) facts.push(`card ${body.place}`);
  if (body.stack !== undefined) facts.push(`stack ${body.stack}`);
  if (body.hand) facts.push(`hand ${body.hand}`);
  const what = ACTION_WORDS[request.action] ?? words(request.action);
  return `${what}${facts.length ? ` (${facts.join(", ")})` : ""}${body.why ? `: ${body.why}` : ""}`;
}

// A PIN and a button: ``send(pin)`` answers an error's reason, or nothing when done.
function pinForm(label, button, send) {
  const form = el("form", null, "pin-form");
  const input = el("input");
  Object.assign(input, { type: "password", name: "pin", inputMode: "numeric", autocomplete: "off", required: true });
  const field = el("label", `${label} `);
  field.append(input);
  const error = el("p", null, "error");
  error.setAttribute("role", "alert");
  form.append(field, el("button", button), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const reason = await send(input.value);
    input.value = "";
    error.textContent = reason || "";
    if (!reason) loadRequests();
  });
  return form;
}

async function tablePost(table, path, body) {
  try {
    await api(`/api/tables/${encodeURIComponent(table)}${path}`, { method: "POST",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(body ?? {}) });
    return null;
  } catch (error) {
    return error.message;
  }
}

function renderRequests(tables) {
  $("requests-section").hidden = !tables.length;
  const items = [];
  for (const table of tables) {
    const id = table.table_id;
    if (!table.connected) {
      const item = el("li", null, "request");
      item.dataset.requestsOf = id;
      item.append(el("p", `Table ${id}: connect to see its requests`),
        pinForm(`PIN for table ${id}`, "Connect", (pin) => tablePost(id, "/connect", { pin })));
      if (table.problem) item.append(el("p", table.problem, "error"));
      items.push(item);
      continue;
    }
    if (!table.requests.length) {
      const none = el("li", `Table ${id}: no request waiting`, "request none");
      none.dataset.requestsOf = id;
      items.push(none);
    }
    for (const request of table.requests) {
      const item = el("li", null, "request action");
      item.dataset.requestsOf = id;
      item.dataset.request = request.id;
      item.append(el("p", `Table ${id}: ${describeRequest(request)} · asked by ${request.asked_by}, ${since(new Date(request.asked_at * 1000).toISOString(), new Date().toISOString())}`, "what"));
      if (request.action !== "call") {
        item.append(pinForm("Your PIN", "Approve", (pin) => tablePost(id, `/requests/${request.id}/approve`, { pin })));
      }
      const refuse = el("button", request.action === "call" ? "Answered" : "Refuse", "secondary");
      refuse.type = "button";
      refuse.addEventListener("click", async () => {
        const reason = await tablePost(id, `/requests/${request.id}/cancel`);
        if (reason) item.append(el("p", reason, "error"));
        else loadRequests();
      });
      item.append(refuse);
      items.push(item);
    }
  }
  $("requests").replaceChildren(...items);
}

// The gaming day's rake, dealers and cash flags: read now and every HOUSE_EVERY ms.
async function loadHouse() {
  if (!state.token) return;
  try {
    state.house = await api("/api/house");
    if (state.floor && state.floor.ok) renderFloor(state.floor);
  } catch (error) {
    // the floor's banner says why; the figures shown stay until the next read
  }
}

function houseLine(table) {
  const day = state.house && state.house.tables.find((t) => t.table_id === table.table_id);
  if (!day) return "no hands this gaming day";
  const time = day.time_charge ? ` · time ${day.time_charge}` : "";
  return `rake ${day.rake} (${Math.round(day.rake_per_hour)}/h) · drop ${day.jackpot_drop}${time} · ${day.hands} hands today`;
}

function renderHouse() {
  const house = state.house;
  const cash = $("cash-log");
  const dealers = $("dealers");
  cash.replaceChildren();
  dealers.replaceChildren();
  if (!house) return;
  $("cash-count").textContent = `(${house.cash_log.length}; over ${house.cash_log_threshold})`;
  for (const flag of house.cash_log) {
    const item = el("li", null, "abnormal cash-flag");
    item.append(el("strong", `player card ${flag.player_id}: ${flag.chips} in cash buy-ins`), el("br"),
      el("span", `${flag.transactions} transactions at ${flag.tables.join(", ")} · ${time(flag.first_at)} to ${time(flag.last_at)} · log it`, "muted"));
    cash.append(item);
  }
  if (!house.cash_log.length) cash.append(el("li", "none", "muted"));
  for (const row of house.dealers) {
    const rate = row.hands_per_hour === null ? "no time" : `${Math.round(row.hands_per_hour)} hands/h`;
    dealers.append(el("li", `${row.dealer === null ? "(not named)" : row.dealer} at ${row.table_id}: ${row.hands} hands · ${rate} · rake ${row.rake}`, "dealer-line"));
  }
  if (!house.dealers.length) dealers.append(el("li", "none", "muted"));
}

const MEASURES = { four_up: "4c face up", bonus: "bonus cards", wilds: "wild cards",
  wins: "wins", unverified_reads: "unverified reads", moved_cards: "moved cards" };

// The statistics for surveillance (/api/surveillance): every flagged chart, in red, and
// those nearest the threshold.
async function loadStatistics() {
  clearTimeout(state.statsTimer);
  if (!state.token) return;
  try {
    renderStatistics(await api("/api/surveillance"));
  } catch (error) {
    $("stats-facts").textContent = `· not read: ${error.message}`;
  }
  state.statsTimer = setTimeout(loadStatistics, STATS_EVERY);
}

function renderStatistics(stats) {
  $("stats-facts").textContent = `· the last ${stats.hands} hands · CUSUM for ${stats.ratio}× the expected rate, flagged at ${stats.threshold}`;
  const banner = $("stats-flagged");
  banner.hidden = stats.flagged === 0;
  banner.textContent = `${stats.flagged} chart${stats.flagged === 1 ? "" : "s"} flagged: call surveillance`;
  const rows = stats.charts.filter((chart, index) => chart.flagged || index < STATS_SHOWN);
  $("stats").tBodies[0].replaceChildren(...rows.map((chart) => {
    const row = el("tr", null, chart.flagged ? "flagged" : "");
    const at = chart.flagged_at ? `${chart.flagged_at.table_id} hand ${chart.flagged_at.hand}` : "";
    for (const cell of [`${chart.grouping.replace("_", " at ")} ${chart.unit}`, MEASURES[chart.measure] || chart.measure,
      chart.hands, chart.observed.toFixed(2), chart.expected.toFixed(2),
      `${chart.cusum.toFixed(1)} (${chart.peak.toFixed(1)})`, at]) row.append(el("td", cell));
    return row;
  }));
}

function follow() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws?token=${encodeURIComponent(state.token)}`);
  state.socket = socket;
  socket.onopen = () => { $("connection").textContent = "live"; state.retry = 1000; };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type !== "floor") return;
    if (!message.ok) { unreachable(message.reason); $("connection").textContent = "waiting for the floor database…"; return; }
    unreachable(null);
    $("connection").textContent = "live";
    state.floor = message;
    state.received = Date.now();
    renderFloor(message);
    refreshDetail(message);
  };
  socket.onclose = (event) => {
    if (state.socket !== socket) return;
    if (event.code === 4401) { signedOut(); return; }
    if (!state.token) return;
    $("connection").textContent = "floor service unreachable: reconnecting…";
    setTimeout(follow, state.retry);
    state.retry = Math.min(state.retry * 2, 10000);
  };
}

function renderFloor(floor) {
  const list = $("tables");
  list.replaceChildren();
  const paused = floor.tables.filter((t) => t.state === "paused").length;
  $("floor-facts").textContent = `· ${floor.tables.length} tables · ${paused} paused`;
  for (const table of floor.tables) {
    const item = el("li");
    const card = el("button", null, `table-card ${table.state}`);
    card.type = "button";
    card.dataset.table = table.table_id;
    const silent = table.silent;  // judged by the floor database's clock
    if (silent) card.classList.add("silent");
    card.append(el("span", `${table.name} (${table.table_id})`, "name"),
      el("span", table.state, `state ${table.state}`),
      el("span", `hand ${table.hand_number} · ${table.seats.filter((s) => s.player).length} players · ${table.open_alerts} open alerts`));
    if (table.state === "paused") card.append(el("span", `${words(table.alert_kind)}: ${table.alert_message}`, "alert-line"));
    if (table.shared_tags) card.append(el("span", sharedLine(table), "alert-line shared-tags"));
    card.append(el("span", deckLine(table, floorNow()), table.tag_checks === false ? "deck-line unchecked" : "deck-line muted"));
    card.append(el("span", houseLine(table), "house-line"));
    card.append(el("span", table.display || "", "muted"));
    card.append(el("span", `${silent ? "SILENT: " : ""}heard from ${since(table.last_seen, floorNow())}`, silent ? "silent-line" : "muted"));
    card.addEventListener("click", () => { location.hash = `table=${encodeURIComponent(table.table_id)}`; });
    item.append(card);
    list.append(item);
  }
  const alerts = $("alerts");
  alerts.replaceChildren();
  $("alert-count").textContent = `(${floor.open_alerts.length})`;
  for (const alert of floor.open_alerts) {
    const item = el("li", null, alert.severity);
    item.append(el("strong", `${alert.table_name}: ${words(alert.kind)}`), el("br"),
      el("span", alert.message), el("br"),
      el("span", `${alert.blocking ? "blocking · " : ""}hand ${alert.hand_number} · raised ${time(alert.raised_at)} · remedy: ${alert.remedy}`, "muted"));
    alerts.append(item);
  }
  if (!floor.open_alerts.length) alerts.append(el("li", "none", "muted"));
  renderHouse();
}

function route() {
  const found = /^#table=(.+)$/.exec(location.hash);
  return found ? decodeURIComponent(found[1]) : null;
}

function showRoute() {
  state.table = route();
  state.seen = "";
  $("detail").hidden = !state.table;
  if (state.table) loadDetail();
}

function refreshDetail(floor) {
  if (!state.table) return;
  const table = floor.tables.find((t) => t.table_id === state.table);
  const seen = table ? `${table.last_position}/${table.open_alerts}/${table.silent}` : "gone";
  if (seen === state.seen || state.detailTimer) return;
  state.seen = seen;
  const wait = Math.max(0, state.detailAt + DETAIL_EVERY - Date.now());
  state.detailTimer = setTimeout(() => { state.detailTimer = null; loadDetail(); }, wait);
}

async function loadDetail() {
  const wanted = state.table;
  state.detailAt = Date.now();
  let detail;
  try {
    detail = await api(`/api/tables/${encodeURIComponent(wanted)}`);
  } catch (error) {
    $("detail-title").textContent = `${wanted}: ${error.message}`;
    return;
  }
  if (wanted !== state.table) return;
  renderDetail(detail);
}

function renderDetail(detail) {
  const table = detail.table;
  $("detail-title").textContent = `${table.name} (${table.table_id}) · ${table.state} · hand ${table.hand_number} · session ${table.session}, journal position ${table.confirmed_position} · ${deckLine(table, floorNow())}`;
  const shared = $("detail-shared");
  shared.hidden = !detail.shared_tags.length;
  shared.textContent = detail.shared_tags.length
    ? `${sharedLine(table)}: ${detail.shared_tags.map((s) => `${s.uid} (${s.card} here, ${s.other_card} at ${s.other_table_id})`).join("; ")}`
    : "";
  // A table not heard from: what the floor holds of it is as of its last batch.
  const stale = $("detail-stale");
  stale.hidden = !table.silent;
  stale.textContent = table.silent
    ? `STALE: not heard from since ${time(table.last_seen)} (${since(table.last_seen, floorNow())}): the seats, stacks and cards below are as the table was then, not now`
    : "";
  $("detail").classList.toggle("stale", table.silent);
  const link = $("console-link");
  link.hidden = !detail.console;
  if (detail.console) link.href = `${detail.console}/surveillance`;
  const seats = $("seats").tBodies[0];
  seats.replaceChildren();
  const players = new Map(((table.hand && table.hand.players) || []).map((p) => [p.seat, p]));
  for (const seat of table.seats) {
    const row = el("tr");
    const player = players.get(seat.seat);
    let status = seat.in_hand ? "in the hand" : seat.sitting_out ? "sitting out" : "";
    if (player && player.folded) status = "folded";
    else if (player) status += ` · bet ${player.bet}, in ${player.total}`;
    const cards = player
      ? player.cards.map((c) => (c.face === "down" ? `[${c.card || "?"}]` : c.card || "?")).join(" ")
      : "";
    row.append(el("td", seat.seat), el("td", seat.player || "—"), el("td", seat.stack),
      el("td", status), el("td", cards, "cards"));
    seats.append(row);
  }
  const current = detail.current_hand;
  $("current-hand").textContent = current
    ? `hand ${current.number}, started ${time(current.started_at)}, seats ${current.seats.join(", ")}${table.hand ? `, ${table.hand.phase} on street ${table.hand.street}` : ""}: ${table.display}`
    : "none (between hands)";
  const alerts = $("table-alerts");
  alerts.replaceChildren();
  for (const alert of detail.alerts) {
    const item = el("li", null, alert.severity);
    const resolution = alert.cleared_at
      ? `cleared ${time(alert.cleared_at)}: ${alert.resolution}${alert.resolved_by ? ` (by ${alert.resolved_by}: ${alert.resolved_why})` : ""}`
      : "OPEN";
    item.append(el("strong", `Alert ${alert.alert_id}: ${words(alert.kind)}`), el("span", ` · hand ${alert.hand_number} · ${alert.message}`),
      el("br"), el("span", resolution, "muted"));
    alerts.append(item);
  }
  if (!detail.alerts.length) alerts.append(el("li", "none", "muted"));
  const actions = $("actions");
  actions.replaceChildren();
  for (const action of detail.supervisor_actions) {
    actions.append(el("li", `${time(action.at)} ${action.who}: ${action.message} (why: ${action.why})`));
  }
  if (!detail.supervisor_actions.length) actions.append(el("li", "none", "muted"));
  const hands = $("hands");
  hands.replaceChildren();
  for (const hand of detail.recent_hands) {
    const item = el("li");
    const box = el("details");
    const winners = (hand.outcome && hand.outcome.pots || []).map((pot) => `${pot.amount} to seat ${(pot.winners || []).join(", ")}`).join("; ");
    box.append(el("summary", `hand ${hand.number} · ${time(hand.ended_at)} · ${hand.void ? "void" : `pot ${hand.pot}`} · ${hand.bonus_cards} bonus cards${winners ? ` · ${winners}` : ""}`));
    box.append(el("h4", "Hand script (luck-table replay)"), el("pre", JSON.stringify(hand.script, null, 1)));
    item.append(box);
    hands.append(item);
  }
  if (!detail.recent_hands.length) hands.append(el("li", "none yet", "muted"));
  const chips = $("chips");
  chips.replaceChildren();
  showChipMovements(chips, detail.chip_movements, table);
}

function showChipMovements(list, moves, table) {
  const items = moves.map((move) => el("li", `${time(move.at)} seat ${move.seat} ${move.player}: ${words(move.kind).toLowerCase()} ${move.chips}`));
  list.querySelector(".earlier")?.remove();
  list.prepend(...items);
  if (moves.length < CHIP_PAGE) return;
  const earlier = el("button", "earlier…");
  earlier.type = "button";
  earlier.addEventListener("click", async () => {
    const path = `/api/tables/${encodeURIComponent(table.table_id)}/chip-movements?session=${table.session}&before=${moves[0].position}&limit=${CHIP_PAGE}`;
    try {
      showChipMovements(list, await api(path), table);
    } catch (error) {
      earlier.textContent = `earlier… (${error.message})`;
    }
  });
  const holder = el("li", null, "muted earlier");
  holder.append(earlier);
  list.prepend(holder);
}

// "heard from ... ago" keeps counting between the feed's messages.
setInterval(() => { if (state.floor && state.floor.ok) renderFloor(state.floor); }, 5000);
setInterval(loadHouse, HOUSE_EVERY);
$("sign-in").addEventListener("submit", signIn);
$("sign-out").addEventListener("click", async () => {
  try { await api("/api/sessions", { method: "DELETE" }); } finally { signedOut(); }
});
$("close-detail").addEventListener("click", () => { location.hash = ""; });
window.addEventListener("hashchange", showRoute);
// For the browser tests: the last floor shown.
window.pit = state;
if (state.token) start(); else signedOut();
