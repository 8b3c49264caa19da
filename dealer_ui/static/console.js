// The dealer console: signs in, follows the dealer's feed (/ws), renders the table and
// sends the dealer's inputs to the REST API. The same script shows the read-only pages:
// /public (no sign-in), /player#token=T (a player's own seat, with the token the dealer
// made for it) and /surveillance (a supervisor signs in; every card shown; the studio's
// tokens issued and revoked there, with a supervisor's PIN).
// Plain DOM, no build step. Every text from the server is set with textContent.
"use strict";

const ROLE = { "/public": "public", "/player": "player", "/surveillance": "surveillance" }[location.pathname] ?? "dealer";
const TOKEN_KEY = `token:${ROLE}`;
const VIEWERS = ["public", "player"];  // the broadcast line: never where a card goes

// A player's token comes in the address's fragment (never sent to the server, so never in
// a log); it is kept for the tab and taken out of the address bar.
if (ROLE === "player" && location.hash.startsWith("#token=")) {
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(location.hash.slice(7)));
  history.replaceState(null, "", location.pathname);
}
const WHO_KEY = `who:${ROLE}`;
const EVENTS_KEPT = 8;
const SIGNALS = ["display", "lamps"];  // what the screen and the lamps show: not events
// The display's modes (the view's `mode`, docs/api.md) of the bonus card's moment.
const BONUS_MODES = ["bonus_card", "bonus_offer"];

// A decision button takes a tap only once it has been on the screen this long, and only for
// the moment (hand, step, seat) it was drawn for: a double tap, or a bouncing panel, whose
// second touch lands on the buttons redrawn for the next seat finds them still arming
// (docs/console.md, "Every tap safe"). The confirmation's Confirm arms the same way.
const ARM_MS = 350;
// How long after a decision its Undo is offered (asked of the supervisor; the table takes
// it only before the next card or decision).
const UNDO_MS = 10000;
document.documentElement.style.setProperty("--arm-time", `${ARM_MS}ms`);  // the flash's length

// The console's words for the table's codes, in one place: no code, tag or underscore on
// the screen (docs/console.md, "Plain words"). The remedies as what to do.
const REMEDY_WORDS = { hold: "Hold the hand", dead: "Take the card out", done: "Done: carry on", replace_deck: "Replace the deck", void: "Void the hand" };
const SEVERITY_WORDS = { fault: "Fault", abnormal: "Warning", action: "Action needed" };
// The supervisor's actions, as a request waiting for the supervisor names them.
const ACTION_WORDS = { call: "Come to the table", undo: "Undo a decision", "enter-card": "Enter the unread card", "correct-card": "Correct a misread card",
  "wrong-face": "A card dealt with the wrong face", resolve: "Resolve an alert", "correct-stack": "Correct a stack", void: "Void the hand" };
// The reasons a supervisor picks for each action (a reason of one's own stays possible).
const REASONS = {
  "enter-card": ["The shoe could not read it", "Checked at the table"],
  "correct-card": ["The shoe misread it", "Checked at the table"],
  "wrong-face": ["Dealt with the wrong face", "Checked at the table"],
  resolve: ["Checked at the table", "Card taken out of play", "Device fixed"],
  "correct-stack": ["Chips miscounted", "Chips found on the table"],
  void: ["Misdeal", "Too many cards exposed"],
  undo: ["Wrong button"],
};
const OFFLINE = "the table service does not answer: nothing was sent";
// A dealer's error at a seat, asked of the supervisor with one tap on the card (the seat's
// sheet): the request's reason, and the word on the card's button.
const DEALER_ERRORS = {
  exposed: { why: "Exposed card", tap: "Exposed" },
  down: { why: "Up card dealt face down", tap: "Dealt down" },
};

const STREETS = { 3: "third street", 4: "fourth street", 5: "fifth street", 6: "sixth street", 7: "seventh street" };
const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const SEATS = 8;

const state = {
  token: ROLE === "public" ? null : sessionStorage.getItem(TOKEN_KEY),
  epoch: null,
  last: null,
  view: null,
  socket: null,
  retry: null,
  said: null,
  mode: "",
  who: sessionStorage.getItem(WHO_KEY),
  idleLock: null,   // seconds of quiet before the dealer's screen locks (the table's setting)
  touched: performance.now(),  // the monotonic clock: a step of the kiosk's clock moves no lock
  locked: false,
  events: [],       // the last events, newest first, as this role's feed told them
  confirming: null, // the moment (hand, step) a confirmation was asked at
  drawn: null,      // the decision buttons' moment: {key, seat, at (shown), sent}
  arming: null,     // the timer that arms them
  pastAsked: 0,     // surveillance: the readings of the past hands asked for
  escalateAfter: null,  // seconds an alert stays open before it is shown escalated
  heard: new Set(), // the alerts whose sound was played (raised; "e" + id: escalated)
  bonusChime: null, // the timer repeating the bonus card's chime until it is acted on
  audio: null,      // one AudioContext for every sound
  sounds: [],       // the sounds played, by name (for the browser tests)
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

// --- the API -------------------------------------------------------------------------

// Where a 401 is a PIN refused (said in the dialog), not the session ended.
const PIN_CHECKED = ["/api/sessions", "/api/supervisor/", "/api/studio-tokens", "/api/requests/", "/api/dealer-push"];

async function api(path, body) {
  const headers = { "Content-Type": "application/json" };
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
  let response;
  try {
    response = await fetch(path, { method: "POST", headers, body: JSON.stringify(body ?? {}) });
  } catch (error) {
    return { ok: false, reason: OFFLINE };
  }
  const data = response.status === 204 ? {} : await response.json().catch(() => ({}));
  if (response.ok) return { ok: true, data };
  if (response.status === 401 && !PIN_CHECKED.some((start) => path.startsWith(start))) {
    signedOut(data.reason);
  }
  return { ok: false, status: response.status, reason: data.reason || `error ${response.status}` };
}

async function get(path) {
  const headers = state.token ? { Authorization: `Bearer ${state.token}` } : {};
  try {
    const response = await fetch(path, { headers });
    const data = await response.json().catch(() => ({}));
    return response.ok ? { ok: true, data } : { ok: false, reason: data.reason || `error ${response.status}` };
  } catch (error) {
    return { ok: false, reason: OFFLINE };
  }
}

function say(text, ok = false) {
  const message = $("message");
  if (!message) return;  // surveillance: its dialogs say what went wrong
  message.textContent = text;
  message.classList.toggle("ok", ok);
  clearTimeout(state.said);
  if (ok) state.said = setTimeout(() => { message.textContent = ""; }, 5000);
}

// While a PIN is checked (a slow hash on the server): "Checking the PIN…" and every
// button of the form disabled, so that nobody sends it twice or does something else.
async function checking(form, request) {
  const buttons = [...form.querySelectorAll("button")];
  const was = buttons.map((button) => button.disabled);
  const status = form.querySelector(".checking");
  buttons.forEach((button) => { button.disabled = true; });
  status.textContent = "Checking the PIN…";
  form.querySelector(".error").textContent = "";
  try {
    return await request();
  } finally {
    status.textContent = "";
    buttons.forEach((button, index) => { button.disabled = was[index]; });
  }
}

async function send(path, body, done) {
  const result = await api(path, body);
  if (result.ok) say(done || "", true);
  else say(result.reason);
  return result;
}

// --- on-screen keys ------------------------------------------------------------------

// The kiosk has no keyboard: each dialog's `.keys` box shows the keys of the field last
// focused in it (its data-keys: large digits for a PIN, a seat or chips; letters and digits
// for an id, a name or a reason; the 13 x 4 card grid for a card). The fields stay fields
// (inputmode "none": no system keyboard), so a keyboard, where there is one, types too.
const RANKS = [..."AKQJT98765432"];
const SUIT_NAMES = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };
const KEY_SETS = {
  digits: [..."123456789", "Clear", "0", "⌫"],
  letters: [..."ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "Space", "⌫", "Clear"],
};

function keyed(input, key) {
  if (input.dataset.keys === "cards") input.value = key;
  else if (key === "⌫") input.value = input.value.slice(0, -1);
  else if (key === "Clear") input.value = "";
  else if (!input.maxLength || input.maxLength < 0 || input.value.length < input.maxLength) {
    const letter = key === "Space" ? " " : key;
    // ids are capitals (D200); names and reasons read as words: "Ann Lee", "Checked by me"
    const start = !input.value || input.value.endsWith(" ");
    const lower = input.dataset.case === "words" ? !start : input.dataset.case === "text" && input.value;
    input.value += lower ? letter.toLowerCase() : letter;
  }
  input.dispatchEvent(new Event("input", { bubbles: true }));
  input.focus({ preventScroll: true });
}

function keyButton(input, key, label, aria) {
  return el("button", { type: "button", class: key.length > 2 && input.dataset.keys !== "cards" ? "key word" : "key", tabindex: "-1", "aria-label": aria || label,
    "data-key": key, onclick: () => keyed(input, key) }, label);
}

function showKeys(input) {
  const box = input.closest("form")?.querySelector(".keys");
  if (!box || !input.dataset.keys) return;
  const set = input.dataset.keys;
  box.className = `keys ${set}`;
  box.dataset.field = input.name;
  if (set === "cards") {
    box.replaceChildren(...Object.keys(SUIT_NAMES).flatMap((suit) => RANKS.map((rank) => {
      const shown = `${rank === "T" ? "10" : rank}${SUITS[suit]}`;
      const node = keyButton(input, `${rank}${suit}`, shown, `${rank === "T" ? "10" : rank} of ${SUIT_NAMES[suit]}`);
      if (suit === "h" || suit === "d") node.classList.add("red");
      return node;
    })));
  } else {
    box.replaceChildren(...KEY_SETS[set].map((key) => keyButton(input, key, key,
      key === "⌫" ? "delete" : key === "Clear" ? "clear" : `key ${key}`)));
  }
}

document.addEventListener("focusin", (event) => {
  if (event.target.matches?.("input[data-keys]")) showKeys(event.target);
});

// Short lists kept on this console (not secrets): the ids signed in here and the players
// seated here lately, newest first.
function recent(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "[]");
  } catch (error) {
    return [];
  }
}

