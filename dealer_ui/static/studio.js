// The studio's broadcast overlay: the studio feed (/studio/ws, a studio token) as a lower
// third, the table as it was the security delay ago (docs/console.md).
// ?token=TOKEN (the studio token), &transparent=1 (no background, for keying).
"use strict";

const SUITS = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
const STREETS = { 3: "Third street", 4: "Fourth street", 5: "Fifth street", 6: "Sixth street", 7: "Seventh street" };
const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
if (params.get("transparent") === "1") document.body.classList.add("transparent");

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function byId(id) { return document.getElementById(id); }

// The security delay in words: whole minutes, or seconds under a minute (a test table's).
function behind(seconds) {
  return seconds < 60 ? `${Math.round(seconds)} s` : `${Math.round(seconds / 60)} min`;
}

function showIf(node, on) {  // only a change touches the page (an observer sees changes)
  if (node.hidden === on) node.hidden = !on;
}

function percent(value) {
  return `${(100 * value).toFixed(1)}%`;
}

function cardText(card) {
  return `${card[0] === "T" ? "10" : card[0]}${SUITS[card[1]]}`;
}

function cardNode(card) {
  const classes = ["studio-card", card.face];
  if (card.card[1] === "h" || card.card[1] === "d") classes.push("red");
  if (card.wild) classes.push("wild");
  if (card.bonus) classes.push("bonus");
  const label = `${card.card}${card.face === "down" ? " face down" : ""}${card.bonus ? ", bonus card" : ""}`;
  return el("span", { class: classes.join(" "), role: "img", "aria-label": label, "data-card": card.card }, cardText(card.card));
}

function capital(words) {
  return words ? words[0].toUpperCase() + words.slice(1) : "";
}

// The bonus moment stays on air for its hold: the feed keeps it in each message for that
// long by the table's time, and the page keeps it on for that long from when it first
// showed it (moments released together, or a quiet table, change nothing).
let onAir = null;
let bonusTimer = null;
function bonusOnAir(table) {
  const bonus = table && table.bonus;
  if (bonus) {
    const key = `${bonus.seat}:${bonus.since}`;
    if (!onAir || onAir.key !== key) onAir = { key, bonus, at: performance.now() };
    else onAir.bonus = bonus;  // the bonus card, once dealt
  }
  if (!onAir) return null;
  const left = onAir.bonus.hold * 1000 - (performance.now() - onAir.at);
  if (left <= 0) return null;
  clearTimeout(bonusTimer);
  bonusTimer = setTimeout(() => render(lastMessage), left + 20);
  return onAir.bonus;
}

// A folded player leaves the strip once the street they folded on is over.
function collapsed(player, table) {
  if (!player.folded && !player.mucked) return false;
  if (table.phase === "complete" || table.phase === "void") return true;
  return !player.action || player.action.street < table.street;
}

function clear() {
  for (const id of ["hand", "street", "limits", "method", "delay"]) byId(id).textContent = "";
  for (const id of ["pot", "gone"]) showIf(byId(id), false);
  byId("players").replaceChildren();
}

function render(message) {
  if (!message) return;
  const table = message.table;
  const status = byId("status");
  const started = table && (table.hand_number > 0 || table.players.length > 0);
  document.body.classList.toggle("waiting", !started);
  clear();
  if (!started) {
    showIf(byId("bonus"), false);
    if (message.delay !== undefined && !status.dataset.refused) {
      status.textContent = `Starting: ${behind(message.delay)} behind the table`;
    }
    return;
  }
  status.textContent = "";
  byId("hand").textContent = `Hand ${table.hand_number}`;
  byId("street").textContent =
    table.phase === "complete" ? "Showdown" : table.phase === "void" ? "Void" : STREETS[table.street] || "";
  const pot = byId("pot");
  showIf(pot, true);
  pot.replaceChildren(el("span", { class: "studio-label" }, "Pot"), ` ${table.pot}`);
  if (table.community) pot.append(" ", el("span", { class: "studio-label" }, "Shared"), " ", cardNode({ card: table.community, face: "up" }));
  const limits = table.limits;
  byId("limits").textContent = limits ? `${limits.small_bet}/${limits.big_bet} · ante ${limits.ante} · bring-in ${limits.bring_in}` : "";
  byId("method").textContent = table.method === "exact" ? "exact odds"
    : table.method ? `odds ± ${(100 * table.standard_error).toFixed(2)} pts` : "";
  byId("delay").textContent = `${behind(message.delay)} delay`;

  const bonus = bonusOnAir(table);
  const banner = byId("bonus");
  showIf(banner, !!bonus);
  if (bonus) {
    const who = bonus.player || `seat ${bonus.seat}`;
    banner.replaceChildren(el("span", { class: "studio-shamrock", "aria-hidden": "true" }, "\u2618"),
      ` LUCK OF THE IRISH! Bonus card to ${who}`);
    if (bonus.card) banner.append(" ", cardNode({ card: bonus.card, face: "up", bonus: true }));
  }

  const shown = table.players.filter((p) => !collapsed(p, table));
  const gone = table.players.filter((p) => collapsed(p, table));
  const goneLine = byId("gone");
  showIf(goneLine, gone.length > 0 && !bonus);
  goneLine.textContent = gone.length ? `Folded: ${gone.map((p) => p.player).join(", ")}` : "";

  const complete = table.phase === "complete";
  const best = Math.max(0, ...shown.filter((p) => p.odds).map((p) => p.odds.equity));
  const players = byId("players");
  players.dataset.count = String(shown.length);
  for (const player of shown) players.append(panel(player, table, { bonus, complete, best }));
}

