// Patience Arena in the browser: the page's start, its header and its router.
//
// The page holds no rules of its own: every board the server sends to its entrant lists the
// legal moves, and the page offers exactly those. Pages: "/" the lobby, "/r/CODE" a race (join,
// play; a race you are not in is watched), "/w/CODE" a race to watch (or replay, once
// finished), "/t/ID" a tournament, "/me" your finished races, "/account" your account (claim,
// log in, move to another device, passkeys), "/organise" an organiser's tournaments, "/p/NAME" or
// "/p/ID" a player's profile, "/leaderboard" and "/leaderboard/GAME" the leaderboards. Each page
// is a module of its own.

import { setGames } from "./cards.js";
import { store } from "./net.js";
import { AccountPage } from "./account.js";
import { HistoryPage } from "./history.js";
import { LeaderboardPage, LeaderboardPicker } from "./leaderboard.js";
import { LobbyPage } from "./lobby.js";
import { OrganisePage } from "./organise.js";
import { ProfilePage, profileTarget } from "./profile.js";
import { RacePage } from "./race.js";
import { applySettings, openSettings } from "./settings.js";
import { conn, connect, navigate, setRouter } from "./shell.js";
import { TournamentPage } from "./tournament.js";
import { $, el, icon, toast } from "./ui.js";

let page = null; // the current page: {destroy()}

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
  else if (/^\/me\/?$/.test(path)) page = new HistoryPage(main);
  else if (/^\/organise\/?$/.test(path)) page = new OrganisePage(main);
  else if (/^\/account\/?$/.test(path)) page = new AccountPage(main);
  else if ((m = /^\/p\/([^/]{1,200})\/?$/.exec(path))) page = new ProfilePage(main, profileTarget(m[1]));
  else if (/^\/leaderboard\/?$/.test(path)) page = new LeaderboardPicker(main);
  else if ((m = /^\/leaderboard\/([A-Za-z0-9_-]{1,32})\/?$/.exec(path))) page = new LeaderboardPage(main, m[1]);
  else page = new LobbyPage(main);
  main.focus({ preventScroll: true });
}

function setOffline(offline) {
  $("#offline").hidden = !offline;
  document.body.classList.toggle("is-offline", offline);
}

/** The header's name button opens a dialog to choose the name the others see. */
function askName() {
  const input = el("input", { id: "name-input", value: conn.name || store.name, maxlength: 32, required: true,
    autocomplete: "nickname" });
  const dialog = el("dialog", { id: "name-dialog", class: "ask", "aria-labelledby": "name-dialog-title" },
    el("form", { method: "dialog" },
      el("h2", { id: "name-dialog-title", text: "Your name" }),
      el("label", {}, "The name the others see ", input),
      el("p", { class: "hint", text: "It is kept in this browser. Races you are already in keep the name you entered with." }),
      el("p", {}, el("a", { href: "/account", "data-link": true, id: "name-account", onclick: () => dialog.close("cancel"),
        text: "Your account" }), ": claim this name, log in, move to another device"),
      el("div", { class: "actions" },
        el("button", { class: "primary", value: "save", id: "name-save", text: "Save" }),
        el("button", { value: "cancel", formnovalidate: true, text: "Cancel" }))));
  dialog.addEventListener("close", async () => {
    dialog.remove();
    const name = input.value.trim();
    if (dialog.returnValue !== "save" || !name || name === conn.name) return;
    try {
      await conn.rename(name);
      toast(`You are now ${conn.name}`, "info");
    } catch (err) {
      toast(err.reason || String(err));
    }
  });
  document.body.append(dialog);
  dialog.showModal();
  input.select();
}

/** This player went on in another tab (one connection per player): say so, and offer to go on
 * here instead, or to play in this tab as a second player of its own. */
function displaced() {
  const dialog = el("dialog", { id: "displaced-dialog", class: "ask", "aria-labelledby": "displaced-title" },
    el("form", { method: "dialog" },
      el("h2", { id: "displaced-title", text: "Playing in another tab" }),
      el("p", { text: "You are playing in another tab or window of this browser. Your races and history are the same there." }),
      el("div", { class: "actions" },
        el("button", { class: "primary", value: "here", id: "displaced-here", text: "Play here instead" }),
        el("button", { value: "second", id: "displaced-second", text: "Play here as a second player" }))));
  dialog.addEventListener("close", () => {
    dialog.remove();
    if (dialog.returnValue === "second") conn.separate();
    else conn.resume();
  });
  document.body.append(dialog);
  dialog.showModal();
}

/** The service worker (sw.js, served by server/web.py) keeps the page's files, so that it opens
 * at once and also with the server out of reach. A new version takes over by itself; the page
 * says so, and uses it from its next load. */
function installable() {
  if (!("serviceWorker" in navigator)) return; // (plain http away from localhost: no worker)
  const had = Boolean(navigator.serviceWorker.controller);
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (had) toast("A new version of the page is ready: reload to use it", "info");
  });
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
}

async function boot() {
  applySettings();
  const gear = $("#settings");
  gear.append(icon("gear"));
  gear.addEventListener("click", openSettings);
  installable();
  const rename = $("#rename");
  rename.append(icon("edit"));
  rename.addEventListener("click", askName);
  connect({
    onWelcome: (message) => {
      $("#who").textContent = message.name;
      $("#guest-tag").hidden = conn.claimed; // a guest's name is marked as such
      rename.classList.toggle("guest", !conn.claimed);
      const guest = conn.claimed ? "" : " guest (not claimed)";
      rename.setAttribute("aria-label", `Your name: ${message.name}${guest}. Change it`);
    },
    onOffline: (offline) => setOffline(offline),
    onNotice: (text) => toast(text),
    onDisplaced: () => displaced(),
  });
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-link]");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    navigate(link.getAttribute("href"));
  });
  window.addEventListener("popstate", route);
  setRouter(route);
  const response = await fetch("/api/games");
  setGames(await response.json());
  route();
}

boot();