function remember(key, value, keep = 8) {
  if (!value) return;
  const list = [value, ...recent(key).filter((held) => held !== value)].slice(0, keep);
  localStorage.setItem(key, JSON.stringify(list));
}

// --- sign-in -------------------------------------------------------------------------

// Sign out is offered only to someone signed in (never behind the sign-in dialog).
function showSignOut() {
  $("sign-out").hidden = !state.token || ROLE === "player";
  if ($("push")) $("push").hidden = !state.token;  // the dealer's page only (data-dealer)
  $("signed-in").textContent = state.token && state.who && ROLE !== "player" ? `Signed in: ${state.who}` : "";
}

// The ids signed in at this console lately, one tap each (then only the PIN).
function showRecentIds() {
  const form = $("sign-in-form");
  $("recent-ids").replaceChildren(...recent(`ids:${ROLE}`).slice(0, 4).map((who) =>
    el("button", { type: "button", class: "small", onclick: () => {
      form.elements.dealer.value = who;
      form.pin.focus();
    } }, who)));
}

function signedOut(reason) {
  if (state.locked) return;  // the lock asks for the PIN; its own "Another dealer" signs out
  state.token = null;
  sessionStorage.removeItem(TOKEN_KEY);
  if (ROLE === "player") {  // no sign-in here: the dealer gives the player a token
    if (state.socket) state.socket.close();
    $("connection").textContent = reason || "no token: ask the dealer for this seat's link";
    return;
  }
  showSignOut();
  clearTimeout(state.retry);
  const socket = state.socket;
  state.socket = null;  // a feed ended on purpose: not a link lost
  if (socket) socket.close();
  offline(false);
  $("connection").textContent = "signed out";
  const dialog = $("sign-in");
  forgetBadge($("sign-in-form"));
  dialog.querySelector(".error").textContent = reason || "";
  showRecentIds();
  if (!dialog.open) dialog.showModal();
  dialog.querySelector("input[name=dealer]").focus();
}

$("sign-in-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const badge = form.dataset.badge;
  const body = badge ? { badge: Number(badge), pin: form.pin.value }
    : { role: ROLE, id: form.elements.dealer.value, pin: form.pin.value };
  const result = await checking(form, () => api(badge ? "/api/sessions/badge" : "/api/sessions", body));
  form.pin.value = "";
  if (!result.ok) {
    form.querySelector(".error").textContent = result.reason;
    return;
  }
  forgetBadge(form);
  signedIn(result.data);
  $("sign-in").close();
  connect();
});

function signedIn(session) {
  state.token = session.token;
  state.who = session.who;
  state.touched = performance.now();
  sessionStorage.setItem(TOKEN_KEY, state.token);
  sessionStorage.setItem(WHO_KEY, state.who);
  remember(`ids:${ROLE}`, state.who);
  showSignOut();
}

$("sign-in").addEventListener("cancel", (event) => event.preventDefault());

// Signing out ends the dealer's session: the dealer's page asks first (a stray tap in the
// middle of a hand would leave the table with nobody signed in).
$("sign-out").addEventListener("click", () => {
  const out = async () => {
    await fetch("/api/sessions", { method: "DELETE", headers: { Authorization: `Bearer ${state.token}` } }).catch(() => {});
    signedOut("signed out");
  };
  if (ROLE === "dealer") confirmThen(`Sign out ${state.who}?`, out);
  else out();
});

// A dealer push: the incoming dealer signs in with their id and PIN at the outgoing
// dealer's console (POST /api/dealer-push); the table names them the dealer from the next
// hand on, the outgoing dealer's session ends, and the console goes on as the incoming's.
function wirePush() {
  const dialog = $("push-dialog");
  if (!dialog) return;  // not the dealer's page
  const form = $("push-form");
  $("push").addEventListener("click", () => {
    forgetBadge(form);
    form.reset();
    form.querySelector(".error").textContent = "";
    $("push-who").textContent = `${state.who} hands the table over: the incoming dealer signs in and deals from the next hand on.`;
    dialog.showModal();
    form.elements.dealer.focus();
  });
  $("push-cancel").addEventListener("click", () => dialog.close());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const badge = form.dataset.badge;  // the incoming dealer's badge tap stands for the id
    const body = badge ? { badge: Number(badge), pin: form.pin.value }
      : { id: form.elements.dealer.value, pin: form.pin.value };
    const result = await checking(form, () => api("/api/dealer-push", body));
    form.pin.value = "";
    if (!result.ok) {
      form.querySelector(".error").textContent = result.reason;
      return;
    }
    forgetBadge(form);
    const outgoing = state.socket;
    state.socket = null;  // the outgoing dealer's feed ends on purpose: not a link lost
    if (outgoing) outgoing.close();
    signedIn(result.data);
    dialog.close();
    connect();
    say(`Dealer push: ${result.data.who} deals from the next hand`, true);
  });
}
wirePush();

// --- the feed ------------------------------------------------------------------------

