// The player's settings: four-colour suits, the card back, animations, sounds, auto-collect, tap
// to move and hiding ratings while playing. Kept in localStorage (`store` in net.js); the
// header's gear opens the dialog, and every change applies at once: the page's classes here, and
// whoever listens (`onSettings`).

import { startAudio } from "./sound.js";
import { store } from "./store.js";
import { el } from "./ui.js";

/** The card backs: a CSS design each (style.css, `.back-KEY .card.down`). */
export const CARD_BACKS = [
  { key: "blue", name: "Blue stripes" },
  { key: "red", name: "Red lattice" },
  { key: "green", name: "Green checks" },
  { key: "night", name: "Night and gold" },
];

const reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
const listeners = new Set();

/** True when cards may move on screen: the Animations setting is on and the system does not ask
 * for reduced motion. When false nothing animates at all (style.css stops every transition and
 * animation under `body:not(.motion)`). */
export function motionOn() { return store.animations && !(reduced && reduced.matches); }

/** Call `listener()` after every change of a setting; returns a function that stops it. */
export function onSettings(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Put the settings on the page: its classes (four colours, card back, motion). */
export function applySettings() {
  const body = document.body;
  body.classList.toggle("four-colour", store.fourColour);
  for (const back of CARD_BACKS) body.classList.toggle(`back-${back.key}`, store.cardBack === back.key);
  body.classList.toggle("motion", motionOn());
}

function changed() {
  applySettings();
  for (const listener of [...listeners]) listener();
}

if (reduced) reduced.addEventListener("change", changed);

const SWITCHES = [
  { key: "fourColour", id: "four-colour", label: "Four-colour suits", hint: "Clubs green, diamonds blue." },
  { key: "tapToMove", id: "set-tap", label: "Tap to move", hint: "A tap (or Enter) sends a card to its best place; tap it again for the next. Off: tap a card, then where it goes." },
  { key: "autoCollect", id: "set-collect", label: "Auto-collect", hint: "After each move, cards that nothing can need go to the foundations by themselves." },
  { key: "animations", id: "set-animations", label: "Animations", hint: "Cards travel and turn over. Always off while your system asks for reduced motion." },
  { key: "sounds", id: "set-sounds", label: "Sounds", hint: "Short sounds for a move, a deal, a refused move and a win." },
  { key: "hideRatings", id: "set-hide-ratings", label: "Hide ratings while playing", hint: "Rated races show players' ratings beside their names; on: not while you play, only once the race is over." },
];

/** Open the settings dialog (modal, labelled by its title; Escape or Done closes it). */
export function openSettings() {
  const opener = document.activeElement;
  const check = ({ key, id, label, hint }) => {
    const input = el("input", { type: "checkbox", id, checked: store[key], "aria-describedby": `${id}-hint` });
    input.addEventListener("change", () => {
      store[key] = input.checked;
      if (key === "sounds") startAudio();
      changed();
    });
    return el("div", { class: "setting" }, el("label", { class: "check" }, input, ` ${label}`),
      el("p", { class: "hint", id: `${id}-hint`, text: hint }));
  };
  const backs = CARD_BACKS.map(({ key, name }) => {
    const input = el("input", { type: "radio", name: "card-back", value: key, id: `back-${key}`, checked: store.cardBack === key });
    input.addEventListener("change", () => { if (input.checked) { store.cardBack = key; changed(); } });
    return el("label", { class: "back-choice", for: `back-${key}` }, input,
      el("span", { class: `back-sample back-${key}`, "aria-hidden": "true" }, el("span", { class: "card down" })), ` ${name}`);
  });
  const byKey = Object.fromEntries(SWITCHES.map((s) => [s.key, s]));
  const dialog = el("dialog", { id: "settings-dialog", class: "ask settings", "aria-labelledby": "settings-title" },
    el("form", { method: "dialog" },
      el("h2", { id: "settings-title", text: "Settings" }),
      el("fieldset", {}, el("legend", { text: "Cards" }), check(byKey.fourColour),
        el("fieldset", { class: "backs" }, el("legend", { text: "Card back" }), backs)),
      el("fieldset", {}, el("legend", { text: "Play" }), check(byKey.tapToMove), check(byKey.autoCollect), check(byKey.hideRatings)),
      el("fieldset", {}, el("legend", { text: "Motion and sound" }), check(byKey.animations), check(byKey.sounds)),
      el("p", { class: "hint", text: "Kept in this browser." }),
      el("div", { class: "actions" }, el("button", { class: "primary", value: "done", id: "settings-done", text: "Done" }))));
  dialog.addEventListener("close", () => {
    dialog.remove();
    if (opener && opener.isConnected) opener.focus();
  });
  document.body.append(dialog);
  dialog.showModal();
}
