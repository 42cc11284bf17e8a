// What every page shares: the one connection to the server and moving between pages.

import { Connection } from "./net.js";

/** The page's connection (set by `connect`, before any page is shown). */
export let conn = null;
let router = () => {};

/** Open the connection with its hooks (see `Connection`). */
export function connect(hooks) { conn = new Connection(hooks); }

/** Set the function that shows the page for the current address. */
export function setRouter(route) { router = route; }

/** Go to `path` within the page (a history entry, or replacing the current one). */
export function navigate(path, replace = false) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  router();
}