function connect() {
  clearTimeout(state.retry);
  if (!state.token && ROLE !== "public") return signedOut();
  const params = new URLSearchParams(state.token ? { token: state.token } : {});
  if (state.epoch !== null) {
    params.set("epoch", state.epoch);
    params.set("last", state.last);
  }
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws?${params}`);
  state.socket = socket;
  $("connection").textContent = "connecting…";
  socket.onopen = () => { $("connection").textContent = "live"; showJournalFault(null); };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "journal") return showJournalFault(message.reason);
    if (message.type === "requests") return renderRequests(message.requests);
    const next = message.type === "snapshot" ||
      (message.epoch === state.epoch && message.seq === state.last + 1);
    if (!next) {  // a gap: ask again from the last update shown
      socket.close();
      return;
    }
    state.epoch = message.epoch;
    state.last = message.seq;
    if (message.type === "update") addEvents(message.events);
    render(message.view);
  };
  socket.onclose = (event) => {
    if (state.socket !== socket) return;
    state.socket = null;
    if (event.code === 4401) return signedOut(event.reason);
    $("connection").textContent = "reconnecting…";
    offline(true);
    state.retry = setTimeout(connect, 1000);
  };
}

// The table's journal cannot be written (a full disk): a blocking alert over the whole
// screen until it can (the feed says so; a new connection is told again if it still cannot).
function showJournalFault(reason) {
  $("journal-fault").hidden = !reason;
  $("journal-fault-reason").textContent = reason || "";
}

// --- rendering -----------------------------------------------------------------------

function cardNode(card) {
  if (!card.card) {
    return el("span", { class: "card back" + (card.bonus ? " bonus-card" : ""), role: "img", "aria-label": card.bonus ? "bonus card, face down" : "card face down" });
  }
  const rank = card.card[0] === "T" ? "10" : card.card[0];
  const suit = card.card[1];
  const classes = ["card"];
  if (suit === "h" || suit === "d") classes.push("red");
  if (rank === "10") classes.push("ten");
  if (card.wild) classes.push("wild");
  if (card.bonus) classes.push("bonus-card");
  if (card.face === "down") classes.push("hole");
  const label = `${card.card}${card.face === "down" ? " (hole card)" : ""}${card.wild ? ", wild" : ""}`;
  return el("span", { class: classes.join(" "), role: "img", "aria-label": label, "data-card": card.card },
    el("span", { class: "rank", text: rank }), el("span", { class: "suit", text: SUITS[suit] }));
}

// Where the shoe's seat lamps point, from the view's `next` and `lamps`: the seat the next
// card goes to (not while paused: the dealer does not deal then) and the seats with a bonus
// card due. The lamps light the next card's seat and every bonus seat, so a lit seat other
// than the next card's is a bonus seat (the bonus card itself may be the next card).
function seatMarks(view) {
  const next = view.next;
  const card = !view.paused && next && next.kind === "card" && next.seat ? next : null;
  const bonus = view.lamps.bonus
    ? view.lamps.seats.filter((seat) => !card || seat !== card.seat || card.destination === "bonus")
    : [];
  const winners = view.phase === "complete" ? view.pots.flatMap((pot) => pot.winners || []) : [];
  return { card, bonus, winners };
}

// The seat's marking: [class, words on the seat] (null: none).
function seatMark(number, marks) {
  if (marks.winners.includes(number)) return ["winner", "WINNER"];
  const card = marks.card && marks.card.seat === number ? marks.card : null;
  if (card && card.destination === "bonus") return ["next-card bonus-due", "NEXT: BONUS CARD"];
  if (card) return ["next-card", `NEXT CARD: ${card.face.toUpperCase()}`];
  return marks.bonus.includes(number) ? ["bonus-due", "BONUS CARD DUE"] : null;
}

// On the dealer's page a seat tile opens the seat's sheet (a tap, or Enter from the keyboard).
const SEAT_TAP = ROLE === "dealer" ? { tabindex: "0", role: "button" } : {};

function seatNode(number, seat, marks) {
  if (!seat) {
    return el("li", { class: "seat empty", "data-pos": number, "aria-label": `seat ${number}, empty`, ...SEAT_TAP },
      el("h3", {}, el("span", { class: "num", text: `Seat ${number}` }), el("span", { text: "empty" })));
  }
  const classes = ["seat"];
  if (seat.to_act) classes.push("acts");
  if (seat.folded) classes.push("folded");
  const mark = seatMark(number, marks);
  if (mark) classes.push(mark[0]);
  const status = seat.to_act ? "TO ACT" : seat.folded ? "FOLDED" : seat.all_in ? "ALL-IN"
    : seat.mucked ? "MUCKED" : seat.sitting_out ? "SITTING OUT" : "";
  const label = `seat ${number}, ${seat.player}${mark ? `, ${mark[1].toLowerCase()}` : ""}`;
  const node = el("li", { class: classes.join(" "), "data-pos": number, "data-seat": number, "aria-label": label, ...SEAT_TAP },
    mark ? el("p", { class: "mark", "aria-hidden": "true", text: mark[1] }) : null,
    el("h3", {}, el("span", { class: "num", text: `Seat ${number}` }), el("span", { text: seat.player })),
    el("div", { class: "money" }, el("span", { text: `Stack ${seat.stack}` }), seat.bet ? el("span", { class: "bet", text: `Bet ${seat.bet}` }) : null),
    el("div", { class: "state" + (seat.all_in ? " all-in" : ""), text: status }),
    el("div", { class: "cards" }, ...seat.cards.map(cardNode)));
  if (seat.shown) {
    const best = seat.shown.best.map((played) => played.card).join(" ");
    node.append(el("p", { class: "shown", text: `${seat.shown.description}: ${best}` }));
  }
  return node;
}

function choiceLabel(choice, seat, next) {
  const bet = seat ? seat.bet : 0;
  switch (choice.do) {
    case "bring_in": return `Bring in ${choice.to}`;
    case "complete": return `Complete to ${choice.to}`;
    case "check": return "Check";
    case "call": return `Call ${choice.to - bet}`;
    case "bet": return `Bet ${choice.to}`;
    case "raise": return `Raise to ${choice.to}`;
    case "fold": return "Fold";
    case "bonus": return choice.accept ? `Accept bonus card${next.price ? ` for ${next.price}` : ""}` : "Decline bonus card";
    case "show": return "Show";
    case "muck": return "Muck";
    default: return choice.do;
  }
}

// Ask to confirm ``text``; ``action`` if confirmed. ``moment``: what the question was asked
// about ({hand} or {hand, step}): when the table moves on from it meanwhile, the question is
// withdrawn (and the server refuses a decision sent for a moment past).
// Confirm takes a tap only after ARM_MS, like a decision: the second touch of a double tap
// on the button that asked does not confirm.
function confirmThen(text, action, moment) {
  const dialog = $("confirm");
  const ok = $("confirm-ok");
  $("confirm-text").textContent = text;
  dialog.returnValue = "";
  state.confirming = moment ? { text, ...moment } : null;
  dialog.onclose = () => {
    state.confirming = null;
    if (dialog.returnValue === "ok") action();
  };
  ok.disabled = true;
  dialog.showModal();
  const asked = dialog.onclose;
  setTimeout(() => {
    if (!dialog.open || dialog.onclose !== asked) return;
    ok.disabled = false;
    ok.focus();
  }, ARM_MS);
}

function withdrawStale(view) {
  const asked = state.confirming;
  if (!asked || !$("confirm").open) return;
  const moved = asked.hand !== view.hand_number || (asked.step !== undefined && asked.step !== view.step);
  if (!moved) return;
  $("confirm").close("stale");
  say(`The table moved on: "${asked.text}" was not sent. Look at the table and decide again.`);
}

// The decision buttons of the moment the view shows (none while the table is paused: the
// table takes no decision then, only the remedies). A moment not drawn before (a new hand,
// step or seat) is drawn arming: the buttons disabled and flashing for ARM_MS, then armed;
// the same moment drawn again (another update) keeps its time. Once one of them is sent,
// the moment's buttons take no more taps (again if the table refuses it).
function renderChoices(view) {
  const box = $("choice-buttons");
  const hadFocus = box.contains(document.activeElement);
  const next = view.next;
  const seatNumber = !view.paused && next && next.kind !== "card" ? next.seat : null;
  const seat = view.seats.find((s) => s.seat === seatNumber);
  const toAct = $("to-act");
  toAct.textContent = view.paused ? "Table paused: no decision until the alert is resolved"
    : seat ? `Seat ${seat.seat} (${seat.player}) to act`
    : view.in_hand ? "No decision due: deal the next card" : "No hand in progress";
  toAct.classList.toggle("idle", !seat);
  const key = `${view.hand_number}/${view.step}/${seatNumber}`;
  const before = state.drawn;
  if (!before || before.key !== key) {
    state.drawn = { key, seat: seatNumber, at: performance.now(), sent: false, focus: false };
    // another seat's buttons where the last seat's were: the seat line flashes too
    $("choices").classList.toggle("new-seat", Boolean(before && seatNumber !== null && before.seat !== seatNumber));
  }
  const drawn = state.drawn;
  drawn.focus ||= hadFocus;
  const buttons = [];
  for (const choice of view.paused ? [] : view.choices) {
    const label = choiceLabel(choice, seat, next);
    const allIn = seat && choice.to !== undefined && choice.to === seat.stack + seat.bet;
    const text = allIn ? `${label} (all-in)` : label;
    const body = { seat: seatNumber, do: choice.do, hand: view.hand_number, step: view.step };
    if (choice.to !== undefined) body.to = choice.to;
    if (choice.accept !== undefined) body.accept = choice.accept;
    const go = async () => {
      if (state.drawn !== drawn || drawn.sent) return;  // the table has moved on, or sent
      drawn.sent = true;
      arm(box, drawn);
      const result = await send("/api/decisions", body, `seat ${seatNumber}: ${text}`);
      if (!result.ok && state.drawn === drawn) {  // refused: the dealer may decide again
        drawn.sent = false;
        arm(box, drawn);
      }
      if (result.ok) {  // its undo, offered a few seconds, while the table is where it left it
        const after = result.data.view;
        state.undo = { seat: seatNumber, do: choice.do, text, hand: after.hand_number, step: after.step, until: performance.now() + UNDO_MS };
        clearTimeout(state.undoTimer);
        state.undoTimer = setTimeout(() => renderUndo(state.view), UNDO_MS);
        renderUndo(state.view);
      }
    };
    const tapped = () => {
      if (!armed(drawn)) return;  // not yet on the screen ARM_MS, or for another moment
      if (choice.do === "fold" || allIn) {
        confirmThen(`Seat ${seatNumber}: ${text}?`, go, { hand: view.hand_number, step: view.step });
      } else go();
    };
    buttons.push(el("button", {
      type: "button",
      class: `choice ${choice.do}`,
      "data-do": choice.do,
      "data-to": choice.to ?? "",
      "data-accept": choice.accept ?? "",
      "data-seat": seatNumber,
      onclick: tapped,
    }, text));
  }
  box.replaceChildren(...buttons);
  arm(box, drawn);
}

// The last decision sent here can be undone, with the supervisor's approval, for UNDO_MS
// and only while the table is still just after it (no card, no other decision since). The
// decision's answer may come before the feed's update of it: a view still before the
// decision keeps the undo for the update to show.
function renderUndo(view) {
  const undo = state.undo;
  const button = $("undo");
  const live = undo && view && view.hand_number === undo.hand && view.step === undo.step && performance.now() < undo.until;
  const before = undo && view && (view.hand_number < undo.hand || (view.hand_number === undo.hand && view.step < undo.step));
  if (!live && !before) state.undo = null;
  button.hidden = !live;
  if (live) button.textContent = `Undo seat ${undo.seat}: ${undo.text}`;
}

// Whether the buttons of ``drawn`` take a tap: still the moment on the screen, shown ARM_MS
// ago, none of them sent.
function armed(drawn) {
  return state.drawn === drawn && !drawn.sent && performance.now() - drawn.at >= ARM_MS;
}

// The buttons of ``drawn`` enabled once armed (a timer until then); the focus back on the
// first one if a decision button had it when they were drawn.
function arm(box, drawn) {
  clearTimeout(state.arming);
  const wait = ARM_MS - (performance.now() - drawn.at);
  box.classList.toggle("arming", wait > 0);
  if (wait <= 0) $("choices").classList.remove("new-seat");
  for (const button of box.children) button.disabled = !armed(drawn);
  if (wait > 0) {
    state.arming = setTimeout(() => { if (state.drawn === drawn) arm(box, drawn); }, wait);
  } else if (drawn.focus && box.firstElementChild && !drawn.sent) {
    drawn.focus = false;
    box.firstElementChild.focus();
  }
}

// New hand is the action to take only when the table says so (its mode "ready": the line
// READY: NEW HAND, or after the house's take "RAKE 3: drop 3, then READY: NEW HAND"); until then it waits, disabled
// and not green, with the reason beside it (a pause above all).
function renderNewHand(view) {
  const ready = view.mode === "ready";
  const button = $("new-hand");
  button.disabled = !ready;
  button.classList.toggle("primary", ready);
  $("new-hand-why").textContent = ready ? ""
    : view.paused ? "Table paused: the alert must be resolved first"
    : `Not yet: ${view.display.toLowerCase()}`;
}

function renderAlerts(view) {
  const list = $("alerts");
  list.replaceChildren(...view.alerts.map((alert) => {
    const actions = el("div", { class: "buttons" });
    for (const remedy of ROLE === "dealer" ? alert.remedies : []) {
      actions.append(el("button", { type: "button", class: "small", "data-remedy": remedy,
        onclick: () => openSupervisor("resolve", alert.id, remedy) }, REMEDY_WORDS[remedy] ?? remedy));
    }
    if (ROLE === "dealer" && alert.kind === "unread_card") {
      actions.append(el("button", { type: "button", class: "small", onclick: () => openSupervisor("enter-card") }, "Enter the card"));
    }
    if (ROLE === "dealer" && !alert.acknowledged_by) {
      actions.append(el("button", { type: "button", class: "small", "aria-label": `Acknowledge alert ${alert.id}`,
        onclick: () => send(`/api/alerts/${alert.id}/acknowledge`, {}, `alert ${alert.id} acknowledged`) }, "Acknowledge"));
    }
    const seen = alert.acknowledged_by ? `acknowledged by ${alert.acknowledged_by}${alert.blocking ? ": still paused until resolved" : ""}` : "";
    if (!state.heard.has(alert.id)) {  // raised (or first seen): its severity's sound
      state.heard.add(alert.id);
      sound(alert.severity);
    }
    const watch = !alert.acknowledged_by || alert.blocking ? { "data-watch": "", "data-at": alert.raised_at } : {};
    return el("li", { class: `alert ${alert.severity}${seen ? " acknowledged" : ""}`, "data-alert": alert.id, ...watch },
      el("p", { class: "sev" }, `${SEVERITY_WORDS[alert.severity] ?? alert.severity}${alert.blocking ? " · table paused" : ""}`,
        el("span", { class: "age", "data-at": alert.raised_at, text: age(alert.raised_at) })),
      el("p", { class: "what", text: alert.message }),
      el("p", { class: "remedy", text: alert.remedy }),
      seen ? el("p", { class: "seen", text: seen }) : null,
      actions.childElementCount ? actions : null);
  }));
  escalate();
  const select = $("supervisor-form")?.alert;
  select?.replaceChildren(...view.alerts.map((alert) => el("option", { value: alert.id, text: alert.message })));
}

// How long ago an alert was raised ("just now", "2 min", "1 h 5 min"), kept fresh.
function age(at) {
  const minutes = Math.floor(Math.max(0, Date.now() - at) / 60000);
  if (minutes < 1) return "just now";
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

setInterval(() => {
  for (const node of document.querySelectorAll(".alert .age, .request .age")) node.textContent = age(Number(node.dataset.at));
  escalate();
}, 1000);

// An alert open longer than the house's `[console] escalate_after` (not acknowledged, or
// still pausing the table) is shown escalated, in the fault's red, and sounds again once.
function escalate() {
  if (!state.escalateAfter) return;
  for (const node of document.querySelectorAll(".alert[data-watch]")) {
    if (Date.now() - Number(node.dataset.at) < state.escalateAfter * 1000) continue;
    node.classList.add("escalated");
    if (!state.heard.has(`e${node.dataset.alert}`)) {
      state.heard.add(`e${node.dataset.alert}`);
      sound("escalated");
    }
  }
}

// The sounds, generated (no files): each alert's severity its own, the bonus card's chime,
// a request to the supervisor. [start (s), pitch (Hz), length (s), wave].
const SOUNDS = {
  bonus: [[0, 880, 0.3, "sine"], [0.18, 1320, 0.3, "sine"]],
  fault: [[0, 660, 0.16, "square"], [0.22, 440, 0.16, "square"], [0.44, 660, 0.16, "square"], [0.66, 440, 0.16, "square"]],
  abnormal: [[0, 587, 0.25, "triangle"], [0.4, 587, 0.25, "triangle"]],
  action: [[0, 523, 0.14, "sine"], [0.16, 659, 0.14, "sine"], [0.32, 784, 0.22, "sine"]],
  escalated: [[0, 880, 0.12, "square"], [0.15, 880, 0.12, "square"], [0.3, 880, 0.12, "square"], [0.6, 440, 0.3, "square"]],
  request: [[0, 784, 0.14, "sine"], [0.16, 523, 0.22, "sine"]],
};
const BONUS_REPEAT_MS = 2500;

function sound(name) {
  state.sounds.push(name);
  try {
    const audio = state.audio ||= new AudioContext();
    for (const [at, pitch, length, wave] of SOUNDS[name] ?? []) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.type = wave;
      tone.frequency.value = pitch;
      gain.gain.setValueAtTime(0.2, audio.currentTime + at);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + at + length);
      tone.connect(gain).connect(audio.destination);
      tone.start(audio.currentTime + at);
      tone.stop(audio.currentTime + at + length);
    }
  } catch (error) {
    // no audio on this screen: the colour says it
  }
}

// The bonus card's chime: once where it is only seen; on the dealer's page again every
// BONUS_REPEAT_MS until the offer is decided and the card dealt (the line leaves BONUS).
function bonusChime(bonus) {
  if (bonus && !BONUS_MODES.includes(state.mode)) sound("bonus");
  if (bonus && ROLE === "dealer" && !state.bonusChime) {
    state.bonusChime = setInterval(() => sound("bonus"), BONUS_REPEAT_MS);
  } else if (!bonus && state.bonusChime) {
    clearInterval(state.bonusChime);
    state.bonusChime = null;
  }
}

// --- surveillance: the past hands, from the journal ------------------------------------

// The newest page of hands (the server reads it from the journal's index, however old the
// journal); "Earlier hands" adds the page before the oldest one shown.
async function loadPast(before = null) {
  const list = $("past-list");
  const asked = ++state.pastAsked;
  if (!list.childElementCount) list.replaceChildren(el("li", { class: "reading", text: "reading the journal" }));
  const result = await get(before === null ? "/api/history" : `/api/history?before=${before}`);
  if (asked !== state.pastAsked) return;  // a later reading was asked for: it shows
  if (!result.ok) {
    list.replaceChildren(el("li", { class: "error", text: result.reason }));
    return;
  }
  const shown = before === null ? [] : [...list.querySelectorAll("li.past")];
  const items = result.data.slice().reverse().map((hand) => {
    const named = (seat) => `${(hand.players || {})[seat] ?? "?"} (seat ${seat})`;
    const won = hand.winners.length ? ` → ${hand.winners.map(named).join(", ")}` : "";
    const what = hand.ended === "in progress" ? "in progress" : hand.phase === "void" ? "void" : `pot ${hand.pot}${won}`;
    const players = hand.seats.map(named).join(", ");
    return el("li", { class: "past" }, el("button", { type: "button", class: "small past-hand", "data-hand": hand.hand,
      onclick: () => showHand(hand.hand) }, `Hand ${hand.hand} · ${what}`, el("span", { class: "players", text: players })));
  });
  const oldest = result.data.length ? result.data[0].hand : null;
  const more = oldest !== null && oldest > 1
    ? [el("li", { class: "earlier" }, el("button", { type: "button", class: "small past-earlier",
        onclick: () => loadPast(oldest) }, "Earlier hands"))]
    : [];
  list.replaceChildren(...shown, ...items, ...more);
}

async function showHand(number) {
  const result = await get(`/api/history/${number}`);
  $("hand-title").textContent = `Hand ${number}`;
  $("hand-times").textContent = result.ok ? `${result.data.started} to ${result.data.ended}` : "";
  $("hand-history").textContent = result.ok ? result.data.history : result.reason;
  $("hand-dialog").showModal();
}

// The last events, newest first, as this role's own feed told them (the server words each
// one for the role: a card the role may not see is never named).
function addEvents(events) {
  const told = (events || []).filter((event) => !SIGNALS.includes(event.kind));
  for (const event of told) state.events.unshift(event);
  state.events.length = Math.min(state.events.length, EVENTS_KEPT);
  $("events").replaceChildren(...state.events.map((event) =>
    el("li", { "data-kind": event.kind, text: event.message })));
}

// The link to the table service lost: the whole page says so, and nothing on it takes a
// tap (the main part and the side panel inert, the dealer's open dialogs closed) until the
// feed is back; a dialog for the PIN (the sign-in, the lock) stays, as it needs no link.
function offline(lost) {
  document.body.dataset.live = lost ? "false" : "true";
  document.body.classList.toggle("offline", lost);
  $("offline").hidden = !lost;
  for (const node of [document.querySelector(".bar"), $("main"), $("side")]) node.inert = lost;
  if (!lost) return;
  for (const id of ["confirm", "seat-sheet", "supervisor-dialog", "studio-dialog", "hand-dialog"]) {
    const dialog = $(id);
    if (dialog && dialog.open) dialog.close("offline");
  }
}

function render(view) {
  const handChanged = !state.view || state.view.hand_number !== view.hand_number || state.view.in_hand !== view.in_hand;
  state.view = view;
  if (ROLE === "surveillance" && handChanged) loadPast();
  offline(false);
  $("hand-number").textContent = view.hand_number ? `Hand ${view.hand_number}` : "No hand yet";
  $("no-tag-checks").hidden = view.tag_checks !== false || VIEWERS.includes(ROLE);
  $("street").textContent = view.in_hand ? STREETS[view.street] || "" : view.phase === "void" ? "hand void" : view.phase === "complete" ? "hand over" : "between hands";
  const blocking = view.alerts.find((alert) => alert.blocking);
  const pauseColour = blocking ? ` ${blocking.severity}-bg` : "";
  const paused = $("paused");
  paused.hidden = !view.paused;
  paused.className = "pause-banner" + pauseColour;

  const next = $("next");
  next.textContent = view.display;
  // the dealer's line is coloured by its mode; the broadcast line is plain, as it always was
  const mode = VIEWERS.includes(ROLE) ? "" : view.mode;
  const bonus = BONUS_MODES.includes(mode);
  const kind = bonus ? " bonus" : mode === "betting" ? " betting"
    : mode === "paused" ? pauseColour : "";
  next.className = "next-line" + kind + (view.display.length > 32 ? " long" : "");
  bonusChime(bonus);
  state.mode = mode;

  const bySeat = new Map(view.seats.map((seat) => [seat.seat, seat]));
  if (ROLE === "dealer") for (const seat of view.seats) if (!recent("players").includes(seat.player)) remember("players", seat.player, 12);
  const marks = seatMarks(view);
  if (VIEWERS.includes(ROLE)) marks.card = null;  // a viewer is not told where a card goes
  const ring = [];
  for (let number = 1; number <= SEATS; number++) ring.push(seatNode(number, bySeat.get(number), marks));
  $("ring").replaceChildren(...ring);

  const community = $("community");
  community.hidden = !view.community;
  community.replaceChildren(...(view.community ? ["Community ", cardNode({ card: view.community, face: "up" })] : []));
  const named = (number) => bySeat.get(number)?.player ?? `seat ${number}`;
  const pots = view.pots.map((pot, index) => el("div", { class: index ? "side-pot" : "main-pot" },
    index ? `Side pot ${index}: ${pot.amount}` : `${view.pots.length > 1 ? "Main pot" : "Pot"} ${pot.amount}`,
    pot.winners && pot.winners.length ? ` to ${pot.winners.map(named).join(" and ")}` : ""));
  $("pots").replaceChildren(...pots);

  if (ROLE === "dealer") {
    withdrawStale(view);
    renderChoices(view);
    renderUndo(view);
    $("between").hidden = view.in_hand;
    $("misdeal").hidden = !view.in_hand;
    renderNewHand(view);
    if ($("seat-sheet").open) showSeat();
  }
  if ($("alerts")) renderAlerts(view);
}

// --- the supervisor ------------------------------------------------------------------

// The fields of the action chosen (and only those required); Apply only once an action
// is chosen, red for what cannot be undone (a void, a studio token revoked). The
// supervisor's dialog and the studio's.
const DANGEROUS = ["void", "revoke"];

function showFields(form) {
  const action = form.elements.act.value;
  for (const label of form.querySelectorAll("label[data-for]")) {
    label.hidden = !label.dataset.for.split(" ").includes(action);
    for (const input of label.querySelectorAll("input, select")) input.required = !label.hidden;
  }
  const apply = form.querySelector("button[type=submit]");
  apply.disabled = !action;
  const ask = form.querySelector("#supervisor-ask");
  if (ask) ask.disabled = !action;
  apply.className = DANGEROUS.includes(action) ? "danger" : action ? "primary" : "";
  const presets = form.querySelector(".presets");
  if (presets) {
    presets.replaceChildren(...(REASONS[action] || []).map((reason) => el("button", {
      type: "button", class: "small preset", "aria-pressed": String(form.why.value === reason),
      onclick: () => {
        form.why.value = reason;
        showFields(form);
        (form.pin.value ? apply : form.supervisor.value ? form.pin : form.supervisor).focus();
      },
    }, reason)));
  }
  // the keys of the first field still to fill
  const empty = [...form.querySelectorAll("input[data-keys]")].find((input) => input.offsetParent && !input.value);
  if (empty) showKeys(empty);
}

// The dialog opens with no action chosen, unless an alert's button names one.
function openSupervisor(action = "", alert, remedy) {
  const form = $("supervisor-form");
  form.reset();
  form.elements.act.value = action;
  if (alert !== undefined) form.alert.value = alert;
  if (remedy !== undefined) form.remedy.value = remedy;
  form.querySelector(".error").textContent = "";
  // the supervisor who last approved at this console, pre-filled (the PIN never is)
  form.supervisor.value = localStorage.getItem("last-supervisor") || "";
  showFields(form);
  $("supervisor-dialog").showModal();
  const first = [...form.querySelectorAll("input[data-keys]")].find((input) => input.offsetParent && !input.value);
  (action ? first || form.why : form.elements.act).focus();
}

function supervisorBody(form, action) {
  const body = { supervisor: form.supervisor.value, pin: form.pin.value, why: form.why.value };
  if (action === "void") body.hand = state.view.hand_number;
  if (action === "enter-card") body.card = form.card.value;
  if (action === "correct-card") Object.assign(body, { wrong: form.wrong.value, right: form.card.value });
  if (action === "wrong-face") Object.assign(body, { seat: Number(form.seat.value), card: form.card.value });
  if (action === "resolve") Object.assign(body, { alert: Number(form.alert.value), remedy: form.remedy.value });
  if (action === "correct-stack") Object.assign(body, { seat: Number(form.seat.value), stack: Number(form.stack.value) });
  return body;
}

async function supervise(form, action, body) {
  const result = await checking(form, () => api(`/api/supervisor/${action}`, body));
  form.pin.value = "";
  if (!result.ok) {
    form.querySelector(".error").textContent = result.reason;
    showFields(form);
    return;
  }
  $("supervisor-dialog").close();
  localStorage.setItem("last-supervisor", body.supervisor);
  const done = $("supervisor-form").querySelector(`option[value="${action}"]`)?.textContent ?? action;
  say(`Done: ${done.toLowerCase()}`, true);
}

// --- requests to the supervisor ------------------------------------------------------

// A remedy asked for at the table waits (the feed's "requests" message, on the dealer's
// and surveillance's pages) until a supervisor approves it with their PIN, here or on the
// surveillance page, or someone cancels it; it expires after 5 minutes.
function describe(request) {
  const body = request.body;
  const facts = [];
  if (body.card) facts.push(body.wrong ? `${body.wrong} is ${body.card}` : body.card);
  if (body.seat) facts.push(`seat ${body.seat}${body.do ? ` ${body.do.replace("_", " ")}` : ""}`);
  if (body.place) facts.push(placed(body));
  if (body.remedy) facts.push(REMEDY_WORDS[body.remedy] ?? body.remedy);
  if (body.stack !== undefined) facts.push(`stack ${body.stack}`);
  if (body.hand) facts.push(`hand ${body.hand}`);
  const what = ACTION_WORDS[request.action] ?? request.action;
  // two-person control: approved once, it waits for another supervisor's approval
  const once = request.approved_by ? `. Approved by ${request.approved_by}: a second supervisor must approve` : "";
  return `${what}${facts.length ? ` (${facts.join(", ")})` : ""}${body.why ? `: ${body.why}` : ""}${once}`;
}

// A card asked for by its place among a seat's cards: named where this page sees it
// (surveillance), else by its place.
function placed(body) {
  const seat = state.view && state.view.hand_number === body.hand
    ? state.view.seats.find((held) => held.seat === body.seat) : null;
  const card = seat && seat.cards[body.place - 1];
  return card && card.card ? `card ${body.place}, ${card.card}` : `card ${body.place}`;
}

function renderRequests(requests) {
  const known = new Set((state.requests || []).map((request) => request.id));
  state.requests = requests;
  $("requests-section").hidden = !requests.length;
  $("requests").replaceChildren(...requests.map((request) => {
    const buttons = el("div", { class: "buttons" });
    if (request.action !== "call") {
      buttons.append(el("button", { type: "button", class: "small primary", "data-approve": request.id,
        onclick: () => openApprove(request) }, ROLE === "dealer" ? "Approve here" : "Approve"));
    }
    const cancel = ROLE === "dealer" ? "Cancel" : request.action === "call" ? "Answered" : "Refuse";
    buttons.append(el("button", { type: "button", class: "small", "data-cancel": request.id,
      onclick: () => cancelRequest(request) }, cancel));
    return el("li", { class: "request", "data-request": request.id },
      el("p", { class: "what" }, `${describe(request)} · asked by ${request.asked_by}, `,
        el("span", { class: "age", "data-at": request.asked_at * 1000, text: age(request.asked_at * 1000) })),
      buttons);
  }));
  if (ROLE === "surveillance" && requests.some((request) => !known.has(request.id))) sound("request");
  const open = $("approve-form");
  if ($("approve-dialog").open && !requests.some((request) => request.id === Number(open.dataset.request))) {
    $("approve-dialog").close();  // approved, cancelled or expired meanwhile
  }
}

function openApprove(request) {
  const form = $("approve-form");
  form.reset();
  forgetBadge(form);
  form.dataset.request = request.id;
  form.querySelector(".error").textContent = "";
  $("approve-what").textContent = `${describe(request)}. Asked by ${request.asked_by}.`;
  $("approve-ok").className = request.action === "void" ? "danger" : "primary";
  // surveillance: the supervisor signed in approves; at the table, the last one pre-filled
  form.supervisor.value = ROLE === "surveillance" ? state.who : localStorage.getItem("last-supervisor") || "";
  form.supervisor.readOnly = ROLE === "surveillance";
  $("approve-dialog").showModal();
  (form.supervisor.value ? form.pin : form.supervisor).focus();
}

async function cancelRequest(request) {
  const result = await api(`/api/requests/${request.id}/cancel`);
  if (!result.ok) say(result.reason);
}

async function askSupervisor(action, body) {
  const result = await api("/api/requests", { action, body });
  if (result.ok) say(`Asked the supervisor: ${(ACTION_WORDS[action] ?? action).toLowerCase()}`, true);
  else say(result.reason);
  return result;
}

function wireRequests() {
  $("approve-cancel").addEventListener("click", () => $("approve-dialog").close());
  $("approve-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.target;
    const badge = form.dataset.badge;
    const body = badge ? { badge: Number(badge), pin: form.pin.value }
      : { supervisor: form.supervisor.value, pin: form.pin.value };
    const result = await checking(form, () => api(`/api/requests/${form.dataset.request}/approve`, body));
    form.pin.value = "";
    if (!result.ok) {
      form.querySelector(".error").textContent = result.reason;
      return;
    }
    forgetBadge(form);
    $("approve-dialog").close();
    if (ROLE === "dealer" && !badge) localStorage.setItem("last-supervisor", body.supervisor);
    say(result.data.approved_by ? "Approved once: a second supervisor must approve" : "Approved", true);
  });
}

// --- badges at the console's reader ----------------------------------------------------
// A badge shown to the console's reader (GET /api/badge: its tap's number and kind, never
// whose it is) stands for the id in the dialog open for its kind: a dealer's at the sign-in,
// a supervisor's at an approval. The PIN is still typed on the keys: a badge alone signs no
// one in (docs/console.md, "Badges").
const BADGE_FORMS = [
  { kind: "dealer", dialog: "sign-in", form: "sign-in-form", field: "dealer" },
  { kind: "supervisor", dialog: "approve-dialog", form: "approve-form", field: "supervisor" },
  { kind: "dealer", dialog: "push-dialog", form: "push-form", field: "dealer" },
];
const BADGE_POLL = 1000;  // ms between two looks at the reader's latest tap

async function watchBadges() {
  const first = await fetch("/api/badge").catch(() => null);
  if (!first || first.status === 404) return;  // no badge reader at this console
  let seen = (await first.json().catch(() => null))?.tap ?? 0;  // one shown before: stale
  setInterval(async () => {
    const result = await get("/api/badge");
    if (!result.ok || !result.data || result.data.tap === seen) return;
    seen = result.data.tap;
    badgeShown(result.data);
  }, BADGE_POLL);
}

function badgeShown(tap) {
  const open = BADGE_FORMS.find((entry) => $(entry.dialog).open);
  if (!open) return;
  const form = $(open.form);
  if (tap.kind !== open.kind) {
    form.querySelector(".error").textContent =
      tap.kind === null ? "This badge is not registered" : `Not a ${open.kind}'s badge`;
    return;
  }
  const field = form.elements[open.field];
  form.dataset.badge = String(tap.tap);
  field.value = "";
  field.required = false;
  field.readOnly = true;
  field.placeholder = "badge";
  form.querySelector(".error").textContent = "Badge read: enter the PIN";
  form.pin.focus();
}

