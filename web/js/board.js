// The board: the 24 points named as in docs/rules.md (columns a-g from the left,
// rows 1-7 from the bottom), drawn in SVG, and the arrow-key moves between
// points.

export const POINTS = [
  "a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3", "e3", "a4", "b4", "c4",
  "e4", "f4", "g4", "c5", "d5", "e5", "b6", "d6", "f6", "a7", "d7", "g7",
];

const UNIT = 100;
const SVG = "http://www.w3.org/2000/svg";

/** Column 0..6 (a..g) and row 0..6 (1..7) of a point. */
export function coordinates(point) {
  return [point.charCodeAt(0) - 97, Number(point[1]) - 1];
}

/** Where a point is drawn: x to the right, y down (row 7 on top). */
function place(point) {
  const [col, row] = coordinates(point);
  return [col * UNIT, (6 - row) * UNIT];
}

const LINES = [
  ["a1", "g1"], ["g1", "g7"], ["g7", "a7"], ["a7", "a1"],
  ["b2", "f2"], ["f2", "f6"], ["f6", "b6"], ["b6", "b2"],
  ["c3", "e3"], ["e3", "e5"], ["e5", "c5"], ["c5", "c3"],
  ["d1", "d3"], ["d5", "d7"], ["a4", "c4"], ["e4", "g4"],
];

function element(name, attributes = {}, parent = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/**
 * The point reached from `point` by an arrow key: the nearest point in that
 * direction, those on the same line first.
 */
export function step(point, key) {
  const [dx, dy] = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] }[key];
  const [x, y] = coordinates(point);
  let best = point;
  let bestScore = Infinity;
  for (const q of POINTS) {
    const [qx, qy] = coordinates(q);
    const along = (qx - x) * dx + (qy - y) * dy;
    const across = Math.abs((qx - x) * dy - (qy - y) * dx);
    if (along <= 0) continue;
    const score = along + 2 * across;
    if (score < bestScore) {
      bestScore = score;
      best = q;
    }
  }
  return best;
}

/**
 * The board in an <svg>: `draw(view)` shows stones, markers, the selection
 * and the keyboard cursor; `onPoint(point)` is called on a click or touch.
 */
export class Board {
  constructor(svg, onPoint) {
    this.svg = svg;
    svg.setAttribute("viewBox", `${-0.8 * UNIT} ${-0.6 * UNIT} ${7.45 * UNIT} ${7.45 * UNIT}`);
    element("rect", {
      class: "board-face", x: -0.52 * UNIT, y: -0.52 * UNIT,
      width: 7.04 * UNIT, height: 7.04 * UNIT, rx: 22,
    }, svg);
    const lines = element("g", { class: "lines" }, svg);
    for (const [a, b] of LINES) {
      const [x1, y1] = place(a);
      const [x2, y2] = place(b);
      element("line", { x1, y1, x2, y2 }, lines);
    }
    const labels = element("g", { class: "labels", "aria-hidden": "true" }, svg);
    for (let i = 0; i < 7; i++) {
      const column = element("text", { x: i * UNIT, y: 6.78 * UNIT }, labels);
      column.textContent = String.fromCharCode(97 + i);
      const row = element("text", { x: -0.68 * UNIT, y: (6 - i) * UNIT + 9 }, labels);
      row.textContent = String(i + 1);
    }
    this.points = {};
    for (const point of POINTS) {
      const [x, y] = place(point);
      const g = element("g", { class: "point", "data-point": point, transform: `translate(${x} ${y})` }, svg);
      element("circle", { class: "spot", r: 9 }, g);
      element("circle", { class: "halo", r: 40 }, g);
      element("circle", { class: "stone", r: 30 }, g);
      element("circle", { class: "shine", r: 18, cx: -7, cy: -8 }, g);
      element("circle", { class: "ring", r: 37 }, g);
      const badge = element("g", { class: "badge" }, g);
      element("circle", { r: 17 }, badge);
      element("text", { y: 6 }, badge);
      element("circle", { class: "cursor", r: 46 }, g);
      element("circle", { class: "hit", r: 48 }, g);
      element("title", {}, g).textContent = point;
      g.addEventListener("click", () => onPoint(point));
      this.points[point] = g;
    }
  }

  /**
   * Shows a view: `stones` {point: "w"|"b"}, `markers` {point: {kind,
   * text, title}} (kind win, draw or loss), `selected` (a point or null),
   * `removable` (points that may be taken), `last` (points of the last
   * move), `cursor` (a point or null).
   */
  draw(view) {
    for (const point of POINTS) {
      const g = this.points[point];
      const stone = view.stones[point] || "";
      g.dataset.stone = stone;
      g.classList.toggle("selected", view.selected === point);
      g.classList.toggle("last", view.last.includes(point));
      g.classList.toggle("cursor-on", view.cursor === point);
      if (view.removable.includes(point)) g.dataset.removable = "true";
      else delete g.dataset.removable;
      const marker = view.markers[point];
      if (marker) {
        g.dataset.marker = marker.kind;
        g.querySelector(".badge text").textContent = marker.text;
        g.querySelector("title").textContent = `${point}: ${marker.title}`;
      } else {
        delete g.dataset.marker;
        g.querySelector("title").textContent = point;
      }
    }
  }
}
