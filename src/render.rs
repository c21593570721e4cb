//! A [`Walk`] as a picture: an SVG of the map with each mover's path in
//! its own colour and its steps numbered, and a self-contained HTML page
//! (no network: its script, style and data are in the file) that plays the
//! way step by step.
//!
//! Both draw cell `(r, c)` as the square at `(c * CELL, r * CELL)`, and a
//! mover at its cell's centre.

use crate::show::Walk;
use std::fmt::Write;

/// A cell's side, in pixels.
pub const CELL: usize = 32;

/// The movers' colours, in turn (readable on the light floor).
const COLOURS: [&str; 8] = [
    "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
];

/// The colour of style `i`: the palette's first, then hues a golden angle
/// apart (every style its own colour, however many there are).
fn colour(i: usize) -> String {
    match COLOURS.get(i) {
        Some(c) => (*c).to_string(),
        None => {
            let k = i - COLOURS.len();
            let hue = (k as f64 * 137.507_764) % 360.0;
            // Three lightnesses in turn keep close hues apart.
            let light = [38, 48, 30][k % 3];
            format!("hsl({hue:.1},65%,{light}%)")
        }
    }
}

/// Text escaped for XML and HTML.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A cell's centre.
fn centre([r, c]: [usize; 2]) -> (usize, usize) {
    (c * CELL + CELL / 2, r * CELL + CELL / 2)
}

/// The most common symbol of the open cells (the floor): not written on
/// the picture, so that what stands out is what differs.
fn floor(walk: &Walk) -> Option<&str> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for (sym, &solid) in walk.ground.iter().zip(&walk.solid) {
        if solid {
            continue;
        }
        match counts.iter_mut().find(|(s, _)| *s == sym) {
            Some(e) => e.1 += 1,
            None => counts.push((sym, 1)),
        }
    }
    counts.iter().max_by_key(|e| e.1).map(|e| e.0)
}

/// The map's cells and their symbols, as SVG elements.
fn cells(walk: &Walk, out: &mut String) {
    let floor = floor(walk);
    for (i, (sym, &solid)) in walk.ground.iter().zip(&walk.solid).enumerate() {
        let (r, c) = (i / walk.cols.max(1), i % walk.cols.max(1));
        let fill = if solid { "#4a4a4a" } else { "#f4f1ea" };
        let _ = write!(
            out,
            r##"<rect x="{}" y="{}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="#d8d2c4"/>"##,
            c * CELL,
            r * CELL
        );
        if !solid && Some(sym.as_str()) != floor && !sym.trim().is_empty() {
            let _ = write!(
                out,
                r##"<text x="{}" y="{}" class="ground">{}</text>"##,
                c * CELL + CELL / 2,
                r * CELL + CELL / 2,
                escape(sym)
            );
        }
    }
}