function forgetBadge(form) {
  if (!form.dataset.badge) return;
  delete form.dataset.badge;
  const entry = BADGE_FORMS.find((candidate) => candidate.form === form.id);
  const field = form.elements[entry.field];
  field.required = true;
  field.readOnly = entry.kind === "supervisor" && ROLE === "surveillance";
  field.placeholder = "";
}

// --- surveillance: the studio's tokens --------------------------------------------------

// A supervisor signed in to surveillance issues a studio token (shown this once, as the
// overlay's addresses for OBS), lists the tokens that hold (never a token) and revokes
// one; each action with a supervisor's id and PIN, as every supervisor action.
function when(seconds) {
  const time = new Date(seconds * 1000);
  const clock = time.toTimeString().slice(0, 5);
  return time.toDateString() === new Date().toDateString() ? clock
    : `${time.toLocaleDateString("en-GB", { weekday: "short" })} ${clock}`;
}

async function loadStudioTokens() {
  const list = $("studio-list");
  const result = await get("/api/studio-tokens");
  if (!result.ok) {
    list.replaceChildren(el("li", { class: "error", text: result.reason }));
    return;
  }
  const form = $("studio-form");
  const chosen = form.token.value;
  form.token.replaceChildren(...result.data.map((held) =>
    el("option", { value: held.id, text: `${held.label} (${held.id})` })));
  if (result.data.some((held) => held.id === chosen)) form.token.value = chosen;
  list.replaceChildren(...result.data.map((held) => {
    const at = held.by === held.supervisor ? "" : ` at ${held.by}'s session`;
    return el("li", { class: "studio-token", "data-id": held.id },
      el("p", { class: "studio-label" }, el("strong", { text: held.label }),
        el("span", { class: "studio-id", text: ` id ${held.id}` })),
      el("p", { class: "studio-when", text: `issued ${when(held.issued)} by ${held.supervisor}${at}; expires ${when(held.expires)}` }),
      el("button", { type: "button", class: "small danger", "aria-label": `Revoke ${held.label} (${held.id})`,
        onclick: () => chooseRevoke(held.id) }, "Revoke"));
  }));
  if (!result.data.length) list.replaceChildren(el("li", { class: "none", text: "No studio token holds." }));
}