function panel(player, table, { bonus, complete, best }) {
  const out = player.folded || player.mucked;
  const classes = ["studio-player"];
  if (out) classes.push("folded");
  if (player.to_act) classes.push("to-act");
  if (player.winner) classes.push("winner");
  if (!complete && player.odds && best > 0 && player.odds.equity === best) classes.push("leader");
  if ((bonus && bonus.seat === player.seat) || player.bonus_due) classes.push("bonus-moment");
  const item = el("li", { class: classes.join(" "), "data-seat": String(player.seat) });

  const head = el("div", { class: "studio-head" });
  head.append(el("span", { class: "studio-name" }, player.player));
  const tag = tagOf(player, table, complete);
  if (tag) head.append(el("span", { class: `studio-tag ${tag.kind}` }, tag.text));
  const right = el("span", { class: "studio-right" });
  if (player.winner) right.append(el("span", { class: "studio-won" }, `+${player.won}`));
  else if (player.odds && !out && !complete) right.append(el("span", { class: "studio-equity" }, percent(player.odds.equity)));
  head.append(right);

  const cards = el("div", { class: "studio-cards" });
  const hole = el("span", { class: "studio-hole", "aria-label": "Hole cards" });
  const up = el("span", { class: "studio-up", "aria-label": "Up cards" });
  for (const card of player.cards) (card.face === "down" ? hole : up).append(cardNode(card));
  cards.append(hole, up);
  if (player.odds && player.odds.tie > 0.0005 && !out) cards.append(el("span", { class: "studio-tie" }, `tie ${percent(player.odds.tie)}`));

  const foot = el("div", { class: "studio-foot" });
  foot.append(el("span", { class: "studio-stack", title: "stack" }, String(player.stack)));
  if (player.bet > 0) foot.append(el("span", { class: "studio-bet" }, `bet ${player.bet}`));
  const bonusCard = player.cards.find((card) => card.bonus);
  if (bonusCard && bonus && bonus.seat === player.seat) foot.append(el("span", { class: "studio-bonus-call" }, "\u2618 bonus card"));
  if (player.made && !out) foot.append(el("span", { class: "studio-made" }, player.made.words));
  item.append(head, cards, foot);
  return item;
}

// What the player did last on this street, or that they are to act, all-in or the winner.
function tagOf(player, table, complete) {
  if (complete) return player.winner ? { kind: "win", text: "Winner" } : null;
  if (player.to_act) return { kind: "act", text: "To act" };
  const action = player.action;
  if (action && (action.street === table.street || action.do === "fold")) {
    return { kind: action.do === "fold" ? "fold" : "did", text: capital(action.words) };
  }
  if (player.all_in) return { kind: "did", text: "All-in" };
  return null;
}

let lastMessage = null;
let retry = 500;
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/studio/ws?token=${encodeURIComponent(token)}`);
  const status = byId("status");
  socket.onopen = () => { retry = 500; };
  socket.onmessage = (event) => {
    lastMessage = JSON.parse(event.data);
    document.body.dataset.seq = String(lastMessage.seq);
    render(lastMessage);
  };
  socket.onclose = (event) => {
    if (event.code === 4401) {  // revoked or expired: nothing stays on air
      lastMessage = null;
      onAir = null;
      status.dataset.refused = "1";
      clear();
      showIf(byId("bonus"), false);
      document.body.classList.add("waiting");
      status.textContent = `refused: ${event.reason}`;
      return;
    }
    status.textContent = "reconnecting…";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  };
}
connect();
