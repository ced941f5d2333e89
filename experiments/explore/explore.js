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
    ex.sureSet = new Set((ex.sure || []).map((l) => l[0] + "-" + l[1]));
    ex.possSet = new Set((ex.possible || []).map((l) => l[0] + "-" + l[1]));
    for (const a of attns) {
      if (!a) continue;
      const s = atob(a.w);
      a.src = a.src || ex.src;
      a.q = new Uint8Array(s.length);
      for (let i = 0; i < s.length; i++) a.q[i] = s.charCodeAt(i);
    }
  }
  for (const ex of D.examples) prepare(ex, ex.runs);
  const T = D.training;
  if (T) for (const ex of T.examples) prepare(ex, ex.runs.flat());

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
    $("source").textContent = "source: " + ex.src.join(" ") + "  ·  reference: " + ex.ref.join(" ");
    const panels = $("panels");
    panels.replaceChildren(...runsOfSeed().map((ri) => panel(ri, ex, ex.runs[ri])));
    for (const tr of $("examples-body").rows) tr.classList.toggle("chosen", +tr.dataset.k === state.ex);
  }

  // ---- view 4: attention over training ----
  function showTraining() {
    if (!T) return;
    const k = +$("train-ex").value, si = +$("train-step").value, ex = T.examples[k];
    $("train-info").textContent = hint;
    $("train-step-label").textContent = "step " + T.steps[si] + " (" + (si + 1) + " of " + T.steps.length + ")";
    $("train-step").setAttribute("aria-valuetext", $("train-step-label").textContent);
    $("train-source").textContent = "source: " + ex.src.join(" ") + "  ·  reference: " + ex.ref.join(" ");
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
      { key: "src", label: "source", v: (ex) => ex.src.join(" "), text: true },
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
      return ex.src.length >= lo && ex.src.length <= hi && (text === "" || ex.src.join(" ").toLowerCase().includes(text));
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
  $("legend-bar").style.background = "linear-gradient(to right," + [0, 0.25, 0.5, 0.75, 1].map(colour).join(",") + ")";
  $("seed").replaceChildren(...seeds.map((s) => new Option(s, s)));
  if (seeds.length < 2) $("seed-label").hidden = true;
  $("seed").addEventListener("change", () => {
    state.seed = +$("seed").value;
    fillPairs();
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
    $("train-ex").replaceChildren(...T.examples.map((ex, k) => new Option("dev " + ex.index + ": " + ex.src.join(" "), k)));
    $("train-step").max = T.steps.length - 1;
    $("train-step").value = T.steps.length - 1;
    $("train-ex").addEventListener("change", showTraining);
    $("train-step").addEventListener("input", showTraining);
  } else {
    $("view-training").hidden = true;
  }
  for (const id of ["filter", "minlen", "maxlen", "jsa", "jsb"]) $(id).addEventListener("input", renderTable);
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
    } else if (e.key === "g") {
      $("gold").checked = !$("gold").checked;
      $("gold").dispatchEvent(new Event("change"));
    }
  });

  fillPairs();
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
  };
})();
