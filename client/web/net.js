// The connection to the server and what the browser remembers of the player.
//
// One websocket speaks the server's protocol (docs/protocol.md): MessagePack frames, one map
// each, through the vendored @msgpack/msgpack codec. It says hello with the player's token kept
// in localStorage (store.js), reconnects by itself, and resolves each request with its reply.
// The server serves a player on one connection at a time: a tab whose connection the server
// closed because another tab said hello as the same player does not reconnect by itself; it
// asks (`onDisplaced`) whether to take the player back (`resume`) or to play as a second player
// of its own (`separate`).

import { store } from "./store.js";

const { Encoder, Decoder } = window.MessagePack;
const encoder = new Encoder({ useBigInt64: true });
const decoder = new Decoder({ useBigInt64: true });
const PROTOCOL = 1;

/** What the browser keeps (store.js): the name, the session token, the settings. */
export { store };

/** A request the server refused: `code` (docs/protocol.md, Errors) and a `reason` for people;
 * `retryAfter`: for a rate-limited login, the seconds to wait (else null); `opensAt`: for
 * spoiler_locked, when the lock opens (Unix epoch ms; else null). */
export class ArenaError extends Error {
  constructor(code, reason, retryAfter = null, opensAt = null) {
    super(`${reason} [${code}]`); this.code = code; this.reason = reason; this.retryAfter = retryAfter; this.opensAt = opensAt;
  }
}

/** Big integers (seeds) arrive as BigInt; everything that fits a double becomes a number. */
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

/** A name for a player who has not chosen one ("queen-417"). */
export function randomName() {
  const words = ["ace", "jack", "queen", "king", "knave", "deuce", "trey", "spade", "heart", "club"];
  return `${words[Math.floor(Math.random() * words.length)]}-${Math.floor(100 + Math.random() * 900)}`;
}

/**
 * One websocket to the server, said hello to; reconnects by itself with its session token.
 * Hooks: `onWelcome(message)`, `onOffline(offline)`, `onNotice(text)` (an error nobody asked
 * for), `onDisplaced()` (another tab goes on as this player); `listeners` get every event (a message without `req`), `reconnectHooks` run after each
 * welcome with `resumed` (true: the same player as before).
 */
export class Connection {
  constructor({ onWelcome = () => {}, onOffline = () => {}, onNotice = () => {}, onDisplaced = () => {} } = {}) {
    this.ws = null;
    this.req = 0;
    this.waiting = new Map(); // req -> {resolve, reject}
    this.listeners = new Set();
    this.reconnectHooks = new Set();
    this.player = null;
    this.name = null;
    this.claimed = false; // the welcome's: whether this player's name is claimed (else a guest)
    this.becoming = null; // the req of a login, redeem or passkey login, answered by a welcome
    this.serverOffset = 0; // server wall clock minus ours, in milliseconds
    this.delay = 250;
    this.hooks = { onWelcome, onOffline, onNotice, onDisplaced };
    this.displaced = false; // another tab took this player over: no reconnecting until asked
    this.newReady();
    window.addEventListener("offline", () => this.ws && this.ws.close());
    window.addEventListener("online", () => { if (!this.displaced) this.open(); });
    this.open();
  }