// A token's Revoke button: the action chosen, with that token.
function chooseRevoke(id) {
  const form = $("studio-form");
  form.elements.act.value = "revoke";
  form.token.value = id;
  form.querySelector(".error").textContent = "";
  showFields(form);
  form.why.focus();
}

function openStudio() {
  const form = $("studio-form");
  form.reset();
  form.supervisor.value = state.who || "";
  form.querySelector(".error").textContent = "";
  $("studio-done").textContent = "";
  showFields(form);
  loadStudioTokens();
  $("studio-dialog").showModal();
  form.elements.act.focus();
}

// The new token, shown this once: the overlay's address and the transparent one.
function showIssued(issued) {
  const address = `${location.origin}/studio?token=${encodeURIComponent(issued.token)}`;
  $("studio-issued-title").textContent = `Token for ${issued.label}: shown this once`;
  $("studio-issued-note").textContent = `id ${issued.id}, expires ${when(issued.expires)}. `
    + "Copy an address into OBS's browser source (1920x1080 or 1280x720) now: the token is not shown again.";
  $("studio-url").value = address;
  $("studio-url-transparent").value = `${address}&transparent=1`;
  $("studio-copied").textContent = "";
  $("studio-issued").hidden = false;
}

function forgetIssued() {
  $("studio-issued-title").textContent = "New token";
  $("studio-issued-note").textContent = "";
  $("studio-url").value = "";
  $("studio-url-transparent").value = "";
  $("studio-copied").textContent = "";
  $("studio-issued").hidden = true;
}

