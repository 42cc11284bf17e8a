// Small pieces every page uses: building DOM nodes, the toast, the screen reader's live region,
// times, icons and an in-page confirmation dialog.

export const $ = (sel, root = document) => root.querySelector(sel);

/** A DOM element: `el("a", {href, class, text, onclick, dataset}, ...children)`. */
export function el(tag, attrs = {}, ...children) {
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

const SVG = "http://www.w3.org/2000/svg";
const PATHS = {
  first: "M5 4h2v16H5zM20 4v16L9 12z",
  back: "M18 4v16L6 12z",
  next: "M6 4v16l12-8z",
  last: "M17 4h2v16h-2zM4 4v16l11-8z",
  close: "M6.4 5 5 6.4 10.6 12 5 17.6 6.4 19l5.6-5.6 5.6 5.6 1.4-1.4-5.6-5.6L19 6.4 17.6 5 12 10.6z",
  edit: "M4 17.2V20h2.8l8.3-8.3-2.8-2.8zM19.7 7.1a1 1 0 0 0 0-1.4l-1.4-1.4a1 1 0 0 0-1.4 0l-1.2 1.2 2.8 2.8z",
  shield: "M12 2 4 5v6c0 5 3.4 9.4 8 11 4.6-1.6 8-6 8-11V5zm-1.2 14.2-3.5-3.5 1.4-1.4 2.1 2.1 4.7-4.7 1.4 1.4z",
  undo: "M4 9l5-5v3.2c5.5 0 10 3.6 11 9.8-2-3.2-5.6-5-11-5V14z",
  gear: "M19.4 10.3 22.1 10.6 22.1 13.4 19.4 13.7 18.4 16.1 20.1 18.2 18.2 20.1 16.1 18.4 13.7 19.4 13.4 22.1 10.6 22.1 10.3 19.4 7.9 18.4 5.8 20.1 3.9 18.2 5.6 16.1 4.6 13.7 1.9 13.4 1.9 10.6 4.6 10.3 5.6 7.9 3.9 5.8 5.8 3.9 7.9 5.6 10.3 4.6 10.6 1.9 13.4 1.9 13.7 4.6 16.1 5.6 18.2 3.9 20.1 5.8 18.4 7.9zM12 8.6a3.4 3.4 0 1 0 0 6.8a3.4 3.4 0 1 0 0-6.8z",
};

/** An inline SVG icon (drawn, so it shows without an emoji font); hidden from screen readers. */
export function icon(name) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "icon");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", PATHS[name]);
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  return svg;
}

/** "1st", "2nd", "3rd", "11th"... */
export const ordinal = (n) => `${n}${["th", "st", "nd", "rd"][(n % 100 > 10 && n % 100 < 14) || n % 10 > 3 ? 0 : n % 10]}`;

/** "m:ss" for a time in milliseconds. */
export function clockText(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(total / 60), s = total % 60;
  return `${m}:${String(s).padStart(2, "0")}`;
}

/** A local date and time for a Unix epoch in milliseconds ("" for none). */
export function when(ms) {
  if (!ms) return "";
  return new Date(ms).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

let toastTimer = null;
/** A short message at the foot of the screen for four seconds (`kind`: error, info). */
export function toast(text, kind = "error") {
  const box = $("#toast");
  box.textContent = text;
  box.className = `toast ${kind}`;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 4000);
}

/** Say `text` to a screen reader (a polite live region; nothing shows). */
export function announce(text) {
  const region = $("#announce");
  if (!region) return;
  // A change of text is what a live region announces: clear it first so a repeat is heard too.
  region.textContent = "";
  setTimeout(() => { region.textContent = text; }, 30);
}

/**
 * Ask a yes/no question in an in-page dialog; resolves true for `yes`. The dialog is labelled
 * by its title, and Escape or the `no` button answers false.
 */
export function ask({ title, text, yes, no = "Cancel", id = "ask" }) {
  return new Promise((resolve) => {
    const dialog = el("dialog", { class: "ask", id, "aria-labelledby": `${id}-title` },
      el("h2", { id: `${id}-title`, text: title }),
      text ? el("p", { text }) : null,
      el("div", { class: "actions" },
        el("button", { class: "primary", id: `${id}-yes`, text: yes, onclick: () => dialog.close("yes") }),
        el("button", { id: `${id}-no`, text: no, onclick: () => dialog.close("no") })));
    dialog.addEventListener("close", () => { dialog.remove(); resolve(dialog.returnValue === "yes"); });
    document.body.append(dialog);
    dialog.showModal();
  });
}
