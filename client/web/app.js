// Patience Arena in the browser: lobby, races, watching, replays and tournaments.
//
// The page speaks the server's websocket protocol (docs/protocol.md): MessagePack frames, one
// map each, through the vendored @msgpack/msgpack codec. It holds no rules of its own: every
// board the server sends to its entrant lists the legal moves, and the page offers exactly those.
// Pages: "/" the lobby, "/r/CODE" a race (join, play; a race you are not in is watched),
// "/w/CODE" a race to watch (or replay, once finished), "/t/ID" a tournament.

const { Encoder, Decoder } = window.MessagePack;
const encoder = new Encoder({ useBigInt64: true });
const decoder = new Decoder({ useBigInt64: true });
const PROTOCOL = 1;
const $ = (sel, root = document) => root.querySelector(sel);

// ------------------------------------------------------------------------------ small helpers

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Big integers (seeds) arrive as BigInt; everything that fits a double becomes a number.
function plain(value) {
  if (typeof value === "bigint") {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  }
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === "object" && !(value instanceof Uint8Array)) {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = plain(v);
    return out;
  }
  return value;
}

function clockText(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(total / 60), s = total % 60;
  return `${m}:${String(s).padStart(2, "0")}`;
}

function when(ms) {
  if (!ms) return "";
  return new Date(ms).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

let toastTimer = null;
function toast(text, kind = "error") {
  const box = $("#toast");
  box.textContent = text;
  box.className = `toast ${kind}`;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 4000);
}

function randomName() {
  const words = ["ace", "jack", "queen", "king", "knave", "deuce", "trey", "spade", "heart", "club"];
  return `${words[Math.floor(Math.random() * words.length)]}-${Math.floor(100 + Math.random() * 900)}`;
}

const store = {
  get name() { return localStorage.getItem("arena.name") || ""; },
  set name(v) { localStorage.setItem("arena.name", v); },
  get token() { return sessionStorage.getItem("arena.token"); },
  set token(v) { if (v) sessionStorage.setItem("arena.token", v); else sessionStorage.removeItem("arena.token"); },
  get fourColour() { return localStorage.getItem("arena.fourColour") === "1"; },
  set fourColour(v) { localStorage.setItem("arena.fourColour", v ? "1" : "0"); },
};

// ------------------------------------------------------------------------------ the connection

class ArenaError extends Error {
  constructor(code, reason) { super(`${reason} [${code}]`); this.code = code; this.reason = reason; }
}

// One websocket to the server, said hello to; reconnects by itself with its session token.
class Connection {
  constructor() {
    this.ws = null;
    this.req = 0;
    this.waiting = new Map(); // req -> {resolve, reject}
    this.listeners = new Set(); // functions called with every event (a message with no req)
    this.reconnectHooks = new Set(); // called after every welcome that resumed a session
    this.player = null;
    this.name = null;
    this.serverOffset = 0; // server wall clock minus ours, in milliseconds
    this.delay = 250;
    this.everOpen = false;
    this.newReady();
    window.addEventListener("offline", () => this.ws && this.ws.close());
    window.addEventListener("online", () => this.open());
    this.open();
  }

  serverNow() { return Date.now() + this.serverOffset; }

  // `ready` resolves at the next welcome; requests made while offline wait for it.
  newReady() {
    this.isReady = false;
    this.ready = new Promise((resolve) => { this.resolveReady = resolve; });
  }

