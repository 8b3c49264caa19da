// The studio's broadcast overlay: the studio feed (/studio/ws, a studio token), every
// player's name, cards and odds, as the table was the security delay ago.
// ?token=TOKEN (the studio token), &transparent=1 (no background, for keying).
"use strict";

const SUITS = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
if (params.get("transparent") === "1") document.body.classList.add("transparent");

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function percent(value) {
  return `${(100 * value).toFixed(1)}%`;
}

function cardNode(card) {
  const rank = card.card[0] === "T" ? "10" : card.card[0];
  const suit = card.card[1];
  const classes = ["studio-card", card.face];
  if (suit === "h" || suit === "d") classes.push("red");
  if (card.wild) classes.push("wild");
  if (card.bonus) classes.push("bonus");
  const label = `${card.card}${card.face === "down" ? " face down" : ""}${card.bonus ? ", bonus card" : ""}`;
  return el("span", { class: classes.join(" "), role: "img", "aria-label": label, "data-card": card.card }, `${rank}${SUITS[suit]}`);
}

const STREETS = { 3: "Third street", 4: "Fourth street", 5: "Fifth street", 6: "Sixth street", 7: "Seventh street" };

function render(message) {
  const table = message.table;
  const players = document.getElementById("players");
  players.replaceChildren();
  const bonus = document.getElementById("bonus");
  if (!table) {
    document.getElementById("hand").textContent = "Hand –";
    document.getElementById("street").textContent = "";
    document.getElementById("pot").textContent = "";
    document.getElementById("method").textContent = "";
    bonus.hidden = true;
    return;
  }
  document.getElementById("hand").textContent = `Hand ${table.hand_number}`;
  document.getElementById("street").textContent =
    table.phase === "complete" ? "Showdown" : table.phase === "void" ? "Void" : STREETS[table.street] || "";
  document.getElementById("pot").textContent = table.players.length ? `Pot ${table.pot}` : "";
  const method = table.method === "exact" ? "exact odds"
    : table.method ? `odds ± ${(100 * table.standard_error).toFixed(2)} pts` : "";
  document.getElementById("method").textContent = method;
  bonus.hidden = !table.bonus;
  if (table.bonus) {
    const who = table.players.find((p) => p.seat === table.bonus.seat);
    bonus.textContent = `LUCK OF THE IRISH! Bonus card to ${who ? who.player : "seat " + table.bonus.seat}`;
  }
  const best = Math.max(0, ...table.players.filter((p) => p.odds).map((p) => p.odds.equity));
  for (const player of table.players) {
    const classes = ["studio-player"];
    if (player.folded || player.mucked) classes.push("folded");
    if (player.odds && best > 0 && player.odds.equity === best) classes.push("leader");
    if ((table.bonus && table.bonus.seat === player.seat) || player.bonus_due) classes.push("bonus-moment");
    const item = el("li", { class: classes.join(" "), "data-seat": String(player.seat) });
    const name = el("p", { class: "studio-name" }, player.player);
    name.append(" ", el("span", { class: "studio-seat" }, `seat ${player.seat}`));
    const cards = el("p", { class: "studio-cards" });
    for (const card of player.cards) cards.append(cardNode(card));
    const odds = el("p", { class: "studio-odds" });
    if (player.folded || player.mucked) {
      odds.append(el("span", { class: "studio-tie" }, "folded"));
    } else if (player.odds) {
      odds.append(el("span", { class: "studio-equity" }, percent(player.odds.equity)));
      if (player.odds.tie > 0.0005) odds.append(el("span", { class: "studio-tie" }, `tie ${percent(player.odds.tie)}`));
    }
    const track = el("div", { class: "studio-bar-track" });
    const fill = el("div", { class: "studio-bar-fill" });
    fill.style.width = player.odds && !player.folded ? percent(player.odds.equity) : "0";
    track.append(fill);
    item.append(name, cards, odds, track);
    players.append(item);
  }
}

let retry = 500;
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/studio/ws?token=${encodeURIComponent(token)}`);
  const status = document.getElementById("status");
  socket.onopen = () => { retry = 500; };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    status.textContent = message.table ? "" : `starting: ${Math.round(message.delay / 60)} min behind the table`;
    document.body.dataset.seq = String(message.seq);
    render(message);
  };
  socket.onclose = (event) => {
    status.textContent = event.code === 4401 ? `refused: ${event.reason}` : "reconnecting…";
    if (event.code === 4401) render({ table: null });  // revoked or expired: nothing stays on air
    else setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  };
}
connect();