impl Walk {
    /// The way as one SVG picture: the map, each mover's path in its
    /// colour from a ring (its start) to a disc with its symbol (its end),
    /// and beside each cell a path enters, the number of the step that
    /// entered it.
    pub fn svg(&self, title: &str) -> String {
        let (map_w, h) = (self.cols * CELL, self.rows * CELL);
        let cost = self.frames.last().map_or(0, |f| f.cost);
        let said = format!("{title}: {} steps, cost {cost}", self.steps.len());
        // Wide enough for the caption (about 7 pixels a character).
        let w = map_w.max(said.chars().count() * 7 + 8);
        let caption = 24;
        let mut out = format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{}" viewBox="0 0 {w} {}" font-family="sans-serif">"##,
            h + caption,
            h + caption
        );
        let _ = write!(
            out,
            "<title>{}</title><style>.ground{{font-size:14px;fill:#8a8272;text-anchor:middle;dominant-baseline:central}}.num{{font-size:9px;font-weight:bold}}.sym{{font-size:14px;fill:#fff;text-anchor:middle;dominant-baseline:central}}</style>",
            escape(title)
        );
        cells(self, &mut out);
        for (m, mover) in self.movers.iter().enumerate() {
            let colour = colour(mover.style);
            let at: Vec<[usize; 2]> = self.frames.iter().map(|f| f.at[m]).collect();
            let points: Vec<String> = at
                .iter()
                .map(|&p| {
                    let (x, y) = centre(p);
                    format!("{x},{y}")
                })
                .collect();
            let _ = write!(
                out,
                r#"<g class="mover" data-name="{}"><polyline points="{}" fill="none" stroke="{colour}" stroke-width="3" stroke-opacity="0.7" stroke-linejoin="round"/>"#,
                escape(&mover.name),
                points.join(" ")
            );
            // The steps that enter each cell, in one label a cell (a cell
            // entered twice says `5,13`), in the mover's own corner of it.
            let mut entered: Vec<([usize; 2], Vec<String>)> = Vec::new();
            for (i, pair) in at.windows(2).enumerate() {
                if pair[0] != pair[1] {
                    let step = (i + 1).to_string();
                    match entered.iter_mut().find(|(c, _)| *c == pair[1]) {
                        Some((_, steps)) => steps.push(step),
                        None => entered.push((pair[1], vec![step])),
                    }
                }
            }
            let (dx, dy, anchor) = [
                (-14, -8, "start"),
                (14, -8, "end"),
                (-14, 12, "start"),
                (14, 12, "end"),
            ][m % 4];
            for (cell, steps) in &mut entered {
                // A cell entered many times says its first and last step
                // (`5,…,40`): a long way's numbers would pile up.
                if steps.len() > 2 {
                    let last = steps.pop().unwrap_or_default();
                    steps.truncate(1);
                    steps.extend(["…".to_string(), last]);
                }
                let (x, y) = centre(*cell);
                let _ = write!(
                    out,
                    r#"<text x="{}" y="{}" class="num" fill="{colour}" text-anchor="{anchor}">{}</text>"#,
                    x as i64 + dx,
                    y as i64 + dy,
                    steps.join(",")
                );
            }
            // A piece: its cells where it ends, in its colour.
            let end = *at.last().expect("a frame");
            for &[dr, dc] in &mover.shape {
                let (r, c) = (end[0] as i64 + dr as i64, end[1] as i64 + dc as i64);
                if r < 0 || c < 0 || r as usize >= self.rows || c as usize >= self.cols {
                    continue;
                }
                let _ = write!(
                    out,
                    r#"<rect class="body" x="{}" y="{}" width="{}" height="{}" rx="4" fill="{colour}" fill-opacity="0.35"/>"#,
                    c as usize * CELL + 2,
                    r as usize * CELL + 2,
                    CELL - 4,
                    CELL - 4
                );
            }
            let (x0, y0) = centre(at[0]);
            let (x1, y1) = centre(end);
            let _ = write!(
                out,
                r#"<circle cx="{x0}" cy="{y0}" r="9" fill="none" stroke="{colour}" stroke-width="3"/><circle cx="{x1}" cy="{y1}" r="10" fill="{colour}"/><text x="{x1}" y="{y1}" class="sym">{}</text></g>"#,
                escape(&mover.symbol)
            );
        }
        let _ = write!(
            out,
            r##"<text x="4" y="{}" font-size="13" fill="#333">{}</text></svg>"##,
            h + 17,
            escape(&said)
        );
        out.push('\n');
        out
    }

    /// The way as a page that plays it: the map drawn once, the movers
    /// moved step by step, the moves and the flags and counters of each
    /// step written beneath. Buttons: to the start, back, play/pause, step,
    /// to the end; keys: Space plays and pauses, the arrow keys step, Home
    /// and End jump.
    pub fn html(&self, title: &str) -> String {
        let (w, h) = (self.cols * CELL, self.rows * CELL);
        let mut board = String::new();
        cells(self, &mut board);
        // `</` cannot end the script early: JSON escapes nothing of it.
        let data = serde_json::to_string(self)
            .expect("a walk is plain data")
            .replace("</", "<\\/");
        // A colour for every style the walk uses.
        let styles = self.movers.iter().map(|m| m.style + 1).max().unwrap_or(0);
        let colours: Vec<String> = (0..styles.max(COLOURS.len())).map(colour).collect();
        let colours = serde_json::to_string(&colours).expect("strings");
        PAGE.replace("{{TITLE}}", &escape(title))
            .replace("{{W}}", &w.to_string())
            .replace("{{H}}", &h.to_string())
            .replace("{{CELL}}", &CELL.to_string())
            .replace("{{BOARD}}", &board)
            .replace("{{COLOURS}}", &colours)
            .replace("{{DATA}}", &data)
    }
}

