// attnzoo's attention explorer: explore.html's one script, no library.
// The data (experiments/explore.go, exploreData) is the JSON in
// #explore-data; each run's weights on an example are bytes b, base64,
// shown as b/scale. window.attnzooExplorer lets a test read what is shown.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("explore-data").textContent);
  const $ = (id) => document.getElementById(id);

  // cividis (Nuñez, Anderton & Renslow 2018), readable with any colour
  // vision: the polynomial fit of d3-scale-chromatic, t in [0, 1].
  const CIVIDIS = [
    [-4.54, -35.34, 2381.73, -6402.7, 7024.72, -2710.57],
    [32.49, 170.73, 52.82, -131.46, 176.58, -67.37],
    [81.24, 442.36, -2482.43, 6167.24, -6614.94, 2475.67],
  ];
  function colour(t) {
    t = Math.max(0, Math.min(1, t));
    const c = CIVIDIS.map((k) => {
      let v = 0;
      for (let i = k.length - 1; i >= 0; i--) v = v * t + k[i];
      return Math.max(0, Math.min(255, Math.round(v)));
    });
    return "rgb(" + c.join(",") + ")";
  }

  // prepare readies an example: its gold links as sets, and each of its
  // attentions (attns) decoded.
  function prepare(ex, attns) {
    if (!ex.src) ex.src = Array.from({ length: ex.grid[0] * ex.grid[1] }, (_, i) => "r" + i); // an image's regions
    ex.sureSet = new Set((ex.sure || []).map((l) => l[0] + "-" + l[1]));
    ex.possSet = new Set((ex.possible || []).map((l) => l[0] + "-" + l[1]));
    for (const a of attns) {
      if (!a) continue;
      a.src = a.src || ex.src;
      a.q = bytes(a.w);
      a.fq = bytes(a.f || "");
      a.fref = a.fref || ex.ref;
      a.frows = a.frows || 0;
      if (a.tw) {
        // tk words a step, space-separated; their probabilities in thousandths
        const ws = a.tw.split(" ");
        a.topw = [];
        a.topp = [];
        for (let i = 0; i < ws.length; i += a.tk) {
          a.topw.push(ws.slice(i, i + a.tk));
          a.topp.push(a.tp.slice(i, i + a.tk).map((p) => p / 1000));
        }
      }
    }
  }
  function bytes(b64) {
    const s = atob(b64), q = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) q[i] = s.charCodeAt(i);
    return q;
  }
  for (const ex of D.examples) prepare(ex, ex.runs);
  const T = D.training;
  if (T) for (const ex of T.examples) prepare(ex, ex.runs.flat());

  // captioning: the sources are images, their words regions r0, r1, …
  const isImage = (ex) => !!(ex.grid && ex.grid[0] > 0);
  const captioning = D.examples.length > 0 && isImage(D.examples[0]);
  const srcText = (ex) => (isImage(ex) ? "an image, " + ex.grid[0] + "×" + ex.grid[1] + " regions" : ex.src.join(" "));
  const seeds = [...new Set(D.runs.map((r) => r.seed))];
  const state = { seed: seeds[0], ex: 0, gold: true, sort: { key: "index", desc: false }, order: [] };
  // runsOfSeed are the indices (into D.runs) of the chosen seed's runs.
  const runsOfSeed = () => D.runs.map((r, i) => i).filter((i) => D.runs[i].seed === state.seed);
  const runLabel = (i) => D.runs[i].point + (seeds.length > 1 ? " seed " + D.runs[i].seed : "");
  const fmt = (v, d) => (v === undefined || v === null || Number.isNaN(v) ? "—" : v.toFixed(d));

  // row is run attention a's row t, renormalised to sum to 1.
  function row(a, t) {
    const n = a.src.length, r = new Array(n);
    let sum = 0;
    for (let s = 0; s < n; s++) sum += a.q[t * n + s];
    for (let s = 0; s < n; s++) r[s] = sum > 0 ? a.q[t * n + s] / sum : 1 / n;
    return r;
  }
  function jsRow(p, q) {
    let d = 0;
    for (let i = 0; i < p.length; i++) {
      const m = (p[i] + q[i]) / 2;
      if (p[i] > 0) d += 0.5 * p[i] * Math.log2(p[i] / m);
      if (q[i] > 0) d += 0.5 * q[i] * Math.log2(q[i] / m);
    }
    return d;
  }
  // divergence is the mean Jensen–Shannon divergence (bits) of runs i and
  // j's rows on example ex, position by position up to the shorter output;
  // NaN where either lacks it or their sources differ.
  function divergence(ex, i, j) {
    const a = ex.runs[i], b = ex.runs[j];
    if (!a || !b || a.src.length !== b.src.length) return NaN;
    const n = Math.min(a.rows, b.rows);
    if (n === 0) return NaN;
    let d = 0;
    for (let t = 0; t < n; t++) d += jsRow(row(a, t), row(b, t));
    return d / n;
  }

  // ---- view 1: one example under every run of the chosen seed ----
  let cursor = null; // {tab, t, s}
  const hint = $("info").textContent;
  function describe(td) {
    const tab = td.closest("table"), ex = tab.ex, a = tab.attn, ri = +tab.dataset.run;
    const t = +td.dataset.t, s = +td.dataset.s, key = s + "-" + t;
    const tgt = t < a.hyp.length ? a.hyp[t] : "</s>";
    const gold = ex.sureSet.has(key) ? "sure" : ex.possSet.has(key) ? "possible" : "none";
    return runLabel(ri) + ": weight " + (+td.dataset.w).toFixed(3) + " · source “" + a.src[s] + "” (" + s +
      ") · output “" + tgt + "” (" + t + ") · gold link: " + gold;
  }
  // info is the status line of td's view.
  const info = (el) => el.closest("section").querySelector(".info");
  // panel draws run ri's attention a on example ex.
  function panel(ri, ex, a) {
    const div = document.createElement("div");
    div.className = "panel";
    const h = document.createElement("h3");
    h.textContent = runLabel(ri);
    div.appendChild(h);
    const run = D.runs[ri], sub = document.createElement("p");
    sub.className = "sub";
    sub.textContent = [a && a.aer !== undefined ? "AER here " + fmt(a.aer, 3) : "", run.aer !== undefined ? "test aer " + fmt(run.aer, 3) : ""].filter((x) => x).join(" · ");
    div.appendChild(sub);
    if (!a) {
      const p = document.createElement("p");
      p.className = "missing";
      p.textContent = "this run did not save this example";
      div.appendChild(p);
      return div;
    }
    const tab = document.createElement("table");
    tab.className = "grid";
    tab.tabIndex = 0;
    tab.dataset.run = ri;
    tab.ex = ex;
    tab.attn = a;
    tab.setAttribute("aria-label", runLabel(ri) + ": attention, rows output words, columns source words");
    const hr = document.createElement("tr");
    hr.appendChild(document.createElement("th"));
    for (const w of a.src) {
      const th = document.createElement("th");
      th.textContent = w;
      hr.appendChild(th);
    }
    const thead = document.createElement("thead");
    thead.appendChild(hr);
    tab.appendChild(thead);
    const tb = document.createElement("tbody");
    const n = a.src.length;
    for (let t = 0; t < a.rows; t++) {
      const tr = document.createElement("tr");
      const th = document.createElement("th");
      th.textContent = t < a.hyp.length ? a.hyp[t] : "</s>";
      tr.appendChild(th);
      for (let s = 0; s < n; s++) {
        const td = document.createElement("td");
        const w = a.q[t * n + s] / D.scale;
        td.style.background = colour(w);
        td.dataset.w = w;
        td.dataset.t = t;
        td.dataset.s = s;
        const key = s + "-" + t;
        if (state.gold && (ex.sureSet.has(key) || ex.possSet.has(key))) td.className = "gold";
        tr.appendChild(td);
      }
      tb.appendChild(tr);
    }
    tab.appendChild(tb);
    tab.addEventListener("mouseover", (e) => {
      if (e.target.tagName === "TD") info(e.target).textContent = describe(e.target);
    });
    tab.addEventListener("focus", () => moveCursor(tab, 0, 0, true));
    tab.addEventListener("keydown", (e) => {
      const d = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
      if (!d) return;
      e.preventDefault();
      moveCursor(tab, d[0], d[1], false);
    });
    div.appendChild(tab);
    return div;
  }
  function moveCursor(tab, dt, ds, reset) {
    const rows = tab.tBodies[0].rows;
    if (rows.length === 0) return;
    let t = 0, s = 0;
    if (cursor && cursor.tab === tab && !reset) {
      t = cursor.t + dt;
      s = cursor.s + ds;
    } else if (cursor && cursor.tab === tab) {
      t = cursor.t;
      s = cursor.s;
    }
    t = Math.max(0, Math.min(rows.length - 1, t));
    s = Math.max(0, Math.min(rows[t].cells.length - 2, s));
    for (const c of document.querySelectorAll("td.cursor")) c.classList.remove("cursor");
    const td = rows[t].cells[s + 1];
    if (!td) return;
    td.classList.add("cursor");
    cursor = { tab, t, s };
    info(td).textContent = describe(td);
  }
  function showExample(k) {
    if (D.examples.length === 0) {
      $("example-title").textContent = "No saved test examples";
      return;
    }
    state.ex = Math.max(0, Math.min(D.examples.length - 1, k));
    const ex = D.examples[state.ex];
    cursor = null;
    $("info").textContent = hint;
    $("example-title").textContent = "Test example " + ex.index;
    $("source").textContent = "source: " + srcText(ex) + "  ·  reference: " + ex.ref.join(" ");
    const panels = $("panels");
    panels.replaceChildren(...runsOfSeed().map((ri) => panel(ri, ex, ex.runs[ri])));
    for (const tr of $("examples-body").rows) tr.classList.toggle("chosen", +tr.dataset.k === state.ex);
    showSteps();
    showCaption();
  }

  // ---- view 2: the step-through of one run on the chosen example ----
  const stepState = { run: -1, t: 0 };
  // word is output word t of words, "</s>" for the last of rows rows, ""
  // past them.
  const word = (words, t, rows) => (t < words.length ? words[t] : t === rows - 1 ? "</s>" : "");
  function fillStepRuns() {
    const rs = runsOfSeed();
    $("step-run").replaceChildren(...rs.map((i) => new Option(runLabel(i), i)));
    if (!rs.includes(stepState.run)) stepState.run = rs[0];
    $("step-run").value = stepState.run;
  }
  // rowCells appends to tr the cells of row t of weights q (n a row), or
  // n empty cells past its rows.
  function rowCells(tr, q, t, n, rows, what) {
    for (let s = 0; s < n; s++) {
      const td = document.createElement("td");
      td.className = "c";
      if (t < rows) {
        const w = q[t * n + s] / D.scale;
        td.style.background = colour(w);
        td.dataset.w = w;
        td.title = what + " weight " + w.toFixed(3);
      }
      tr.appendChild(td);
    }
  }
  function showSteps() {
    const ex = D.examples[state.ex], ri = stepState.run;
    const a = ex && ri !== undefined ? ex.runs[ri] : null;
    const tab = $("steps");
    if (!a) {
      tab.replaceChildren();
      $("step-detail").textContent = ex ? "This run did not save this example." : "";
      return;
    }
    const n = a.src.length, T = Math.max(a.rows, a.frows);
    tab.setAttribute("aria-label", runLabel(ri) + " on test example " + ex.index + ": one row per output step");
    const hr = document.createElement("tr");
    const th = (text, cls) => {
      const h = document.createElement("th");
      h.scope = "col";
      h.textContent = text;
      if (cls) h.className = cls;
      return h;
    };
    hr.append(th("step"), th("output"));
    for (const w of a.src) hr.appendChild(th(w, "srcw"));
    hr.append(th("", "gap"), th("reference"));
    if (a.frows) for (const w of a.src) hr.appendChild(th(w, "srcw"));
    hr.append(th("", "gap"), th("top words weighed (probability)"));
    const thead = document.createElement("thead");
    thead.appendChild(hr);
    const tb = document.createElement("tbody");
    for (let t = 0; t < T; t++) {
      const tr = document.createElement("tr");
      tr.dataset.t = t;
      const td = (text, cls) => {
        const c = document.createElement("td");
        c.textContent = text;
        if (cls) c.className = cls;
        return c;
      };
      tr.append(td(t + 1), td(word(a.hyp, t, a.rows), "w free"));
      rowCells(tr, a.q, t, n, a.rows, "free-running");
      tr.append(td("", "gap"), td(a.frows ? word(a.fref, t, a.frows) : "—", "w forced"));
      if (a.frows) rowCells(tr, a.fq, t, n, a.frows, "forced");
      const top = a.topw && a.topw[t] ? a.topw[t].map((w, k) => w + " " + a.topp[t][k].toFixed(3)).join(" · ") : "";
      tr.append(td("", "gap"), td(top, "w"));
      tr.classList.toggle("now", t === stepState.t);
      tb.appendChild(tr);
    }
    tab.replaceChildren(thead, tb);
    $("step-t").max = Math.max(0, T - 1);
    showStep(Math.min(stepState.t, T - 1));
  }
  // showStep moves the step-through to step t and details it.
  function showStep(t) {
    const ex = D.examples[state.ex], a = ex ? ex.runs[stepState.run] : null;
    if (!a) return;
    const T = Math.max(a.rows, a.frows);
    stepState.t = Math.max(0, Math.min(T - 1, t));
    t = stepState.t;
    $("step-t").value = t;
    const fw = a.frows ? word(a.fref, t, a.frows) : "";
    const label = "step " + (t + 1) + " of " + T + ": output “" + word(a.hyp, t, a.rows) + "”" + (a.frows ? ", reference “" + fw + "”" : "");
    $("step-label").textContent = label;
    $("step-t").setAttribute("aria-valuetext", label);
    for (const tr of $("steps").tBodies[0].rows) tr.classList.toggle("now", +tr.dataset.t === t);
    const det = $("step-detail");
    det.replaceChildren();
    const peak = (q, rows) => {
      if (t >= rows) return "";
      const n = a.src.length;
      let best = 0;
      for (let s = 1; s < n; s++) if (q[t * n + s] > q[t * n + best]) best = s;
      return "“" + a.src[best] + "” (" + (q[t * n + best] / D.scale).toFixed(3) + ")";
    };
    const p = document.createElement("p");
    p.textContent = "Free-running attention peaks on " + (peak(a.q, a.rows) || "—") +
      (a.frows ? "; forced on " + (peak(a.fq, a.frows) || "—") : "; no forced attention saved") + ".";
    det.appendChild(p);
    if (!a.topw || !a.topw[t]) {
      const q = document.createElement("p");
      q.textContent = "No top words saved for this step (a run from before they were saved, or subword pieces).";
      det.appendChild(q);
      return;
    }
    const h = document.createElement("p");
    h.textContent = "The words the decoder weighed at step " + (t + 1) + ":";
    det.appendChild(h);
    const list = document.createElement("div");
    list.className = "topk";
    list.setAttribute("role", "list");
    a.topw[t].forEach((w, k) => {
      const pr = a.topp[t][k];
      const wd = document.createElement("span");
      wd.className = "word" + (k === 0 ? " chosen" : "");
      wd.textContent = w + (w === fw ? " (reference)" : "");
      wd.setAttribute("role", "listitem");
      wd.dataset.w = w;
      wd.dataset.p = pr;
      const barBox = document.createElement("span");
      const bar = document.createElement("span");
      bar.className = "bar";
      bar.style.display = "block";
      bar.style.width = (100 * pr).toFixed(1) + "%";
      barBox.appendChild(bar);
      const v = document.createElement("span");
      v.textContent = pr.toFixed(3);
      list.append(wd, barBox, v);
    });
    det.appendChild(list);
  }

  // ---- view 5: captioning, each word's attention over its image ----
  function showCaption() {
    const ex = D.examples[state.ex];
    const on = !!(ex && ex.image && isImage(ex));
    $("view-caption").hidden = !on;
    if (!on) return;
    const forced = $("cap-which").value === "forced", boxes = $("cap-boxes").checked;
    const [R, C] = ex.grid;
    $("cap-panels").replaceChildren(...runsOfSeed().map((ri) => {
      const a = ex.runs[ri], div = document.createElement("div");
      div.className = "panel";
      div.dataset.run = ri;
      const h = document.createElement("h3");
      h.textContent = runLabel(ri);
      div.appendChild(h);
      const rows = a ? (forced ? a.frows : a.rows) : 0;
      if (!a || rows === 0) {
        const p = document.createElement("p");
        p.className = "missing";
        p.textContent = a ? "no forced attention saved" : "this run did not save this example";
        div.appendChild(p);
        return div;
      }
      const q = forced ? a.fq : a.q, words = forced ? a.fref : a.hyp, n = a.src.length;
      const wrap = document.createElement("div");
      wrap.className = "capwords";
      for (let t = 0; t < rows; t++) {
        const w = word(words, t, rows), fig = document.createElement("figure");
        fig.className = "capword";
        fig.tabIndex = 0;
        fig.dataset.t = t;
        const box = document.createElement("div");
        box.className = "capimg";
        const img = document.createElement("img");
        img.src = ex.image;
        img.alt = "";
        box.appendChild(img);
        const cells = document.createElement("div");
        cells.className = "cells";
        cells.style.gridTemplateColumns = "repeat(" + C + ", 1fr)";
        cells.style.gridTemplateRows = "repeat(" + R + ", 1fr)";
        let mx = 0, best = 0;
        for (let s = 0; s < n; s++) if (q[t * n + s] > mx) { mx = q[t * n + s]; best = s; }
        let inside = 0, total = 0;
        const bs = (ex.boxes && ex.boxes[w]) || [];
        for (let s = 0; s < R * C; s++) {
          const c = document.createElement("div");
          const v = s < n ? q[t * n + s] : 0;
          c.dataset.w = v / D.scale;
          c.style.background = colour(mx > 0 ? v / mx : 0);
          cells.appendChild(c);
          const cx = ((s % C) + 0.5) / C, cy = (Math.floor(s / C) + 0.5) / R;
          total += v;
          if (bs.some((b) => cx >= b[0] && cx <= b[2] && cy >= b[1] && cy <= b[3])) inside += v;
        }
        box.appendChild(cells);
        if (boxes) {
          for (const b of bs) {
            const o = document.createElement("div");
            o.className = "box";
            o.style.left = 100 * b[0] + "%";
            o.style.top = 100 * b[1] + "%";
            o.style.width = 100 * (b[2] - b[0]) + "%";
            o.style.height = 100 * (b[3] - b[1]) + "%";
            box.appendChild(o);
          }
        }
        fig.appendChild(box);
        const cap = document.createElement("figcaption");
        cap.textContent = w;
        fig.appendChild(cap);
        const r = Math.floor(best / C), c = best % C;
        fig.setAttribute("aria-label", runLabel(ri) + ", word " + (t + 1) + " “" + w + "”: attention peaks at row " + (r + 1) + ", column " + (c + 1) +
          " (" + (mx / D.scale).toFixed(3) + ")" + (bs.length ? "; " + (total > 0 ? (100 * inside / total).toFixed(0) : 0) + "% of it on cells centred in the gold box" : "; no gold box"));
        fig.title = fig.getAttribute("aria-label");
        wrap.appendChild(fig);
      }
      div.appendChild(wrap);
      return div;
    }));
  }

  // ---- view 4: attention over training ----
  function showTraining() {
    if (!T) return;
    const k = +$("train-ex").value, si = +$("train-step").value, ex = T.examples[k];
    $("train-info").textContent = hint;
    $("train-step-label").textContent = "step " + T.steps[si] + " (" + (si + 1) + " of " + T.steps.length + ")";
    $("train-step").setAttribute("aria-valuetext", $("train-step-label").textContent);
    $("train-source").textContent = "source: " + srcText(ex) + "  ·  reference: " + ex.ref.join(" ");
    $("train-panels").replaceChildren(...runsOfSeed().map((ri) => panel(ri, ex, ex.runs[ri][si])));
  }

  // ---- view 3: the table of examples ----
  function fillPairs() {
    const rs = runsOfSeed();
    for (const [id, def] of [["jsa", 0], ["jsb", 1]]) {
      const sel = $(id);
      sel.replaceChildren(...rs.map((i) => new Option(D.runs[i].point, i)));
      sel.value = rs[Math.min(def, rs.length - 1)];
    }
  }
  function columns() {
    const cols = [
      { key: "index", label: "#", v: (ex) => ex.index },
      { key: "len", label: "length", v: (ex) => ex.src.length },
      { key: "src", label: captioning ? "reference" : "source", v: (ex) => (captioning ? ex.ref.join(" ") : ex.src.join(" ")), text: true },
    ];
    for (const i of runsOfSeed()) {
      cols.push({ key: "aer" + i, label: "AER " + D.runs[i].point, v: (ex) => (ex.runs[i] && ex.runs[i].aer !== undefined ? ex.runs[i].aer : NaN), d: 3 });
    }
    const a = +$("jsa").value, b = +$("jsb").value;
    cols.push({ key: "jsd", label: "disagreement", v: (ex) => divergence(ex, a, b), d: 4 });
    return cols;
  }
  function renderTable() {
    const cols = columns();
    const head = $("examples-head");
    head.replaceChildren(...cols.map((c) => {
      const th = document.createElement("th");
      th.scope = "col";
      if (state.sort.key === c.key) th.setAttribute("aria-sort", state.sort.desc ? "descending" : "ascending");
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.key = c.key;
      b.textContent = c.label + (state.sort.key === c.key ? (state.sort.desc ? " ▼" : " ▲") : "");
      b.addEventListener("click", () => {
        // a first click sorts numbers largest first, text A to Z
        state.sort = state.sort.key === c.key ? { key: c.key, desc: !state.sort.desc } : { key: c.key, desc: !c.text && c.key !== "index" };
        renderTable();
      });
      th.appendChild(b);
      return th;
    }));
    const text = $("filter").value.trim().toLowerCase();
    const lo = $("minlen").value === "" ? 0 : +$("minlen").value;
    const hi = $("maxlen").value === "" ? Infinity : +$("maxlen").value;
    const sc = cols.find((c) => c.key === state.sort.key) || cols[0];
    let ks = D.examples.map((ex, k) => k).filter((k) => {
      const ex = D.examples[k];
      return ex.src.length >= lo && ex.src.length <= hi && (text === "" || (captioning ? ex.ref : ex.src).join(" ").toLowerCase().includes(text));
    });
    const val = ks.map((k) => sc.v(D.examples[k]));
    const idx = ks.map((k, i) => i);
    idx.sort((x, y) => {
      let a = val[x], b = val[y], c;
      if (sc.text) c = a < b ? -1 : a > b ? 1 : 0;
      else if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) - Number.isNaN(b); // missing last
      else c = a - b;
      return (state.sort.desc ? -c : c) || ks[x] - ks[y];
    });
    ks = idx.map((i) => ks[i]);
    state.order = ks;
    const body = $("examples-body");
    body.replaceChildren(...ks.map((k) => {
      const ex = D.examples[k], tr = document.createElement("tr");
      tr.tabIndex = 0;
      tr.dataset.k = k;
      tr.dataset.index = ex.index;
      if (k === state.ex) tr.className = "chosen";
      for (const c of cols) {
        const td = document.createElement("td");
        const v = c.v(ex);
        if (c.key === "src") td.className = "src";
        td.dataset.key = c.key;
        if (!c.text) td.dataset.v = v;
        td.textContent = c.d ? fmt(v, c.d) : v;
        tr.appendChild(td);
      }
      return tr;
    }));
    $("count").textContent = ks.length + " of " + D.examples.length + " examples";
  }
  function choose(k) {
    showExample(k);
    $("view-example").scrollIntoView();
  }

  // ---- wiring ----
  if (captioning) $("filter").labels[0].firstChild.textContent = "reference contains ";
  $("legend-bar").style.background = "linear-gradient(to right," + [0, 0.25, 0.5, 0.75, 1].map(colour).join(",") + ")";
  $("seed").replaceChildren(...seeds.map((s) => new Option(s, s)));
  if (seeds.length < 2) $("seed-label").hidden = true;
  $("seed").addEventListener("change", () => {
    state.seed = +$("seed").value;
    fillPairs();
    fillStepRuns();
    renderTable();
    showExample(state.ex);
    showTraining();
  });
  $("gold").addEventListener("change", () => {
    state.gold = $("gold").checked;
    showExample(state.ex);
    showTraining();
  });
  if (T) {
    $("train-ex").replaceChildren(...T.examples.map((ex, k) => new Option("dev " + ex.index + ": " + (captioning ? ex.ref : ex.src).join(" "), k)));
    $("train-step").max = T.steps.length - 1;
    $("train-step").value = T.steps.length - 1;
    $("train-ex").addEventListener("change", showTraining);
    $("train-step").addEventListener("input", showTraining);
  } else {
    $("view-training").hidden = true;
  }
  for (const id of ["filter", "minlen", "maxlen", "jsa", "jsb"]) $(id).addEventListener("input", renderTable);
  $("step-run").addEventListener("change", () => {
    stepState.run = +$("step-run").value;
    showSteps();
  });
  $("step-t").addEventListener("input", () => showStep(+$("step-t").value));
  $("step-prev").addEventListener("click", () => showStep(stepState.t - 1));
  $("step-next").addEventListener("click", () => showStep(stepState.t + 1));
  $("steps").addEventListener("click", (e) => {
    const tr = e.target.closest("tbody tr");
    if (tr) showStep(+tr.dataset.t);
  });
  $("steps").addEventListener("keydown", (e) => {
    const d = { ArrowUp: -1, ArrowDown: 1, ArrowLeft: -1, ArrowRight: 1 }[e.key];
    if (!d) return;
    e.preventDefault();
    showStep(stepState.t + d);
  });
  $("cap-boxes").addEventListener("change", showCaption);
  $("cap-which").addEventListener("change", showCaption);
  const body = $("examples-body");
  body.addEventListener("click", (e) => {
    const tr = e.target.closest("tr");
    if (tr) choose(+tr.dataset.k);
  });
  body.addEventListener("keydown", (e) => {
    const tr = e.target.closest("tr");
    if (!tr) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      choose(+tr.dataset.k);
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const next = e.key === "ArrowDown" ? tr.nextElementSibling : tr.previousElementSibling;
      if (next) next.focus();
    }
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
    const pos = state.order.indexOf(state.ex);
    if (e.key === "n" || e.key === "p") {
      const k = state.order[Math.max(0, Math.min(state.order.length - 1, pos + (e.key === "n" ? 1 : -1)))];
      if (k !== undefined) showExample(k);
    } else if (e.key === "[" || e.key === "]") {
      showStep(stepState.t + (e.key === "]" ? 1 : -1));
    } else if (e.key === "g") {
      $("gold").checked = !$("gold").checked;
      $("gold").dispatchEvent(new Event("change"));
    }
  });

  fillPairs();
  fillStepRuns();
  renderTable();
  showExample(0);
  showTraining();

  window.attnzooExplorer = {
    // shown is what view 1 (or the panels of view, e.g. "train-panels")
    // shows: per panel its run id and the weights of its cells, as read
    // back from the page.
    shown(view) {
      return [...document.querySelectorAll("#" + (view || "panels") + " table.grid")].map((tab) => ({
        run: D.runs[+tab.dataset.run].id,
        weights: [...tab.tBodies[0].rows].map((tr) => [...tr.cells].slice(1).map((td) => +td.dataset.w)),
      }));
    },
    // order is the table's test-example indices, top to bottom.
    order() {
      return [...$("examples-body").rows].map((tr) => +tr.dataset.index);
    },
    // column is the values of the table's column key, top to bottom.
    column(key) {
      return [...$("examples-body").rows].map((tr) => +tr.querySelector('td[data-key="' + key + '"]').dataset.v);
    },
    example() {
      return D.examples[state.ex].index;
    },
    // step is what the step-through shows at its current step: the run,
    // the step (0-based), the free-running and the forced words and rows
    // (weights as shown), and the top words with their probabilities.
    step() {
      const tr = $("steps").querySelector("tbody tr.now");
      const cells = (cls) => {
        const out = [];
        let on = false;
        for (const td of tr.cells) {
          if (td.classList.contains("w")) on = td.classList.contains(cls);
          else if (on && td.classList.contains("c")) out.push(+td.dataset.w);
        }
        return out;
      };
      return {
        run: D.runs[stepState.run].id,
        t: stepState.t,
        word: tr.querySelector("td.free").textContent,
        free: cells("free"),
        forcedWord: tr.querySelector("td.forced").textContent,
        forced: cells("forced"),
        top: [...document.querySelectorAll("#step-detail .topk .word")].map((el) => ({ w: el.dataset.w, p: +el.dataset.p })),
      };
    },
    // caption is what view 5 shows: per panel its run and, per word, the
    // word, its cells' weights, its boxes drawn and whether the image
    // loaded.
    caption() {
      return [...document.querySelectorAll("#cap-panels .panel")].map((div) => ({
        run: D.runs[+div.dataset.run].id,
        words: [...div.querySelectorAll("figure.capword")].map((fig) => ({
          word: fig.querySelector("figcaption").textContent,
          weights: [...fig.querySelectorAll(".cells > div")].map((c) => +c.dataset.w),
          boxes: fig.querySelectorAll(".box").length,
          loaded: fig.querySelector("img").complete && fig.querySelector("img").naturalWidth > 0,
        })),
      }));
    },
  };
})();
