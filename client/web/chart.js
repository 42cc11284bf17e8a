// A small line chart of a rating over its rated races, drawn as inline SVG by the page (no chart
// library): the line, a dot per race, the lowest and highest rating on the left axis and the first
// and last race's date under the bottom one. For screen readers the chart is one image whose label
// says the first, last and best rating.

const SVG = "http://www.w3.org/2000/svg";
/** The drawing's own units (it scales to its box: at 360 px it is drawn about 290 px wide, so a
 * label of 14 units is still about 13 px there). */
const W = 300, H = 150, LEFT = 48, RIGHT = 12, TOP = 12, BOTTOM = 28;

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

const day = (ms) => new Date(ms).toLocaleDateString([], { day: "numeric", month: "short" });

/**
 * The chart of `points` (RatingPoint maps of one game: `finished_ms`, `rating` in display points,
 * oldest first) as an `<svg role="img">` labelled with `label` ("Rating in Golf") and a summary of
 * first, last and best. One point shows as a dot.
 */
export function ratingChart(points, label) {
  const ratings = points.map((p) => p.rating);
  const first = ratings[0], last = ratings[ratings.length - 1], best = Math.max(...ratings);
  const races = `${points.length} rated race${points.length === 1 ? "" : "s"}`;
  const chart = svg("svg", {
    viewBox: `0 0 ${W} ${H}`, class: "rating-chart", role: "img",
    "aria-label": `${label} over ${races}: first ${first}, last ${last}, best ${best}`,
  });
  let low = Math.min(...ratings), high = best;
  if (high - low < 20) { const mid = (high + low) / 2; low = Math.floor(mid - 10); high = Math.ceil(mid + 10); }
  const x = (i) => LEFT + (points.length === 1 ? (W - LEFT - RIGHT) / 2 : (i * (W - LEFT - RIGHT)) / (points.length - 1));
  const y = (r) => TOP + ((high - r) * (H - TOP - BOTTOM)) / (high - low);
  chart.append(
    svg("line", { x1: LEFT, y1: TOP, x2: LEFT, y2: H - BOTTOM, class: "axis" }),
    svg("line", { x1: LEFT, y1: H - BOTTOM, x2: W - RIGHT, y2: H - BOTTOM, class: "axis" }),
    svg("text", { x: LEFT - 4, y: y(high) + 5, "text-anchor": "end", class: "tick" }, String(Math.round(high))),
    svg("text", { x: LEFT - 4, y: y(low) + 5, "text-anchor": "end", class: "tick" }, String(Math.round(low))),
    svg("text", { x: LEFT, y: H - 7, "text-anchor": "start", class: "tick" }, day(points[0].finished_ms)));
  if (points.length > 1) {
    chart.append(svg("text", { x: W - RIGHT, y: H - 7, "text-anchor": "end", class: "tick" }, day(points[points.length - 1].finished_ms)));
    chart.append(svg("polyline", { points: points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" "), class: "line" }));
  }
  for (const [i, p] of points.entries()) chart.append(svg("circle", { cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: 3, class: "dot" }));
  return chart;
}