  /** The server's wall clock now (Unix epoch, ms), as far as the welcome told us. */
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
    ws.onclose = (event) => this.closed(ws, event);
    ws.onerror = () => {}; // the close that follows says it all
  }

  hello() {
    if (!store.name) store.name = randomName();
    const hello = { type: "hello", name: store.name, protocol: PROTOCOL };
    if (store.token) hello.token = store.token;
    this.send(hello);
  }

  closed(ws, event) {
    if (ws !== this.ws) return;
    if (event && event.code === 1008 && /another connection/.test(event.reason || "")) {
      this.displaced = true;
      this.player = null;
      if (this.isReady) this.newReady();
      for (const { reject } of this.waiting.values()) reject(new ArenaError("offline", "playing in another tab"));
      this.waiting.clear();
      this.hooks.onDisplaced();
      return;
    }
    const resumed = this.player !== null;
    this.player = null;
    if (this.isReady) this.newReady();
    for (const { reject } of this.waiting.values()) reject(new ArenaError("offline", "the connection dropped"));
    this.waiting.clear();
    this.hooks.onOffline(true); // (also when it never got through: a page opened offline, from the cache)
    const delay = this.delay;
    this.delay = Math.min(5000, this.delay * 2);
    setTimeout(() => { if (navigator.onLine !== false && !this.displaced) this.open(); }, resumed ? 100 : delay);
  }

  /** After `onDisplaced`: go on as the browser's player in this tab (the other tab is told). */
  resume() { this.displaced = false; this.open(); }

  /** After `onDisplaced`: this tab becomes a second player of its own (its own token, in this
   * tab's sessionStorage), so that both tabs may enter the same race as two entrants. */
  separate() {
    if (store.separate) store.token = null; // (a duplicated tab shares its token: a new player)
    store.separate = true;
    this.displaced = false;
    this.open();
  }

  /** One page of your finished races (`kind` "races") or ended tournaments ("tournaments"),
   * newest first (`before`: the previous page's cursor). */
  history(before = null, limit = 20, kind = "races") {
    const message = { type: "history", limit, kind };
    if (before) message.before = before;
    return this.request(message);
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
      this.hooks.onNotice(`${message.reason}: you are ${store.name} for now`);
      return this.hello();
    }
    if (message.req !== undefined && message.req !== null && this.waiting.has(message.req)) {
      const { resolve, reject } = this.waiting.get(message.req);
      this.waiting.delete(message.req);
      if (message.type === "error") reject(new ArenaError(message.code, message.reason, message.retry_after_s ?? null, message.opens_at_ms ?? null));
      else resolve(message);
      return;
    }
    if (message.type === "error") {
      this.hooks.onNotice(message.reason);
      return;
    }
    for (const listener of [...this.listeners]) listener(message);
  }

  welcomed(message) {
    const resumed = store.token === message.token;
    store.token = message.token;
    this.player = message.player;
    this.name = message.name;
    this.claimed = Boolean(message.claimed);
    store.name = message.name;
    this.serverOffset = message.server_time_ms - Date.now();
    this.delay = 250;
    this.hooks.onOffline(false);
    this.hooks.onWelcome(message);
    this.isReady = true;
    this.resolveReady();
    for (const hook of [...this.reconnectHooks]) hook(resumed);
    const becoming = this.becoming;
    if (becoming !== null && this.waiting.has(becoming)) {
      this.becoming = null;
      const { resolve } = this.waiting.get(becoming);
      this.waiting.delete(becoming);
      resolve(message);
    }
  }

  /** Send `message` (login, redeem, a login's passkey_finish), which the server answers with a
   * welcome (a new token for this browser, kept) or an error (rejected with an ArenaError). */
  async become(message) {
    await this.ready;
    const req = ++this.req;
    return new Promise((resolve, reject) => {
      this.waiting.set(req, { resolve, reject });
      this.becoming = req;
      this.send({ ...message, req, protocol: PROTOCOL });
    });
  }

  /** Claim this player's name with `password` (docs/protocol.md, claim). */
  async claim(password) {
    const reply = await this.request({ type: "claim", password });
    this.claimed = true;
    this.name = reply.name;
    store.name = reply.name;
    this.hooks.onWelcome({ name: reply.name, claimed: true });
    return reply;
  }

  /** Become the player that claimed `name`, if `password` is its password. */
  login(name, password) { return this.become({ type: "login", name, password }); }

  /** Become the player a transfer `code` was made for. */
  redeem(code) { return this.become({ type: "redeem", code }); }

  /** Delete this player's identity; the browser then starts afresh as a new guest. */
  async forgetMe() {
    const reply = await this.request({ type: "forget_me" });
    store.token = null;
    return reply;
  }

  /** Add a passkey to this claimed player (WebAuthn in this browser). */
  async addPasskey() {
    const begun = await this.request({ type: "passkey_begin", purpose: "register" });
    const options = PublicKeyCredential.parseCreationOptionsFromJSON(JSON.parse(begun.options));
    const credential = await navigator.credentials.create({ publicKey: options });
    return this.request({ type: "passkey_finish", credential: JSON.stringify(credential.toJSON()) });
  }

  /** Log in with a passkey this browser keeps (`name`: only that claimed player's). */
  async passkeyLogin(name = null) {
    const message = { type: "passkey_begin", purpose: "login" };
    if (name) message.name = name;
    const begun = await this.request(message);
    const options = PublicKeyCredential.parseRequestOptionsFromJSON(JSON.parse(begun.options));
    const credential = await navigator.credentials.get({ publicKey: options });
    return this.become({ type: "passkey_finish", credential: JSON.stringify(credential.toJSON()) });
  }

  /** Send a request and wait for its reply (rejected with an ArenaError on an error reply). */
  async request(message) {
    await this.ready;
    const req = ++this.req;
    return new Promise((resolve, reject) => {
      this.waiting.set(req, { resolve, reject });
      this.send({ ...message, req });
    });
  }

  /** Take a new name for the races joined from now on; resolves with the name the server keeps. */
  async rename(name) {
    const reply = await this.request({ type: "rename", name });
    this.name = reply.name;
    store.name = reply.name;
    store.nameChosen = true;
    this.hooks.onWelcome({ name: reply.name });
    return reply.name;
  }

  /** Run `onEvent` for every event and `onReconnect` after every welcome, until `off()`. */
  subscribe(onEvent, onReconnect = null) {
    this.listeners.add(onEvent);
    if (onReconnect) this.reconnectHooks.add(onReconnect);
    return () => { this.listeners.delete(onEvent); if (onReconnect) this.reconnectHooks.delete(onReconnect); };
  }
}
