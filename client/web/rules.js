// A rules page's boards (server/rules_page.py): the table as it is dealt, and a worked example
// to step through with Back and Next, each move in words. Drawn by the race page's renderer.

import { BoardView } from "./board.js";
import { setGames } from "./cards.js";
import { el, icon } from "./ui.js";

function example(box) {
  const steps = JSON.parse(box.dataset.steps);
  const view = new BoardView(box.dataset.game, { label: box.classList.contains("layout") ? "the table as it is dealt" : "the example" });
  box.append(view.node);
  view.set(steps[0].board);
  if (steps.length < 2) return;
  let at = 0;
  const caption = el("p", { class: "caption", "aria-live": "polite" });
  const back = el("button", { type: "button", class: "example-back", onclick: () => show(at - 1) }, icon("back"), "Back");
  const next = el("button", { type: "button", class: "primary example-next", onclick: () => show(at + 1) }, "Next move", icon("next"));
  const show = (n) => {
    at = Math.max(0, Math.min(steps.length - 1, n));
    view.set(steps[at].board);
    caption.textContent = at ? `Move ${at} of ${steps.length - 1}: ${steps[at].said}` : `The position: ${steps.length - 1} moves to follow.`;
    back.disabled = at === 0;
    next.disabled = at === steps.length - 1;
  };
  box.prepend(el("div", { class: "actions" }, back, next), caption);
  show(0);
}

async function boot() {
  const response = await fetch("/api/games");
  setGames(await response.json());
  for (const box of document.querySelectorAll(".rules-board[data-steps]")) example(box);
}

boot();