  open() {
    if (this.ws && this.ws.readyState <= WebSocket.OPEN) return;
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`);
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    this.player = null;
    ws.onopen = () => this.hello();
    ws.onmessage = (event) => this.receive(event.data);
    ws.onclose = () => this.closed(ws);
    ws.onerror = () => {}; // the close that follows says it all
  }

  hello() {
    if (!store.name) store.name = randomName();
    const hello = { type: "hello", name: store.name, protocol: PROTOCOL };
    if (store.token) hello.token = store.token;
    this.send(hello);
  }

  closed(ws) {
    if (ws !== this.ws) return;
    const resumed = this.player !== null;
    this.player = null;
    if (this.isReady) this.newReady();
    for (const { reject } of this.waiting.values()) reject(new ArenaError("offline", "the connection dropped"));
    this.waiting.clear();
    setOffline(this.everOpen);
    const delay = this.delay;
    this.delay = Math.min(5000, this.delay * 2);
    setTimeout(() => { if (navigator.onLine !== false) this.open(); }, resumed ? 100 : delay);
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(encoder.encode(message));
  }

  receive(data) {
    let message;
    try {
      message = plain(decoder.decode(new Uint8Array(data)));
    } catch (err) {
      console.warn("an undecodable frame", err);
      return;
    }
    if (message.type === "welcome") return this.welcomed(message);
    if (message.type === "error" && this.player === null && message.code === "bad_token") {
      store.token = null; // the server forgot us (it restarted): start a new session
      return this.hello();
    }
    if (message.type === "error" && this.player === null && message.code === "bad_name") {
      store.name = randomName();
      toast(`${message.reason}: you are ${store.name} for now`);
      return this.hello();
    }
    if (message.req !== undefined && message.req !== null && this.waiting.has(message.req)) {
      const { resolve, reject } = this.waiting.get(message.req);
      this.waiting.delete(message.req);
      if (message.type === "error") reject(new ArenaError(message.code, message.reason));
      else resolve(message);
      return;
    }
    if (message.type === "error") {
      toast(message.reason);
      return;
    }
    for (const listener of [...this.listeners]) listener(message);
  }

  welcomed(message) {
    const resumed = store.token === message.token;
    store.token = message.token;
    this.player = message.player;
    this.name = message.name;
    this.serverOffset = message.server_time_ms - Date.now();
    this.delay = 250;
    this.everOpen = true;
    setOffline(false);
    $("#who").textContent = message.name;
    this.isReady = true;
    this.resolveReady();
    for (const hook of [...this.reconnectHooks]) hook(resumed);
  }

  // Send a request and wait for its reply (rejected with an ArenaError on an error reply).
  async request(message) {
    await this.ready;
    const req = ++this.req;
    return new Promise((resolve, reject) => {
      this.waiting.set(req, { resolve, reject });
      this.send({ ...message, req });
    });
  }

  // Start a new session under another name.
  rename(name) {
    store.name = name;
    store.token = null;
    if (this.ws) this.ws.close();
    else this.open();
  }
}

function setOffline(offline) {
  $("#offline").hidden = !offline;
  document.body.classList.toggle("is-offline", offline);
}

// ------------------------------------------------------------------------------ games and cards

let GAMES = [];
const gameByKey = (key) => GAMES.find((g) => g.key === key);

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANKS = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };

function cardName(code) {
  if (!code || code === "??") return "a face-down card";
  return `${RANKS[code[0]] || code[0]}${SUITS[code[1]] || code[1]}`;
}

function cardNode(code) {
  if (code === "??") return el("div", { class: "card down", "aria-label": "face-down card" });
  const rank = RANKS[code[0]] || code[0];
  const suit = SUITS[code[1]] || "?";
  return el("div", { class: `card up suit-${code[1]}`, "aria-label": cardName(code), dataset: { card: code } },
    el("span", { class: "corner" }, rank, el("span", { class: "pip" }, suit)),
    el("span", { class: "face" }, suit));
}

// A legal transfer in notation "t3>f0" or "t3>t5x3"; null for any other move.
function parseTransfer(text) {
  const m = /^([a-z]\d{0,2})>([a-z]\d{0,2})(?:x(\d{1,3}))?$/.exec(text);
  return m ? { src: m[1], dst: m[2], count: m[3] ? Number(m[3]) : 1, text } : null;
}

// A button's words for a move that is not a transfer ("deal", "choose t0", "exchange t7.0",
// "guess r2"), naming the card it concerns when the board shows it.
function moveLabel(move, board) {
  const [verb, arg] = move.split(" ");
  const words = { deal: "Deal", redeal: "Redeal", turn: "Turn a card", guess: "Guess", choose: "Base rank from", exchange: "Exchange with" };
  let text = words[verb] || verb;
  if (arg) {
    const [pile, index] = arg.split(".");
    const cards = board && board.piles[pile];
    const card = cards && (index !== undefined ? cards[Number(index)] : cards[cards.length - 1]);
    text += ` ${pile}${index !== undefined ? `.${index}` : ""}` + (card && card !== "??" ? ` (${cardName(card)})` : "");
  }
  return text;
}

function transferText(src, dst, count) { return `${src}>${dst}${count > 1 ? `x${count}` : ""}`; }

// ------------------------------------------------------------------------------ the board

// Draws one board from its game's layout (from the engine, via /api/games). With `onMove`, the
// board is playable: click a card, then where it goes; or drag it there; or use the keyboard.
class BoardView {
  constructor(game, { onMove = null, label = "" } = {}) {
    this.game = gameByKey(game);
    this.onMove = onMove;
    this.board = null;
    this.selected = null; // {pile, count}
    this.busy = false;
    this.node = el("div", { class: "table", role: onMove ? "application" : "img", "aria-label": label || this.game.name });
    this.node.addEventListener("click", (e) => this.click(e));
    this.node.addEventListener("dblclick", (e) => this.doubleClick(e));
    this.node.addEventListener("keydown", (e) => this.key(e));
    this.node.addEventListener("pointerdown", (e) => this.pointerDown(e));
    this.width = 0;
    this.resize = new ResizeObserver(() => { if (this.node.clientWidth !== this.width) this.draw(); });
    this.resize.observe(this.node);
  }

  destroy() { this.resize.disconnect(); }

  get legal() { return (this.board && this.onMove && !this.busy && this.board.legal) || []; }
  get transfers() { return this.legal.map(parseTransfer).filter(Boolean); }

  set(board) {
    this.board = board;
    this.selected = null;
    this.draw();
  }

  setBusy(busy) { this.busy = busy; this.node.classList.toggle("busy", busy); }

  // Room below (DOWN fan) or to the right (RIGHT fan) of a slot before the next slot or the edge.
  room(slot) {
    const layout = this.game.layout;
    let limit = slot.fan === "right" ? layout.width - slot.x : layout.height - slot.y;
    for (const other of layout.slots) {
      if (other === slot) continue;
      if (slot.fan === "down" && other.y > slot.y + 0.01 && other.x < slot.x + 1 && other.x + 1 > slot.x) {
        limit = Math.min(limit, other.y - slot.y);
      }
      if (slot.fan === "right" && other.x > slot.x + 0.01 && other.y < slot.y + 1 && other.y + 1 > slot.y) {
        limit = Math.min(limit, other.x - slot.x);
      }
    }
    return Math.max(1, limit);
  }

  draw() {
    const node = this.node;
    if (!node.isConnected) return; // drawn when it is placed on the page (the resize observer)
    const layout = this.game.layout;
    const width = node.clientWidth || 320;
    this.width = node.clientWidth;
    const cw = Math.max(22, Math.min(88, Math.floor(width / layout.width)));
    const ch = Math.round(cw * 1.4);
    node.style.setProperty("--cw", `${cw}px`);
    node.style.setProperty("--ch", `${ch}px`);
    node.classList.toggle("small", cw < 44);
    const piles = (this.board && this.board.piles) || {};
    const targets = this.targets();
    const starts = this.startable();
    const frag = document.createDocumentFragment();
    let bottom = 0;
    for (const slot of layout.slots) {
      const cards = piles[slot.pile] || [];
      const pile = el("div", {
        class: `pile ${slot.kind} fan-${slot.fan}` + (targets.has(slot.pile) ? " target" : "")
          + (this.selected && this.selected.pile === slot.pile ? " source" : ""),
        dataset: { pile: slot.pile },
        tabindex: this.onMove ? 0 : null,
        "aria-label": `${slot.label || slot.kind} ${slot.pile}: ${cards.length ? cards.slice(-1).map(cardName)[0] + ` (${cards.length} cards)` : "empty"}`,
      });
      pile.style.left = `${slot.x * cw}px`;
      pile.style.top = `${slot.y * ch}px`;
      pile.append(el("div", { class: "slot-mark", text: slot.label || "" }));
      const shown = slot.fan === "none" ? Math.max(0, cards.length - 2) : 0;
      const room = this.room(slot);
      let step = 0, downStep = 0;
      if (slot.fan === "down") {
        const ups = cards.length - cards.filter((c) => c === "??").length;
        const downs = cards.length - ups;
        const want = 0.24 * Math.max(0, ups - 1) + 0.12 * downs;
        const scale = want > room - 1 ? Math.max(0.05, (room - 1)) / want : 1;
        step = 0.24 * scale * ch;
        downStep = 0.12 * scale * ch;
      } else if (slot.fan === "right") {
        const want = 0.28 * Math.max(0, cards.length - 1);
        step = (want > room - 1 ? Math.max(0.05, room - 1) / Math.max(1, want) : 1) * 0.28 * cw;
      }
      let offset = 0;
      cards.forEach((code, index) => {
        if (index < shown) return;
        const card = cardNode(code);
        card.dataset.pile = slot.pile;
        card.dataset.index = index;
        if (slot.fan === "down") card.style.top = `${offset}px`;
        if (slot.fan === "right") card.style.left = `${offset}px`;
        offset += slot.fan === "down" ? (code === "??" ? downStep : step) : step;
        const count = cards.length - index;
        if (starts.has(`${slot.pile}:${count}`)) card.classList.add("movable");
        if (this.selected && this.selected.pile === slot.pile && count <= this.selected.count) card.classList.add("picked");
        pile.append(card);
      });
      bottom = Math.max(bottom, slot.y * ch + (slot.fan === "down" ? offset : 0) + ch);
      if (this.legalActionOn(slot)) pile.classList.add("actionable");
      frag.append(pile);
    }
    const focused = node.contains(document.activeElement) ? document.activeElement.closest(".pile")?.dataset.pile : null;
    node.replaceChildren(frag);
    if (focused) node.querySelector(`.pile[data-pile="${focused}"]`)?.focus({ preventScroll: true });
    node.style.height = `${Math.ceil(bottom) + 4}px`;
  }

  // "pile:count" for every transfer the player could start.
  startable() {
    return new Set(this.transfers.map((t) => `${t.src}:${t.count}`));
  }

  targets() {
    if (!this.selected) return new Set();
    return new Set(this.transfers.filter((t) => t.src === this.selected.pile && t.count === this.selected.count).map((t) => t.dst));
  }

  legalActionOn(slot) {
    return slot.kind === "stock" && this.legal.some((m) => m === "deal" || m === "redeal");
  }

  select(pile, count) {
    this.selected = { pile, count };
    this.draw();
  }

  clear() { if (this.selected) { this.selected = null; this.draw(); } }

  play(text, from = null) {
    this.selected = null;
    if (this.onMove) this.onMove(text, from);
  }

  // What a click on (pile, index) means now.
  choose(pile, index) {
    const cards = (this.board.piles[pile] || []);
    const count = index === null ? 0 : cards.length - index;
    if (this.selected) {
      const { pile: src, count: n } = this.selected;
      if (src === pile && (index === null || count === n)) return this.clear();
      const move = transferText(src, pile, n);
      if (this.legal.includes(move)) return this.play(move);
      if (this.startable().has(`${pile}:${count}`)) return this.select(pile, count);
      return this.play(move); // not legal: the server says why, and nothing moves
    }
    const slot = this.game.layout.slots.find((s) => s.pile === pile);
    if (slot && slot.kind === "stock") {
      const action = this.legal.find((m) => m === "deal") || this.legal.find((m) => m === "redeal");
      if (action) return this.play(action);
    }
    if (count && this.startable().has(`${pile}:${count}`)) return this.select(pile, count);
    const counts = this.transfers.filter((t) => t.src === pile).map((t) => t.count);
    if (counts.length && index === null) return this.select(pile, Math.min(...counts));
    if (count) toast(counts.length ? `pick a card that can move: ${cardName(cards[cards.length - Math.min(...counts)])}` : `${cardName(cards[index])} cannot move now`, "info");
  }

  click(event) {
    if (!this.onMove || !this.board || this.dragged) return;
    const card = event.target.closest(".card");
    const pile = event.target.closest(".pile");
    if (!pile) return this.clear();
    this.choose(pile.dataset.pile, card ? Number(card.dataset.index) : null);
  }

  // A double click sends a card to a foundation when it may go there.
  doubleClick(event) {
    if (!this.onMove || !this.board) return;
    const pile = event.target.closest(".pile");
    if (!pile) return;
    const move = this.transfers.find((t) => t.src === pile.dataset.pile && t.count === 1 && t.dst.startsWith("f"));
    if (move) this.play(move.text);
  }

  key(event) {
    if (!this.onMove || !this.board) return;
    const pile = event.target.closest(".pile");
    const slots = this.game.layout.slots;
    if (event.key === "Escape") { this.clear(); return; }
    if ((event.key === "d" || event.key === "D") && !event.ctrlKey) {
      const action = this.legal.find((m) => m === "deal") || this.legal.find((m) => m === "redeal");
      if (action) { event.preventDefault(); this.play(action); }
      return;
    }
    if (!pile) return;
    const at = slots.findIndex((s) => s.pile === pile.dataset.pile);
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      this.choose(pile.dataset.pile, null);
      return;
    }
    const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (!(event.key in arrows)) return;
    event.preventDefault();
    const [dx, dy] = arrows[event.key];
    const here = slots[at];
    let best = null, bestScore = Infinity;
    for (const s of slots) {
      const ddx = s.x - here.x, ddy = s.y - here.y;
      if (s === here || (dx && Math.sign(ddx) !== dx) || (dy && Math.sign(ddy) !== dy)) continue;
      const score = dx ? Math.abs(ddx) + 3 * Math.abs(ddy) : Math.abs(ddy) + 3 * Math.abs(ddx);
      if (score < bestScore) { best = s; bestScore = score; }
    }
    if (best) this.node.querySelector(`.pile[data-pile="${best.pile}"]`).focus();
  }

  // Drag and drop with pointer events (mouse, pen and touch alike).
  pointerDown(event) {
    if (!this.onMove || !this.board || event.button > 0) return;
    const card = event.target.closest(".card.up");
    if (!card || !this.node.contains(card)) return;
    const pile = card.dataset.pile;
    const index = Number(card.dataset.index);
    const count = this.board.piles[pile].length - index;
    const start = { x: event.clientX, y: event.clientY };
    let ghost = null;
    const moving = [...this.node.querySelectorAll(`.card[data-pile="${pile}"]`)].filter((c) => Number(c.dataset.index) >= index);
    const move = (e) => {
      const dx = e.clientX - start.x, dy = e.clientY - start.y;
      if (!ghost) {
        if (Math.hypot(dx, dy) < 6) return;
        this.selected = { pile, count };
        this.dragged = true;
        ghost = el("div", { class: "ghost" });
        const rect = card.getBoundingClientRect();
        ghost.style.left = `${rect.left}px`;
        ghost.style.top = `${rect.top}px`;
        ghost.style.setProperty("--cw", this.node.style.getPropertyValue("--cw"));
        ghost.style.setProperty("--ch", this.node.style.getPropertyValue("--ch"));
        const base = card.offsetTop;
        for (const c of moving) {
          const copy = c.cloneNode(true);
          copy.style.top = `${c.offsetTop - base}px`;
          copy.style.left = "0px";
          ghost.append(copy);
          c.classList.add("lifted");
        }
        document.body.append(ghost);
        for (const t of this.targets()) this.node.querySelector(`.pile[data-pile="${t}"]`)?.classList.add("target");
      }
      ghost.style.transform = `translate(${dx}px, ${dy}px)`;
    };
    const up = (e) => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", up);
      if (!ghost) return;
      ghost.hidden = true;
      const under = document.elementFromPoint(e.clientX, e.clientY);
      ghost.hidden = false;
      const target = under && under.closest(".pile");
      setTimeout(() => { this.dragged = false; }, 0);
      if (!target || !this.node.contains(target) || target.dataset.pile === pile) {
        this.snapBack(ghost);
        return;
      }
      this.play(transferText(pile, target.dataset.pile, count), ghost);
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
  }

  // A dragged pile that did not land goes back where it came from.
  snapBack(ghost) {
    if (!ghost) return;
    ghost.classList.add("returning");
    ghost.style.transform = "translate(0px, 0px)";
    setTimeout(() => { ghost.remove(); this.selected = null; this.draw(); }, 220);
  }
}

// ------------------------------------------------------------------------------ pages

const conn = new Connection();
let page = null; // the current page: {destroy()}

function navigate(path, replace = false) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  route();
}

function route() {
  if (page && page.destroy) page.destroy();
  page = null;
  const path = location.pathname;
  const main = $("#main");
  main.replaceChildren();
  let m;
  if ((m = /^\/r\/([A-Za-z0-9]{1,16})\/?$/.exec(path))) page = new RacePage(main, m[1].toUpperCase(), false);
  else if ((m = /^\/w\/([A-Za-z0-9]{1,16})\/?$/.exec(path))) page = new RacePage(main, m[1].toUpperCase(), true);
  else if ((m = /^\/t\/([A-Za-z0-9]{1,16})\/?$/.exec(path))) page = new TournamentPage(main, m[1].toUpperCase());
  else page = new LobbyPage(main);
}

document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-link]");
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  navigate(link.getAttribute("href"));
});
window.addEventListener("popstate", route);

// Subscribe a page to events and reconnects for as long as it lives.
function subscribe(owner, onEvent, onReconnect) {
  conn.listeners.add(onEvent);
  if (onReconnect) conn.reconnectHooks.add(onReconnect);
  owner.unsubscribe = () => { conn.listeners.delete(onEvent); conn.reconnectHooks.delete(onReconnect); };
}

function standingsTable(standings, me, { points = false } = {}) {
  return el("table", { class: "standings" },
    el("thead", {}, el("tr", {}, el("th", { text: "#" }), el("th", { text: "Player" }), el("th", { text: "Cleared" }),
      el("th", { text: "Moves" }), el("th", { text: "Time" }), el("th", { text: "Status" }), points ? el("th", { text: "Points" }) : null)),
    el("tbody", {}, standings.map((s) => el("tr", { class: s.player === me ? "me" : "", dataset: { player: s.player } },
      el("td", { text: s.place }), el("td", { text: s.name }), el("td", { class: "cleared", text: `${s.cleared}/${s.total}` }),
      el("td", { class: "moves", text: s.moves }), el("td", { text: s.time_ms ? clockText(s.time_ms) : "" }),
      el("td", { class: `status ${s.status}`, text: s.status.replace(/_/g, " ") }),
      points ? el("td", { text: s.points }) : null))));
}

// ---------------------------------------------------------------------------------- the lobby

class LobbyPage {
  constructor(main) {
    this.main = main;
    this.timer = null;
    this.render();
    this.refresh();
    this.timer = setInterval(() => this.refresh(), 5000);
    subscribe(this, () => {}, () => this.refresh());
  }

  destroy() { clearInterval(this.timer); this.unsubscribe(); }

  render() {
    const nameInput = el("input", { id: "name", value: store.name || "", maxlength: 32, autocomplete: "nickname", "aria-label": "your name" });
    const gameSelect = el("select", { id: "game", "aria-label": "game" },
      GAMES.map((g) => el("option", { value: g.key, text: g.name })));
    const summary = el("p", { class: "summary", id: "game-summary" });
    const showGame = () => {
      const g = gameByKey(gameSelect.value);
      summary.replaceChildren(g.summary + " ", el("a", { href: g.rules, target: "_blank", rel: "noopener", text: "Rules" }));
    };
    gameSelect.addEventListener("change", showGame);
    const codeInput = el("input", { id: "join-code", placeholder: "race code", maxlength: 16, autocapitalize: "characters", "aria-label": "race code" });
    const form = el("form", { class: "card-box create", id: "create-form", onsubmit: (e) => { e.preventDefault(); this.create(form); } },
      el("h2", { text: "New race" }),
      el("label", {}, "Game ", gameSelect),
      summary,
      el("label", {}, "Seed ", el("input", { name: "seed", inputmode: "numeric", placeholder: "random", pattern: "[0-9]*", maxlength: 19 })),
      el("div", { class: "row" },
        el("label", {}, "Entrants ", el("input", { name: "entrants", type: "number", min: 1, max: 64, value: 8 })),
        el("label", {}, "Minutes ", el("input", { name: "minutes", type: "number", min: 1, max: 1440, value: 15 })),
        el("label", {}, "Countdown (s) ", el("input", { name: "countdown", type: "number", min: 0, max: 60, value: 3 }))),
      el("label", { class: "check" }, el("input", { name: "winnable", type: "checkbox" }), " a deal known to be winnable"),
      el("button", { type: "submit", class: "primary", text: "Create race" }));
    this.lists = {
      open: el("ul", { class: "races", id: "open-races" }),
      live: el("ul", { class: "races", id: "live-races" }),
      tournaments: el("ul", { class: "races", id: "tournaments" }),
    };
    this.main.replaceChildren(
      el("section", { class: "card-box you" },
        el("form", { onsubmit: (e) => { e.preventDefault(); this.rename(nameInput.value); } },
          el("label", {}, "Your name ", nameInput), el("button", { type: "submit", text: "Save" })),
        el("form", { class: "join", onsubmit: (e) => { e.preventDefault(); if (codeInput.value.trim()) navigate(`/r/${codeInput.value.trim().toUpperCase()}`); } },
          el("label", {}, "Join by code ", codeInput), el("button", { type: "submit", text: "Go" }))),
      el("div", { class: "columns" },
        form,
        el("section", { class: "card-box" }, el("h2", { text: "Open races" }), this.lists.open),
        el("section", { class: "card-box" }, el("h2", { text: "Live races" }), this.lists.live),
        el("section", { class: "card-box" }, el("h2", { text: "Tournaments" }), this.lists.tournaments)));
    showGame();
  }

  rename(name) {
    name = name.trim();
    if (!name || name === conn.name) return;
    conn.rename(name);
    toast(`you are now ${name}`, "info");
  }

  async refresh() {
    try {
      const [open, live, tournaments] = await Promise.all([
        conn.request({ type: "list_races", status: "open" }),
        conn.request({ type: "list_races", status: "live" }),
        conn.request({ type: "list_tournaments" }),
      ]);
      const raceItem = (r, path, verb) => el("li", {},
        el("a", { href: `${path}/${r.code}`, "data-link": true, text: `${gameByKey(r.game)?.name || r.game}` }),
        ` ${r.code} · ${r.entrants.length}/${r.max_entrants} · ${r.entrants.join(", ") || "nobody yet"} `,
        el("a", { href: `${path}/${r.code}`, "data-link": true, class: "button", text: verb }));
      this.lists.open.replaceChildren(...(open.races.length ? open.races.map((r) => raceItem(r, "/r", "Join")) : [el("li", { class: "muted", text: "None yet: create one." })]));
      this.lists.live.replaceChildren(...(live.races.length ? live.races.map((r) => raceItem(r, "/w", "Watch")) : [el("li", { class: "muted", text: "Nothing running." })]));
      const shown = tournaments.tournaments.filter((t) => t.status !== "finished" && t.status !== "cancelled").slice(-20);
      this.lists.tournaments.replaceChildren(...(shown.length ? shown.map((t) => el("li", {},
        el("a", { href: `/t/${t.id}`, "data-link": true, text: t.name }),
        ` · ${gameByKey(t.game)?.name || t.game} · ${t.status} · ${when(t.starts_at_ms)} · ${t.registered.length} registered`))
        : [el("li", { class: "muted", text: "None scheduled." })]));
    } catch (err) {
      if (err.code !== "offline") toast(err.reason || String(err));
    }
  }

  async create(form) {
    const data = new FormData(form);
    const seedText = String(data.get("seed") || "").trim();
    const message = {
      type: "create_race",
      game: $("#game").value,
      max_entrants: Number(data.get("entrants")) || 8,
      time_limit_s: Math.max(10, Math.round(Number(data.get("minutes") || 15) * 60)),
      countdown_s: Math.min(60, Math.max(0, Math.round(Number(data.get("countdown") ?? 3)))),
      winnable: data.get("winnable") === "on",
      join: true,
    };
    if (seedText) {
      if (!/^\d{1,19}$/.test(seedText)) { toast("a seed is a whole number"); return; }
      message.seed = BigInt(seedText) <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(seedText) : BigInt(seedText);
    }
    try {
      let reply;
      try {
        reply = await conn.request(message);
      } catch (err) {
        // A secret winnable deal needs the server's private catalog; without one, a practice
        // deal from the public catalog (its seed public from the start) is the next best thing.
        if (err.code !== "no_private_catalog" || seedText) throw err;
        reply = await conn.request({ ...message, seed_public: true });
        toast("no secret winnable deals on this server: a public practice deal instead", "info");
      }
      navigate(`/r/${reply.race.code}`);
    } catch (err) {
      toast(err.reason || String(err));
    }
  }
}

// ----------------------------------------------------------------------------------- a race

class RacePage {
  constructor(main, code, watchOnly) {
    this.main = main;
    this.code = code;
    this.watchOnly = watchOnly;
    this.race = null;
    this.standings = [];
    this.version = 0;
    this.mine = null; // BoardView of my own board
    this.boards = new Map(); // spectator: player -> BoardView
    this.nextSeq = 1;
    this.pending = null; // {seq, move, ghost}
    this.finished = null; // the race_finished event
    this.verdict = null;
    this.startedAt = null; // server ms of the start
    this.timeLimit = 0;
    this.mode = "loading"; // "entrant" | "spectator" | "outsider" | "replay"
    this.rematch = null;
    this.ticker = setInterval(() => this.tick(), 250);
    this.build();
    subscribe(this, (m) => this.event(m), () => this.load(true));
    this.load(false);
  }

  destroy() {
    clearInterval(this.ticker);
    this.unsubscribe();
    if (this.mine) this.mine.destroy();
    for (const b of this.boards.values()) b.destroy();
  }

  build() {
    this.head = el("div", { class: "race-head" });
    this.clock = el("div", { class: "clock", id: "clock", "aria-live": "off" });
    this.notice = el("div", { class: "notice", id: "notice" });
    this.actions = el("div", { class: "actions", id: "actions" });
    this.tableBox = el("div", { class: "boards", id: "boards" });
    this.side = el("aside", { class: "side" });
    this.main.replaceChildren(el("section", { class: "race" }, this.head, el("div", { class: "race-bar" }, this.clock, this.notice),
      this.actions, el("div", { class: "race-body" }, this.tableBox, this.side)));
  }

  get me() { return conn.player; }

  async load(reconnected) {
    try {
      await conn.ready;
      if (this.mode === "replay") return;
      if (this.watchOnly && this.mode !== "entrant") {
        const snap = await conn.request({ type: "watch", race: this.code });
        return this.snapshot(snap, "spectator");
      }
      let since = reconnected ? this.version : 0;
      for (;;) {
        const reply = await conn.request({ type: "sync", race: this.code, since });
        if (reply.type === "sync_page") { since = reply.until; continue; }
        const mine = reply.standings.some((s) => s.player === this.me);
        const mode = mine ? "entrant" : reply.race.status === "open" ? "outsider" : "spectator";
        this.snapshot(reply, mode);
        break;
      }
      if (this.pending) this.resend();
    } catch (err) {
      if (err.code === "offline") return;
      if (err.code === "not_allowed" && this.watchOnly) { navigate(`/r/${this.code}`, true); return; }
      this.main.replaceChildren(el("section", { class: "card-box" }, el("h2", { text: `Race ${this.code}` }),
        el("p", { class: "error", text: err.reason || String(err) }), el("a", { href: "/", "data-link": true, text: "Back to the lobby" })));
    }
  }

  snapshot(snap, mode) {
    this.race = snap.race;
    this.version = Math.max(this.version, snap.race.version);
    this.standings = snap.standings;
    this.mode = mode;
    this.rematch = snap.race.rematch || this.rematch;
    if (snap.race.status === "running" || snap.race.status === "finished") {
      this.startedAt = conn.serverNow() - snap.elapsed_ms;
      this.timeLimit = snap.race.time_limit_s * 1000;
    }
    if (mode === "entrant") {
      const waiting = this.pending && this.pending.seq >= snap.next_seq;
      this.nextSeq = waiting ? this.pending.seq : snap.next_seq;
      if (this.pending && !waiting) this.clearPending(); // it was played before the connection dropped
      if (snap.board) this.ensureMine().set(snap.board);
    } else if (snap.boards) {
      for (const [player, board] of Object.entries(snap.boards)) this.boardOf(player).set(board);
    }
    if (snap.race.status === "finished" && !this.finished) this.finishedFromSnapshot(snap);
    this.renderAll();
  }

  async finishedFromSnapshot(snap) {
    this.finished = { standings: snap.standings, seed: snap.race.seed, salt: null, commitment: snap.race.commitment, double_or_naught: [] };
    try {
      const record = await conn.request({ type: "get_record", race: this.code });
      this.finished.seed = record.seed;
      this.finished.salt = record.salt;
      this.record = record;
      await this.verify();
    } catch (err) { /* held seed (arena tournament) or gone: nothing to check yet */ }
    this.renderAll();
  }

  ensureMine() {
    if (!this.mine) this.mine = new BoardView(this.race.game, { onMove: (text, ghost) => this.move(text, ghost), label: "your board" });
    return this.mine;
  }

  boardOf(player) {
    if (!this.boards.has(player)) this.boards.set(player, new BoardView(this.race.game, { label: `board of ${this.nameOf(player)}` }));
    return this.boards.get(player);
  }

  // An entrant's board as spectators see it, unless the page shows a later one of it already
  // (more moves made): a delayed board has the version of its move's progress, not a newer one.
  spectatorBoard(player, board) {
    const view = this.boardOf(player);
    if (view.board && view.board.moves > board.moves) return;
    view.set(board);
  }

  nameOf(player) { return (this.standings.find((s) => s.player === player) || {}).name || player; }

  // ---------------------------------------------------------------- events

  event(m) {
    if (m.race !== this.code || !this.race) return; // before the first snapshot: it will say all
    if (m.type === "delayed_board") { // not an event of its own: it has its progress's version
      if (this.mode !== "entrant") this.spectatorBoard(m.player, m.board);
      this.renderAll();
      return;
    }
    if (typeof m.version === "number") {
      // Older than what the page has: a frame the server held for a tick when the snapshot was
      // taken, or a sync page's event after a newer live one. Each event carries the whole
      // standings, so skipping it loses nothing (docs/protocol.md, Catching up).
      if (m.version <= this.version) return;
      this.version = m.version;
    }
    switch (m.type) {
      case "entrant_joined":
        if (this.race && !this.race.entrants.includes(m.name)) this.race.entrants.push(m.name);
        if (!this.standings.some((s) => s.player === m.player)) {
          this.standings.push({ place: this.standings.length + 1, player: m.player, name: m.name, cleared: 0, total: gameByKey(this.race.game).total, time_ms: 0, moves: 0, status: "waiting", order: m.order, points: 0 });
        }
        break;
      case "race_starting":
        this.race.status = "starting";
        this.race.starts_at_ms = m.starts_at_ms;
        this.race.commitment = m.commitment;
        break;
      case "race_started":
        this.race.status = "running";
        this.startedAt = m.started_at_ms;
        this.timeLimit = m.time_limit_ms;
        if (this.mode === "entrant") this.ensureMine().set(m.board);
        else for (const s of this.standings) this.boardOf(s.player).set(m.board);
        for (const s of this.standings) s.status = "playing";
        break;
      case "progress":
        this.standings = m.standings;
        if (m.board && this.mode !== "entrant") this.spectatorBoard(m.player, m.board);
        break;
      case "race_finished":
        this.race.status = "finished";
        this.standings = m.standings;
        this.finished = m;
        if (this.mine) this.mine.setBusy(false);
        this.verify().then(() => this.renderAll());
        break;
      case "race_par":
        this.race.par = m.par;
        break;
      case "rematch_offer":
        this.rematch = m.rematch;
        this.rematchAccepted = m.accepted;
        break;
      case "move_result":
        this.moveResult(m);
        break;
      default:
        return;
    }
    this.renderAll();
  }

  // ---------------------------------------------------------------- moves

  move(text, ghost) {
    if (this.pending || this.mode !== "entrant" || this.race.status !== "running") {
      if (ghost) this.mine.snapBack(ghost);
      return;
    }
    this.pending = { seq: this.nextSeq, move: text, ghost };
    this.nextSeq += 1;
    this.mine.setBusy(true);
    this.resend();
  }

  resend() {
    if (!this.pending) return;
    conn.send({ type: "move", race: this.code, seq: this.pending.seq, move: this.pending.move });
  }

  clearPending() {
    if (this.pending && this.pending.ghost) this.pending.ghost.remove();
    this.pending = null;
    if (this.mine) this.mine.setBusy(false);
  }

  moveResult(m) {
    if (!this.pending || m.seq !== this.pending.seq) return;
    const ghost = this.pending.ghost;
    if (m.ok) {
      this.clearPending();
      if (m.board) this.mine.set(m.board);
      return;
    }
    this.pending = null;
    this.nextSeq = m.seq; // a refusal uses up no sequence number
    this.mine.setBusy(false);
    toast(`${m.reason}`, "refused");
    this.notice.textContent = `Refused: ${m.reason}`;
    if (ghost) this.mine.snapBack(ghost);
    else this.mine.set(this.mine.board);
  }

  async action(message, then) {
    try {
      const reply = await conn.request({ ...message, race: this.code });
      if (then) then(reply);
    } catch (err) {
      toast(err.reason || String(err));
    }
  }

  // ---------------------------------------------------------------- fairness

  async verify() {
    const f = this.finished;
    if (!f || f.seed === null || f.seed === undefined || !f.salt) { this.verdict = null; return; }
    const bytes = new TextEncoder().encode(`${String(f.seed)}:${f.salt}`);
    const digest = await crypto.subtle.digest("SHA-256", bytes);
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    this.verdict = { ok: hex === f.commitment, hex };
  }

  // ---------------------------------------------------------------- drawing

  tick() {
    if (!this.race) return;
    const now = conn.serverNow();
    if (this.race.status === "starting" && this.race.starts_at_ms) {
      const left = this.race.starts_at_ms - now;
      this.clock.textContent = left > 0 ? `Starts in ${Math.ceil(left / 1000)}` : "Go!";
      this.clock.className = "clock countdown";
    } else if (this.race.status === "running" && this.startedAt) {
      const elapsed = now - this.startedAt;
      this.clock.textContent = `${clockText(elapsed)} / ${clockText(this.timeLimit)}`;
      this.clock.className = "clock running";
    } else if (this.race.status === "finished") {
      this.clock.textContent = "Finished";
      this.clock.className = "clock";
    } else {
      this.clock.textContent = "Waiting for the start";
      this.clock.className = "clock";
    }
  }

  renderAll() {
    if (!this.race) return;
    const race = this.race;
    const game = gameByKey(race.game);
    const link = `${location.origin}/r/${race.code}`;
    this.head.replaceChildren(...[
      el("h1", {}, `${game.name} `, el("span", { class: "code", id: "race-code", text: race.code })),
      el("p", { class: "summary" }, game.summary, " ", el("a", { href: game.rules, target: "_blank", rel: "noopener", text: "Rules" })),
      el("p", { class: "meta" },
        race.seed !== null && race.seed !== undefined ? `Seed ${String(race.seed)} · ` : "Secret seed · ",
        `${race.entrants.length}/${race.max_entrants} entrants · ${clockText(race.time_limit_s * 1000)} limit`,
        race.spectator_delay_s ? ` · spectators ${race.spectator_delay_s} s behind` : ""),
      race.status === "open" ? el("p", { class: "share" }, "Invite: ",
        el("input", { readonly: true, value: link, id: "share-link", "aria-label": "link to this race", onfocus: (e) => e.target.select() }),
        el("button", { text: "Copy", onclick: () => navigator.clipboard?.writeText(link).then(() => toast("link copied", "info"), () => {}) })) : null,
      race.commitment ? el("p", { class: "commitment" }, "Commitment ", el("code", { id: "commitment", text: race.commitment }),
        el("span", { class: "hint", text: " (SHA-256 of seed:salt, fixed before the deal)" })) : null].filter(Boolean));
    this.tick();
    this.renderActions();
    this.renderBoards();
    this.renderSide();
  }

  renderActions() {
    const race = this.race;
    const buttons = [];
    if (this.mode === "outsider" && race.status === "open") {
      buttons.push(el("button", { class: "primary", id: "join", text: "Join this race",
        onclick: () => this.action({ type: "join_race" }, () => this.load(false)) }));
      buttons.push(el("a", { class: "button", href: `/w/${race.code}`, "data-link": true, text: "Watch" }));
    }
    if (this.mode === "entrant" && race.status === "open") {
      if (race.creator === this.me) {
        buttons.push(el("button", { class: "primary", id: "start", text: "Start the race",
          onclick: () => this.action({ type: "start_race" }, (r) => { this.race = r.race; this.renderAll(); }) }));
      } else buttons.push(el("span", { class: "muted", text: "Waiting for the creator to start the race." }));
    }
    const mine = this.standings.find((s) => s.player === this.me);
    if (this.mode === "entrant" && race.status === "running" && this.mine && this.mine.board) {
      for (const move of this.mine.board.legal) {
        if (parseTransfer(move)) continue;
        buttons.push(el("button", { class: "move", dataset: { move }, text: this.actionLabel(move),
          onclick: () => this.move(move, null), disabled: !!this.pending }));
      }
      if (mine && mine.status === "playing") {
        buttons.push(el("button", { class: "danger", id: "resign", text: "Resign", onclick: () => {
          if (confirm("Resign from this race?")) this.action({ type: "resign" });
        } }));
      }
    }
    if (race.status === "finished" && this.mode === "entrant") {
      const accepted = this.rematchAccepted || [];
      const joined = accepted.includes(this.me);
      if (this.rematch && joined) {
        buttons.push(el("a", { class: "button primary", id: "go-rematch", href: `/r/${this.rematch}`, "data-link": true, text: "Go to the rematch" }));
      } else {
        buttons.push(el("button", { class: "primary", id: "rematch", text: this.rematch ? "Accept the rematch" : "Rematch",
          onclick: () => this.action({ type: "rematch" }, (r) => navigate(`/r/${r.race.code}`)) }));
      }
      if (this.rematch && accepted.length) {
        buttons.push(el("span", { class: "accepted", id: "rematch-accepted", text: `Rematch accepted by ${accepted.map((p) => this.nameOf(p)).join(", ")}` }));
      }
      if (this.finished && (this.finished.double_or_naught || []).includes(this.me)) {
        buttons.push(el("button", { id: "double", text: "Double or Naught…", onclick: () => this.bonus(null) }));
      }
    }
    if (race.status === "finished") {
      buttons.push(el("button", { id: "replay", text: "Replay", onclick: () => this.replay() }));
    }
    if (this.mode === "entrant" && race.status === "running" && mine && mine.status !== "playing") {
      buttons.push(el("a", { class: "button", href: `/w/${race.code}`, "data-link": true, text: "Watch the others" }));
    }
    buttons.push(el("a", { class: "button quiet", href: "/", "data-link": true, text: "Lobby" }));
    this.actions.replaceChildren(...buttons);
  }

  actionLabel(move) { return moveLabel(move, this.mine && this.mine.board); }

  // The boards, in boxes kept from one drawing to the next (moving a focused node would blur it).
  renderBoards() {
    this.boxes = this.boxes || new Map();
    const box = (key, make) => { if (!this.boxes.has(key)) this.boxes.set(key, make()); return this.boxes.get(key); };
    const boxes = [];
    if (this.bonusBox) boxes.push(this.bonusBox);
    if (this.mode === "replay" && this.replayBox) {
      boxes.push(this.replayBox);
    } else if (this.mode === "entrant" && this.mine) {
      boxes.push(box("mine", () => el("div", { class: "board-box mine" }, this.mine.node)));
    } else if (this.mode === "spectator" || (this.mode === "outsider" && this.boards.size)) {
      for (const s of this.standings) {
        if (!this.boards.has(s.player)) continue;
        const view = this.boards.get(s.player);
        const b = box(s.player, () => el("div", { class: "board-box", dataset: { player: s.player } }, el("h3"), view.node));
        b.firstChild.replaceChildren(s.name, el("span", { class: "muted", text: ` ${s.cleared}/${s.total} · ${s.moves} moves · ${s.status.replace(/_/g, " ")}` }));
        boxes.push(b);
      }
    } else if (this.race.status === "open") {
      boxes.push(box("waiting", () => el("p", { class: "muted", text: "The deal is dealt when the race starts." })));
    }
    this.tableBox.classList.toggle("many", boxes.length > 1);
    const current = [...this.tableBox.children];
    if (current.length !== boxes.length || current.some((node, i) => node !== boxes[i])) this.tableBox.replaceChildren(...boxes);
    if (this.mine) this.mine.draw();
    for (const view of this.boards.values()) view.draw();
  }

  renderSide() {
    const parts = [el("h2", { text: this.race.status === "finished" ? "Result" : "Standings" }),
      standingsTable(this.standings, this.me, { points: this.race.status === "finished" })];
    const f = this.finished;
    if (f) {
      parts.push(el("p", { class: "reveal" }, f.seed !== null && f.seed !== undefined ? `Seed ${String(f.seed)}` : "The seed is revealed when the tournament ends.",
        f.salt ? el("span", {}, ", salt ", el("code", { text: f.salt })) : null));
      const par = this.race.par;
      if (par) {
        const said = { won: `a win was possible (${par.total}/${par.total})`, lost: `no win was possible: at most ${par.best_cleared}/${par.total}`,
          unknown: `at least ${par.best_cleared}/${par.total} could be cleared (the solver stopped after ${par.nodes.toLocaleString()} moves)` }[par.result];
        parts.push(el("p", { id: "par", class: "par" }, el("strong", { text: "Par: " }), said));
      }
      if (this.verdict) {
        parts.push(el("p", { id: "fairness", class: this.verdict.ok ? "fair ok" : "fair bad" },
          this.verdict.ok ? "✔ Checked in your browser: SHA-256(seed:salt) matches the commitment published at the start. The deal was fixed before anyone played."
            : `✘ SHA-256(seed:salt) is ${this.verdict.hex}, not the commitment: this deal cannot be trusted.`));
      }
    }
    this.side.replaceChildren(...parts);
  }

  // ---------------------------------------------------------------- Double or Naught

  // A winner stakes its points on Double or Naught rounds: guess which face-down card beats the
  // face-up one (docs/games/double_or_naught.md); the server deals and judges every round.
  async bonus(move) {
    try {
      const reply = await conn.request(move ? { type: "bonus_move", race: this.code, move } : { type: "double_or_naught", race: this.code });
      const view = new BoardView("double_or_naught", { label: "Double or Naught" });
      view.set(reply.board);
      const choices = reply.decided ? [] : reply.board.legal.map((m) => el("button", { class: "move", dataset: { move: m }, text: moveLabel(m, reply.board), onclick: () => this.bonus(m) }));
      if (reply.decided && reply.outcome === "win") choices.push(el("button", { id: "double-again", text: "Stake it again", onclick: () => this.bonus(null) }));
      const said = { win: "won: points doubled", loss: "lost: no points", tie: "a tie: deal again" }[reply.outcome] || "guess a card";
      const box = el("div", { class: "card-box bonus", id: "bonus" },
        el("h2", { text: `Double or Naught, round ${reply.round}` }),
        el("p", { id: "bonus-state" }, `Stake ${reply.stake} · ${said} · points now `, el("strong", { id: "bonus-points", text: reply.points })),
        el("div", { class: "actions" }, choices), view.node);
      if (this.bonusView) this.bonusView.destroy();
      this.bonusView = view;
      this.bonusBox = box;
      this.renderBoards();
      view.draw();
    } catch (err) {
      toast(err.reason || String(err));
    }
  }

  // ---------------------------------------------------------------- replay

  async replay() {
    if (this.mode === "replay") return;
    this.mode = "replay";
    const players = this.standings.map((s) => s.player);
    let player = players.includes(this.me) ? this.me : players[0];
    let step = 0, steps = 0;
    const view = new BoardView(this.race.game, { label: "replay" });
    const slider = el("input", { type: "range", min: 0, max: 0, value: 0, id: "replay-step", "aria-label": "move number" });
    const caption = el("span", { class: "caption", id: "replay-caption" });
    const pick = el("select", { id: "replay-player", "aria-label": "entrant" }, players.map((p) => el("option", { value: p, text: this.nameOf(p), selected: p === player })));
    const show = async (n) => {
      try {
        const r = await conn.request({ type: "replay", race: this.code, player, step: Math.max(0, n) });
        step = r.step; steps = r.steps;
        slider.max = steps; slider.value = step;
        caption.textContent = step ? `move ${step}/${steps}: ${r.move} at ${clockText(r.time_ms)}` : `the deal (${steps} moves)`;
        view.set(r.board);
      } catch (err) { toast(err.reason || String(err)); }
    };
    pick.addEventListener("change", () => { player = pick.value; show(0); });
    slider.addEventListener("input", () => show(Number(slider.value)));
    const controls = el("div", { class: "replay-controls" }, pick,
      el("button", { text: "⏮", "aria-label": "first", onclick: () => show(0) }),
      el("button", { text: "◀", id: "replay-back", "aria-label": "previous move", onclick: () => show(step - 1) }),
      slider,
      el("button", { text: "▶", id: "replay-next", "aria-label": "next move", onclick: () => show(Math.min(steps, step + 1)) }),
      el("button", { text: "⏭", "aria-label": "last", onclick: () => show(steps) }), caption);
    this.replayBox = el("div", { class: "board-box replay" }, el("h3", { text: "Replay" }), controls, view.node);
    this.renderAll();
    await show(0);
  }
}

// ------------------------------------------------------------------------------ a tournament

class TournamentPage {
  constructor(main, id) {
    this.main = main;
    this.id = id;
    this.info = null;
    this.standings = [];
    subscribe(this, (m) => this.event(m), () => this.load());
    this.load();
  }

  destroy() { this.unsubscribe(); }

  async load() {
    try {
      const snap = await conn.request({ type: "follow_tournament", tournament: this.id });
      this.info = snap.tournament;
      this.standings = snap.standings;
      this.render();
    } catch (err) {
      if (err.code === "offline") return;
      this.main.replaceChildren(el("section", { class: "card-box" }, el("h2", { text: `Tournament ${this.id}` }),
        el("p", { class: "error", text: err.reason || String(err) }), el("a", { href: "/", "data-link": true, text: "Back to the lobby" })));
    }
  }

  get registered() { return this.standings.some((s) => s.player === conn.player && s.status !== "withdrawn"); }

  event(m) {
    if (m.type !== "tournament_event" || m.tournament.id !== this.id) return;
    this.info = m.tournament;
    if (m.standings && m.standings.length) this.standings = m.standings;
    if (m.kind === "deal_started" && m.race && this.registered && this.info.format === "rounds") {
      toast(`Deal ${m.deal + 1} has started`, "info");
      navigate(`/r/${m.race}`);
      return;
    }
    this.render();
  }

  async act(message) {
    try {
      const reply = await conn.request({ ...message, tournament: this.id });
      if (reply.type === "race") { navigate(`/r/${reply.race.code}`); return; }
      await this.load();
    } catch (err) {
      toast(err.reason || String(err));
    }
  }

  render() {
    const t = this.info;
    const game = gameByKey(t.game);
    const registered = this.registered;
    const buttons = [];
    if (["scheduled", "registration", "starting", "running"].includes(t.status)) {
      if (!registered) buttons.push(el("button", { class: "primary", id: "register", text: "Register", onclick: () => this.act({ type: "register_tournament" }) }));
      else if (t.status !== "running") buttons.push(el("button", { id: "withdraw", text: "Withdraw", onclick: () => this.act({ type: "withdraw_tournament" }) }));
    }
    if (registered && t.format === "arena" && t.status === "running") {
      buttons.push(el("button", { class: "primary", id: "play-deal", text: "Play my next deal", onclick: () => this.act({ type: "open_deal" }) }));
    }
    if (registered && t.format === "rounds" && t.status === "running" && t.races.length) {
      buttons.push(el("a", { class: "button primary", href: `/r/${t.races[t.races.length - 1]}`, "data-link": true, text: `Play deal ${t.races.length}` }));
    }
    buttons.push(el("a", { class: "button quiet", href: "/", "data-link": true, text: "Lobby" }));
    const deals = [];
    for (let i = 0; i < t.deals; i++) {
      const race = t.races[i];
      deals.push(el("li", {}, `Deal ${i + 1}: `, race ? el("a", { href: `/w/${race}`, "data-link": true, text: `race ${race}` }) : el("span", { class: "muted", text: "not dealt yet" }),
        t.commitments[i] ? el("code", { class: "hint", text: ` ${t.commitments[i].slice(0, 16)}…` }) : null,
        t.seeds ? ` · seed ${String(t.seeds[i])}` : ""));
    }
    const table = el("table", { class: "standings", id: "tournament-standings" },
      el("thead", {}, el("tr", {}, el("th", { text: "#" }), el("th", { text: "Player" }), el("th", { text: "Cleared" }), el("th", { text: "Time" }),
        [...Array(t.deals).keys()].map((i) => el("th", { text: `Deal ${i + 1}` })), el("th", { text: "Status" }))),
      el("tbody", {}, this.standings.map((s) => el("tr", { class: s.player === conn.player ? "me" : "" },
        el("td", { text: s.place }), el("td", { text: s.name }), el("td", { text: s.cleared }), el("td", { text: clockText(s.time_ms) }),
        [...Array(t.deals).keys()].map((i) => el("td", { text: s.deals[i] ? `${s.deals[i].cleared} · ${s.deals[i].status.replace(/_/g, " ")}` : "" })),
        el("td", { text: s.status })))));
    this.main.replaceChildren(el("section", { class: "tournament" },
      el("h1", {}, t.name, " ", el("span", { class: "code", text: t.id })),
      el("p", { class: "summary" }, `${game ? game.name : t.game} · ${t.deals} deals · ${t.format} · `, el("strong", { id: "tournament-status", text: t.status })),
      el("p", { class: "meta" }, `Starts ${when(t.starts_at_ms)}`, t.schedule ? ` · repeats ${t.schedule} (${t.timezone})` : "",
        ` · registration opens ${when(t.registration_opens_ms)} · ${t.registered.length}/${t.max_entrants} registered`,
        registered ? " · you are registered" : ""),
      el("div", { class: "actions" }, buttons),
      el("div", { class: "columns" },
        el("section", { class: "card-box" }, el("h2", { text: "Standings" }), this.standings.length ? table : el("p", { class: "muted", text: "Nobody yet." })),
        el("section", { class: "card-box" }, el("h2", { text: "Deals" }), el("ul", { class: "deals" }, deals)))));
  }
}

// ------------------------------------------------------------------------------ start

async function boot() {
  const toggle = $("#four-colour");
  toggle.checked = store.fourColour;
  document.body.classList.toggle("four-colour", store.fourColour);
  toggle.addEventListener("change", () => {
    store.fourColour = toggle.checked;
    document.body.classList.toggle("four-colour", toggle.checked);
  });
  const response = await fetch("/api/games");
  GAMES = await response.json();
  route();
}

boot();