async function copyAddress(area) {
  area.select();
  try {
    await navigator.clipboard.writeText(area.value);
  } catch (error) {
    document.execCommand("copy");  // no clipboard API (a page not served over HTTPS)
  }
  $("studio-copied").textContent = "Copied: paste it into the browser source's URL.";
}

async function studioAction(event) {
  event.preventDefault();
  const form = event.target;
  const action = form.elements.act.value;
  if (!action) return;
  const body = { supervisor: form.supervisor.value, pin: form.pin.value, why: form.why.value };
  if (action === "issue") body.label = form.label.value;
  const path = action === "issue" ? "/api/studio-tokens" : `/api/studio-tokens/${encodeURIComponent(form.token.value)}/revoke`;
  const result = await checking(form, () => api(path, body));
  form.pin.value = "";
  if (!result.ok) {
    form.querySelector(".error").textContent = result.reason;
    showFields(form);
    return;
  }
  forgetIssued();
  if (action === "issue") showIssued(result.data);
  $("studio-done").textContent = action === "issue" ? `Issued: ${result.data.label}.`
    : `Revoked: ${result.data.label} (${result.data.id}). Its overlays are refused within a second.`;
  form.elements.act.value = "";
  form.label.value = "";
  form.why.value = "";
  showFields(form);
  await loadStudioTokens();
}