/// The player page; `{{...}}` are filled in by [`Walk::html`].
const PAGE: &str = r##"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{TITLE}}</title>
<style>
body { font-family: sans-serif; margin: 1em; color: #222; }
.ground { font-size: 14px; fill: #8a8272; text-anchor: middle; dominant-baseline: central; }
.sym { font-size: 14px; fill: #fff; text-anchor: middle; dominant-baseline: central; pointer-events: none; }
#controls button { font-size: 1em; min-width: 3em; margin-right: .3em; }
#status { font-weight: bold; }
#state { font-family: monospace; white-space: pre-wrap; }
/* The board fills the window's width, and no more of its height than
   leaves the controls in sight. */
#board { width: 100%; max-width: calc(80vh * {{W}} / {{H}}); height: auto; }
</style>
</head>
<body>
<h1>{{TITLE}}</h1>
<svg id="board" xmlns="http://www.w3.org/2000/svg" width="{{W}}" height="{{H}}" viewBox="0 0 {{W}} {{H}}">
<g id="cells">{{BOARD}}</g>
<g id="trails"></g>
<g id="movers"></g>
</svg>
<p id="controls">
<button id="first" title="to the start (Home)">start</button>
<button id="back" title="a step back (Left)">back</button>
<button id="play" title="play or pause (Space)">play</button>
<button id="step" title="a step on (Right)">step</button>
<button id="last" title="to the end (End)">end</button>
</p>
<p id="status"></p>
<p id="state"></p>
<script id="walk" type="application/json">{{DATA}}</script>
<script>
"use strict";
const walk = JSON.parse(document.getElementById("walk").textContent);
const CELL = {{CELL}};
const COLOURS = {{COLOURS}};
const NS = "http://www.w3.org/2000/svg";
const last = walk.frames.length - 1;
let now = 0;
let timer = null;
const centre = ([r, c]) => [c * CELL + CELL / 2, r * CELL + CELL / 2];
const el = (name, attrs) => {
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  return e;
};
const trails = [], discs = [], labels = [], bodies = [];
walk.movers.forEach((m, i) => {
  const colour = COLOURS[m.style % COLOURS.length];
  const t = el("polyline", { fill: "none", stroke: colour, "stroke-width": 3, "stroke-opacity": 0.6, "stroke-linejoin": "round" });
  document.getElementById("trails").appendChild(t);
  const d = el("circle", { r: 11, fill: colour, class: "mover", "data-name": m.name });
  const s = el("text", { class: "sym" });
  s.textContent = m.symbol;
  const title = el("title", {});
  title.textContent = m.name;
  d.appendChild(title);
  // A piece: a square on each of its cells, moved with it.
  const body = (m.shape || []).map(() => {
    const r = el("rect", { class: "body", width: CELL - 4, height: CELL - 4, rx: 4, fill: colour, "fill-opacity": 0.35 });
    document.getElementById("trails").appendChild(r);
    return r;
  });
  document.getElementById("movers").append(d, s);
  trails.push(t); discs.push(d); labels.push(s); bodies.push(body);
});
function show(i) {
  now = Math.max(0, Math.min(last, i));
  const f = walk.frames[now];
  walk.movers.forEach((m, k) => {
    const [x, y] = centre(f.at[k]);
    (m.shape || []).forEach(([dr, dc], j) => {
      bodies[k][j].setAttribute("x", (f.at[k][1] + dc) * CELL + 2);
      bodies[k][j].setAttribute("y", (f.at[k][0] + dr) * CELL + 2);
    });
    discs[k].setAttribute("cx", x); discs[k].setAttribute("cy", y);
    // The movers this step moved are ringed: identical ones share a
    // colour, and are told apart so.
    const moved = now > 0 && walk.frames[now - 1].at[k].join() !== f.at[k].join();
    discs[k].setAttribute("stroke", moved ? "#000" : "none");
    discs[k].setAttribute("stroke-width", moved ? 2 : 0);
    labels[k].setAttribute("x", x); labels[k].setAttribute("y", y);
    const pts = walk.frames.slice(0, now + 1).map(g => centre(g.at[k]).join(","));
    trails[k].setAttribute("points", pts.join(" "));
  });
  const what = now === 0 ? "start" : walk.labels[now - 1];
  document.getElementById("status").textContent =
    `step ${now} of ${last}: ${what} (total cost ${f.cost})`;
  const parts = [];
  (f.facing || []).forEach((h, k) => { if (h) parts.push(`${walk.movers[k].name} facing ${h}`); });
  for (const k in f.state) parts.push(`${k}=${f.state[k]}`);
  document.getElementById("state").textContent = parts.join("  ");
  document.body.dataset.step = now;
}
function pause() {
  if (timer !== null) { clearInterval(timer); timer = null; }
  document.getElementById("play").textContent = "play";
}
function play() {
  if (timer !== null) { pause(); return; }
  if (now === last) show(0);
  document.getElementById("play").textContent = "pause";
  timer = setInterval(() => { if (now >= last) pause(); else show(now + 1); }, 400);
}
const on = (id, f) => document.getElementById(id).addEventListener("click", f);
on("first", () => { pause(); show(0); });
on("back", () => { pause(); show(now - 1); });
on("play", play);
on("step", () => { pause(); show(now + 1); });
on("last", () => { pause(); show(last); });
document.addEventListener("keydown", e => {
  const act = { ArrowRight: "step", ArrowLeft: "back", " ": "play", Home: "first", End: "last" }[e.key];
  if (act) { e.preventDefault(); document.getElementById(act).click(); }
});
show(0);
// `#keys=...` replays keys and clicks once the page is up (for tests, and
// for links to a step): n/p press Right/Left, s/b click step/back, P
// clicks play, f/l click first/last.
const keys = (location.hash.match(/^#keys=(.*)$/) || [])[1] || "";
const press = { n: "ArrowRight", p: "ArrowLeft" };
const click = { s: "step", b: "back", P: "play", f: "first", l: "last" };
for (const k of keys) {
  if (press[k]) document.dispatchEvent(new KeyboardEvent("keydown", { key: press[k], bubbles: true }));
  else if (click[k]) document.getElementById(click[k]).click();
}
</script>
</body>
</html>
"##;

#[cfg(test)]
mod tests {
    use super::*;

    /// However many styles a walk has, each has its own colour.
    #[test]
    fn every_style_has_its_own_colour() {
        let all: std::collections::HashSet<String> = (0..500).map(colour).collect();
        assert_eq!(all.len(), 500);
        assert_eq!(colour(0), COLOURS[0]);
    }
}