function wireStudio() {
  $("studio-tokens").addEventListener("click", openStudio);
  const form = $("studio-form");
  form.elements.act.addEventListener("change", () => showFields(form));
  form.addEventListener("submit", studioAction);
  const forget = () => {  // the token leaves the page with the dialog (Close, Escape)
    forgetIssued();
    form.pin.value = "";
  };
  $("studio-close").addEventListener("click", () => {
    forget();
    $("studio-dialog").close();
  });
  $("studio-dialog").addEventListener("close", forget);
  $("studio-copy").addEventListener("click", () => copyAddress($("studio-url")));
  $("studio-copy-transparent").addEventListener("click", () => copyAddress($("studio-url-transparent")));
}

// --- the seat sheet ----------------------------------------------------------------------

// A tap on a seat opens its sheet: for a player, Cash out (asks first), Sit out or Sit in,
// Rebuy (chips from the number keys) and Change seat (a free seat, the stack kept); for an
// empty seat, Sit down (a recent player or a name from the letter keys, the buy-in from the
// number keys). The table says when a change must wait for the hand's end: its reason shows.
const sheet = { seat: null, mode: null, to: null };
const SEAT_MODES = { sit: "Sit down", rebuy: "Rebuy", move: "Change seat" };

function openSeat(number) {
  if (!state.view || document.body.classList.contains("offline")) return;
  Object.assign(sheet, { seat: number, mode: null, to: null, opened: performance.now() });
  const form = $("seat-form");
  form.reset();
  form.querySelector(".error").textContent = "";
  showSeat();
  $("seat-sheet").showModal();
  focusSeatEntry();
}

function seatMode(mode) {
  Object.assign(sheet, { mode, to: null });
  $("seat-form").querySelector(".error").textContent = "";
  showSeat();
  focusSeatEntry();
}

function focusSeatEntry() {
  const form = $("seat-form");
  const field = sheet.mode === "sit" ? form.player : sheet.mode === "rebuy" ? form.chips : null;
  (field || form.querySelector("#seat-acts button, #free-seats button, #seat-close")).focus();
}

// The sheet as the table is now (drawn again with every update while it is open).
function showSeat() {
  const view = state.view;
  const form = $("seat-form");
  const number = sheet.seat;
  const seat = view.seats.find((held) => held.seat === number);
  if (!seat) sheet.mode = "sit";  // empty, or the player left meanwhile
  else if (sheet.mode === "sit") sheet.mode = null;  // seated meanwhile (another console)
  $("seat-title").textContent = seat ? `Seat ${number}: ${seat.player}` : `Seat ${number}: empty`;
  $("seat-facts").textContent = seat
    ? `Stack ${seat.stack}${seat.sitting_out ? ", sitting out" : ""}${view.in_hand && seat.cards.length ? ", in this hand" : ""}`
    : "Sit a player down: the name, then the buy-in.";
  const act = (mode, text, onclick, extra = "") => el("button", { type: "button", class: `small${extra}`,
    "aria-pressed": String(sheet.mode === mode), onclick }, text);
  $("seat-acts").replaceChildren(...(seat ? [
    act("leave", "Cash out", () => confirmThen(`Cash out ${seat.player}: ${seat.stack} chips, and free seat ${number}?`,
      () => seatSend(`/api/seats/${number}/leave`, {}, `${seat.player} cashed out ${seat.stack}`)), " danger"),
    seat.sitting_out
      ? act("in", "Sit in", () => seatSend(`/api/seats/${number}/sit_in`, {}, `${seat.player} is dealt in from the next hand`))
      : act("out", "Sit out", () => seatSend(`/api/seats/${number}/sit_out`, {}, `${seat.player} sits out from the next hand`)),
    act("rebuy", "Rebuy", () => seatMode("rebuy")),
    act("move", "Change seat", () => seatMode("move")),
  ] : []));
  const errors = seatErrors(view, number, seat);
  $("seat-errors-box").hidden = !errors.length;
  $("seat-errors").replaceChildren(...errors);
  $("seat-entry").hidden = !sheet.mode;
  for (const part of form.querySelectorAll("[data-for]")) part.hidden = !part.dataset.for.split(" ").includes(sheet.mode);
  const seated = new Set(view.seats.map((held) => held.player));
  $("recent-players").replaceChildren(...recent("players").filter((name) => !seated.has(name)).slice(0, 6)
    .map((name) => el("button", { type: "button", class: "small", onclick: () => {
      form.player.value = name;
      showSeat();
      form.chips.focus();
    } }, name)));
  const taken = new Set(view.seats.map((held) => held.seat));
  $("free-seats").replaceChildren(...Array.from({ length: SEATS }, (_, index) => index + 1)
    .filter((free) => !taken.has(free))
    .map((free) => el("button", { type: "button", class: "seat-choice", "aria-pressed": String(sheet.to === free),
      onclick: () => { sheet.to = free; showSeat(); $("seat-apply").focus(); } }, `Seat ${free}`)));
  const apply = $("seat-apply");
  apply.hidden = !sheet.mode;
  apply.textContent = sheet.mode === "move" && sheet.to ? `Move to seat ${sheet.to}`
    : sheet.mode === "sit" && form.player.value.trim() && form.chips.value ? `Sit ${form.player.value.trim()} down with ${form.chips.value}`
    : sheet.mode === "rebuy" && form.chips.value ? `Rebuy ${form.chips.value}` : SEAT_MODES[sheet.mode] ?? "Apply";
  apply.disabled = sheet.mode === "move" ? !sheet.to
    : sheet.mode === "sit" ? !form.player.value.trim() || !(Number(form.chips.value) > 0)
    : !(Number(form.chips.value) > 0);
}

// During a hand, each card of a player still in it that may lie with the wrong face, as a
// button: a hole card (a back here: the dealer does not see it) that lies face up, an up card
// that was dealt face down. One tap asks the supervisor (wrong-face, the card by its place);
// the table applies the stud rules once approved (docs/rules.md, "Corrections").
function seatErrors(view, number, seat) {
  if (!view.in_hand || !seat || !seat.in_hand || seat.folded) return [];
  return seat.cards.flatMap((card, index) => {
    const error = card.exposed ? null : card.face === "up" ? "down" : card.card ? null : "exposed";
    if (!error) return [];
    const place = index + 1;
    const words = DEALER_ERRORS[error];
    return [el("button", { type: "button", class: "small dealer-error", "data-place": place, "data-error": error,
      "aria-label": `${words.tap}: ${words.why.toLowerCase()}, seat ${number}'s card ${place}${card.card ? ` (${card.card})` : ""}`,
      onclick: () => askError(number, place, words.why) }, cardNode(card), el("span", { text: words.tap }))];
  });
}

// A tap on a card of the sheet counts once the sheet has been on the screen ARM_MS (the
// second touch of a double tap on the seat does not ask anything).
async function askError(number, place, why) {
  if (performance.now() - sheet.opened < ARM_MS) return;
  const body = { seat: number, place, hand: state.view.hand_number, why };
  const result = await askSupervisor("wrong-face", body);
  if (result.ok) $("seat-sheet").close();
  else $("seat-form").querySelector(".error").textContent = result.reason;
}

async function seatSend(path, body, done) {
  const form = $("seat-form");
  const result = await api(path, body);
  if (!result.ok) {
    form.querySelector(".error").textContent = result.reason;
    return;
  }
  $("seat-sheet").close();
  say(done, true);
}

function seatApply(event) {
  event.preventDefault();
  const form = event.target;
  const number = sheet.seat;
  const seat = state.view.seats.find((held) => held.seat === number);
  const chips = Number(form.chips.value);
  if (sheet.mode === "sit") {
    const player = form.player.value.trim();
    remember("players", player, 12);
    seatSend("/api/seats", { seat: number, player, buy_in: chips }, `${player} sits at seat ${number} with ${chips}`);
  } else if (sheet.mode === "rebuy" && seat) {
    seatSend(`/api/seats/${number}/rebuy`, { chips }, `${seat.player} rebuys ${chips}`);
  } else if (sheet.mode === "move" && seat && sheet.to) {
    seatSend(`/api/seats/${number}/move`, { to: sheet.to }, `${seat.player} moves to seat ${sheet.to}`);
  }
}

function wireSeats() {
  const ring = $("ring");
  ring.addEventListener("click", (event) => {
    const tile = event.target.closest("li.seat");
    if (tile) openSeat(Number(tile.dataset.pos));
  });
  ring.addEventListener("keydown", (event) => {
    const tile = event.target.closest("li.seat");
    if (tile && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      openSeat(Number(tile.dataset.pos));
    }
  });
  const form = $("seat-form");
  form.addEventListener("input", () => showSeat());
  form.addEventListener("submit", seatApply);
  $("seat-close").addEventListener("click", () => $("seat-sheet").close());
}

// --- the idle lock -----------------------------------------------------------------------

// After the table's quiet time (no touch, no key), the dealer's (or surveillance's) session
// ends on the server and the screen locks: only the same person's PIN opens it again (a new
// session, the feed resumed where it stopped); "Another dealer" (or supervisor) goes back to
// the sign-in. The server ends a session unused for its own idle time too ([api] session_idle).
function lock() {
  const token = state.token;
  state.locked = true;
  state.token = null;
  sessionStorage.removeItem(TOKEN_KEY);
  clearTimeout(state.retry);
  const socket = state.socket;
  state.socket = null;
  if (socket) socket.close();
  for (const dialog of document.querySelectorAll("dialog[open]")) dialog.close("locked");
  const supervisor = $("supervisor-form");  // the dealer's page only
  if (supervisor) supervisor.pin.value = "";
  document.body.classList.add("locked");
  $("connection").textContent = "locked";
  showSignOut();
  fetch("/api/sessions", { method: "DELETE", headers: { Authorization: `Bearer ${token}` } }).catch(() => {});
  const form = $("lock-form");
  form.reset();
  form.querySelector(".error").textContent = "";
  $("lock-who").textContent = `Locked after ${state.idleLock} s without a touch. ${state.who}: enter your PIN.`;
  $("lock").showModal();
  form.pin.focus();
}

function unlocked() {
  state.locked = false;
  document.body.classList.remove("locked");
  $("lock").close();
}

// The protections that do not hold with the table's hardware (GET /api/console's
// `lacking`, docs/hardware.md): how many in the bar, each named in its title.
const LACKING_WORDS = {
  read_counter: "no read counter: a card the shoe missed is not counted",
  deck_loaded: "no deck-loaded signal from the shoe: the cut card stands in",
  retag_check: "no optics: a re-tagged card is not caught",
  reject_tray: "no reject tray: an unreadable card is dealt unread",
  backlog: "no backlog: a card crossing a reader while its link is down is unseen",
  seat_checks: "no seat checks: a card switched at a seat or at the wrong seat is not caught",
  player_away: "no seat sensors: a player away is not seen",
};

function showLacking(codes) {
  const node = $("lacking");
  node.hidden = !codes.length;
  node.textContent = `${codes.length} CHECK${codes.length === 1 ? "" : "S"} OFF`;
  const words = codes.map((code) => LACKING_WORDS[code] ?? code).join("; ");
  node.title = `With this hardware: ${words}`;
  node.setAttribute("aria-label", node.title);
}

async function watchIdle() {
  const settings = await get("/api/console");
  if (!settings.ok) return;
  showLacking(settings.data.lacking);
  state.idleLock = settings.data.idle_lock;
  state.escalateAfter = settings.data.escalate_after;
  for (const kind of ["pointerdown", "keydown", "wheel"]) {
    document.addEventListener(kind, () => { state.touched = performance.now(); }, { capture: true, passive: true });
  }
  setInterval(() => {
    if (state.token && !state.locked && performance.now() - state.touched >= state.idleLock * 1000) lock();
  }, 500);
}

// The idle lock of the staff's pages (the dealer's and surveillance's).
function wireLock() {
  $("lock-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.target;
    const body = { role: ROLE, id: state.who, pin: form.pin.value };
    const result = await checking(form, () => api("/api/sessions", body));
    form.pin.value = "";
    if (!result.ok) {
      form.querySelector(".error").textContent = result.reason;
      return;
    }
    signedIn(result.data);
    unlocked();
    connect();
  });
  $("lock").addEventListener("cancel", (event) => event.preventDefault());
  $("lock-other").addEventListener("click", () => {
    unlocked();
    signedOut("signed out: sign in");
  });
  watchIdle();
}

// The dealer's controls: the supervisor's dialog, the lock and the between-hands inputs.
function wireDealer() {
  $("supervisor").addEventListener("click", () => openSupervisor());
  $("supervisor-form").elements.act.addEventListener("change", (event) => showFields(event.target.form));
  $("supervisor-cancel").addEventListener("click", () => $("supervisor-dialog").close());
  // the action as filled in, without the supervisor's id and PIN, waits for a supervisor
  $("supervisor-ask").addEventListener("click", async () => {
    const form = $("supervisor-form");
    const action = form.elements.act.value;
    const missing = [...form.querySelectorAll("label:not([hidden]) :is(input, select)")]
      .find((input) => !["supervisor", "pin", "why"].includes(input.name) && !input.checkValidity());
    if (missing) {
      form.querySelector(".error").textContent = `${missing.closest("label").firstChild.textContent.trim()}: fill it in first`;
      return missing.focus();
    }
    const body = supervisorBody(form, action);
    delete body.supervisor;
    delete body.pin;
    body.why ||= (REASONS[action] || ["Asked at the table"])[0];
    const result = await askSupervisor(action, body);
    if (result.ok) $("supervisor-dialog").close();
    else form.querySelector(".error").textContent = result.reason;
  });
  $("call-supervisor").addEventListener("click", () => askSupervisor("call", {}));
  // a misdeal, asked of the supervisor (a void of this hand), once confirmed
  $("misdeal").addEventListener("click", () => {
    const hand = state.view.hand_number;
    confirmThen(`Misdeal: ask the supervisor to void hand ${hand}?`,
      () => askSupervisor("void", { hand, why: REASONS.void[0] }), { hand });
  });
  $("undo").addEventListener("click", async () => {
    const undo = state.undo;
    if (!undo) return;
    state.undo = null;
    renderUndo(state.view);
    const body = { seat: undo.seat, do: undo.do, hand: undo.hand, step: undo.step, why: REASONS.undo[0] };
    await askSupervisor("undo", body);
  });

  $("supervisor-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target;
    const action = form.elements.act.value;
    if (!action) return;
    const body = supervisorBody(form, action);
    if (action !== "void") return supervise(form, action, body);
    confirmThen(`Void hand ${body.hand}?`, () => supervise(form, action, body), { hand: body.hand });
  });

  wireLock();

  $("new-hand").addEventListener("click", () => send("/api/hands", {}, "new hand"));

  wireSeats();
}

// For diagnostics and the browser tests: the last update shown (its number, and the run of
// the service it is of); drop the connection.
window.consoleSeq = () => state.last ?? -1;
window.consoleEpoch = () => state.epoch;
window.consoleSounds = () => [...state.sounds];
window.consoleBonusChiming = () => state.bonusChime !== null;
window.consoleDrop = () => state.socket && state.socket.close();

// The read-only pages: the dealer's controls taken out of the page.
function asViewer() {
  for (const node of document.querySelectorAll("[data-dealer]")) node.remove();
  if (ROLE !== "surveillance") for (const node of document.querySelectorAll("[data-surveillance]")) node.remove();
  document.body.classList.add("viewer");
  document.title = { public: "Table", player: "Your seat" }[ROLE] ?? "Surveillance";
  $("page-title").textContent = { public: "The table, live", player: "Your seat" }[ROLE] ?? "Surveillance";
  $("side").setAttribute("aria-label", VIEWERS.includes(ROLE) ? "Last events" : "Alerts and events");
  if (VIEWERS.includes(ROLE)) {
    for (const node of document.querySelectorAll("[data-staff]")) node.remove();
  } else {
    $("sign-in-title").textContent = "Surveillance sign-in";
    $("sign-in-id").textContent = "Supervisor id";
    $("lock-other").textContent = "Another supervisor";
  }
}

if (ROLE === "dealer") {
  for (const node of document.querySelectorAll("[data-surveillance]")) node.remove();
  $("ring").setAttribute("role", "group");  // its seats are buttons here, not list items
  wireDealer();
  wireRequests();
  watchBadges();
}
else {
  asViewer();
  if (ROLE === "surveillance") {
    wireStudio();
    wireLock();
    wireRequests();
  }
}
showSignOut();
connect();
