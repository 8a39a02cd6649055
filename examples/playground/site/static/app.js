// The playground's page. It computes nothing about the controller: it sends
// the inputs to deploysyncRun (the Go code of examples/playground/play,
// compiled to WebAssembly) and draws what comes back.
'use strict';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';

const app = {
  scenarios: [],
  scenario: null, // the scenario the inputs were loaded from
  result: null,
  cursor: 0,
  timer: null,
};

// ---- start-up ---------------------------------------------------------

async function boot() {
  if (typeof Go !== 'function') throw new Error('wasm_exec.js did not load');
  const go = new Go();
  const ready = new Promise((resolve) => { window.deploysyncReady = resolve; });
  let inst;
  try {
    inst = await WebAssembly.instantiateStreaming(fetch('deploysync.wasm'), go.importObject);
  } catch (e) {
    // A static host that does not serve .wasm as application/wasm.
    const resp = await fetch('deploysync.wasm');
    if (!resp.ok) throw new Error('deploysync.wasm: HTTP ' + resp.status);
    inst = await WebAssembly.instantiate(await resp.arrayBuffer(), go.importObject);
  }
  go.run(inst.instance);
  await ready;
  performance.mark('deploysync-ready');
  app.scenarios = JSON.parse(window.deploysyncScenarios());
  const sel = $('scenario');
  for (const sc of app.scenarios) {
    const o = document.createElement('option');
    o.value = sc.id;
    o.textContent = sc.name;
    sel.appendChild(o);
  }
  const custom = document.createElement('option');
  custom.value = 'custom';
  custom.textContent = '(edited)';
  custom.hidden = true;
  sel.appendChild(custom);
  wire();
  const status = $('status');
  status.textContent = 'Controller loaded: deploysync in WebAssembly';
  status.className = 'ready';
  loadFromHash();
  performance.mark('deploysync-first-run');
  document.body.dataset.ready = '1';
}

function wire() {
  $('scenario').addEventListener('change', () => {
    const sc = app.scenarios.find((s) => s.id === $('scenario').value);
    if (sc) { fill(sc.request, sc); rerun(0); }
  });
  let debounce = null;
  const edited = () => {
    markCustom();
    clearTimeout(debounce);
    debounce = setTimeout(() => rerun(0), 300);
  };
  for (const id of ['yaml', 'script']) {
    const ta = $(id);
    ta.addEventListener('input', () => { gutter(id); edited(); });
    ta.addEventListener('scroll', () => scrollEditor(id));
    ta.addEventListener('keydown', (e) => {
      if (e.key === 'Tab' && !e.shiftKey && !e.ctrlKey && !e.altKey && !e.metaKey) {
        // Two spaces, as YAML wants; Escape then Tab leaves the editor.
        if (ta.dataset.escaped === '1') { ta.dataset.escaped = ''; return; }
        e.preventDefault();
        ta.setRangeText('  ', ta.selectionStart, ta.selectionEnd, 'end');
        ta.dispatchEvent(new Event('input'));
      } else if (e.key === 'Escape') {
        ta.dataset.escaped = '1';
      } else {
        ta.dataset.escaped = '';
      }
    });
  }
  for (const id of ['kversion', 'begin', 'startDelay', 'readyDelay', 'terminationDelay', 'failureRate', 'seed', 'failingImages', 'collision']) {
    $(id).addEventListener(id === 'failingImages' ? 'input' : 'change', edited);
  }
  $('first').addEventListener('click', () => seek(0));
  $('back').addEventListener('click', () => seek(app.cursor - 1));
  $('step').addEventListener('click', () => seek(app.cursor + 1));
  $('last').addEventListener('click', () => seek(lastIndex()));
  $('play').addEventListener('click', togglePlay);
  $('cursor').addEventListener('input', () => seek(Number($('cursor').value)));
  $('share').addEventListener('click', share);
  document.addEventListener('keydown', (e) => {
    const t = e.target;
    if (t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement ||
        (t instanceof HTMLInputElement && t.type !== 'checkbox' && t.type !== 'range') ||
        e.ctrlKey || e.altKey || e.metaKey) return;
    if (t instanceof HTMLInputElement && t.type === 'range' && e.key.startsWith('Arrow')) return; // the slider's own
    const keys = {
      ArrowLeft: () => seek(app.cursor - 1), ArrowRight: () => seek(app.cursor + 1),
      Home: () => seek(0), End: () => seek(lastIndex()), p: togglePlay,
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  window.addEventListener('hashchange', () => { if (location.hash !== app.lastHash) loadFromHash(); });
}

// ---- inputs -----------------------------------------------------------

function fill(req, sc) {
  app.scenario = sc || null;
  $('scenario').value = sc ? sc.id : 'custom';
  $('scenario-reason').textContent = sc ? sc.reason : 'Your own scenario.';
  $('yaml').value = req.yaml || '';
  $('script').value = req.script || '';
  $('begin').value = req.begin || 'steady';
  $('kversion').value = req.kubernetesVersion || '';
  const p = req.pods || {};
  $('startDelay').value = p.startDelay ?? 2;
  $('readyDelay').value = p.readyDelay ?? 3;
  $('terminationDelay').value = p.terminationDelay ?? 5;
  $('failureRate').value = p.failureRate ?? 0;
  $('seed').value = p.seed ?? 0;
  $('failingImages').value = (p.failingImages || []).join(', ');
  $('collision').checked = !!req.collision;
  gutter('yaml');
  gutter('script');
}

function request() {
  const num = (id) => { const v = Number($(id).value); return Number.isFinite(v) ? v : 0; };
  const req = {
    yaml: $('yaml').value,
    script: $('script').value,
    pods: {
      startDelay: num('startDelay'), readyDelay: num('readyDelay'), terminationDelay: num('terminationDelay'),
      failureRate: num('failureRate'), seed: Math.max(0, Math.floor(num('seed'))),
    },
  };
  const imgs = $('failingImages').value.split(',').map((s) => s.trim()).filter(Boolean);
  if (imgs.length) req.pods.failingImages = imgs;
  if ($('begin').value !== 'steady') req.begin = $('begin').value;
  if ($('collision').checked) req.collision = true;
  if ($('kversion').value) req.kubernetesVersion = $('kversion').value;
  return req;
}

function markCustom() {
  if (app.scenario && JSON.stringify(canon(request())) !== JSON.stringify(canon(app.scenario.request))) {
    app.scenario = null;
    $('scenario').value = 'custom';
    $('scenario-reason').textContent = 'Edited: your own scenario (Copy link shares it).';
  }
}

// canon drops the fields a request leaves out by default.
function canon(r) {
  const p = r.pods || {};
  return { yaml: r.yaml || '', script: r.script || '', begin: r.begin || 'steady', collision: !!r.collision,
    kubernetesVersion: r.kubernetesVersion || '',
    pods: [p.startDelay || 0, p.readyDelay || 0, p.terminationDelay || 0, p.failureRate || 0, p.seed || 0, (p.failingImages || []).join(',')] };
}

function gutter(id) {
  const ed = $(id + '-editor');
  const n = $(id).value.split('\n').length;
  const g = ed.querySelector('.gutter');
  if (g.childElementCount !== n) {
    g.textContent = '';
    for (let i = 1; i <= n; i++) {
      const s = document.createElement('span');
      s.textContent = i;
      g.appendChild(s);
    }
  }
  marks(id);
}

function scrollEditor(id) {
  const ed = $(id + '-editor');
  const top = $(id).scrollTop;
  ed.querySelector('.gutter').scrollTop = top;
  ed.querySelector('.marks').style.transform = `translateY(${-top}px)`;
}

// marks shows each problem of an editor next to its line.
function marks(id) {
  const ed = $(id + '-editor');
  const probs = (app.problems || []).filter((p) => p.in === id && p.line > 0);
  const layer = ed.querySelector('.marks');
  layer.textContent = '';
  const lh = parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--lh')) || 18;
  const spans = ed.querySelectorAll('.gutter span');
  spans.forEach((s) => s.classList.remove('bad'));
  const lines = $(id).value.split('\n');
  for (const p of probs) {
    const m = document.createElement('div');
    m.style.top = (6 + (p.line - 1) * lh) + 'px';
    m.style.setProperty('--chars', (lines[p.line - 1] || '').replace(/\t/g, '  ').length);
    m.dataset.message = p.message;
    m.title = p.message;
    const t = document.createElement('span');
    // The object is the one in the editor: the field and what is wrong.
    t.textContent = p.message.replace(/^Deployment [^ :]+: /, '');
    m.appendChild(t);
    m.dataset.line = p.line;
    layer.appendChild(m);
    if (spans[p.line - 1]) spans[p.line - 1].classList.add('bad');
  }
  scrollEditor(id);
}

// ---- running ----------------------------------------------------------

function rerun(cursor) {
  stop();
  const req = request();
  const res = JSON.parse(window.deploysyncRun(JSON.stringify(req)));
  app.problems = res.problems || [];
  showProblems();
  if (app.problems.length) {
    document.body.classList.add('stale');
    app.result = null;
    $('step-title').textContent = 'The input has a problem: nothing to run';
    $('outcome').textContent = '';
    updateHash();
    return;
  }
  document.body.classList.remove('stale');
  app.result = res;
  $('transcript').textContent = res.head + res.steps.map((s) => '\n' + s.text).join('') + '\n' + res.tail;
  $('cursor').max = lastIndex();
  $('outcome').innerHTML = '';
  const o = $('outcome');
  o.append('ends ');
  const b = document.createElement('b');
  b.textContent = res.outcome;
  o.append(b, ` after ${res.steps.length} syncs, ${fmtDur(res.steps[res.steps.length - 1].elapsed)} · ${res.strategy}`);
  seek(Math.min(Math.max(0, cursor | 0), lastIndex()));
}

function showProblems() {
  const ul = $('problems');
  ul.textContent = '';
  for (const p of app.problems) {
    const li = document.createElement('li');
    if (p.in && p.line > 0) {
      const btn = document.createElement('button');
      btn.type = 'button';
      btn.textContent = `${p.in === 'yaml' ? 'YAML' : 'changes'} line ${p.line}`;
      btn.addEventListener('click', () => jumpTo(p.in, p.line));
      li.appendChild(btn);
    }
    li.append(p.message);
    li.dataset.in = p.in || '';
    li.dataset.line = p.line || 0;
    ul.appendChild(li);
  }
  ul.setAttribute('role', app.problems.length ? 'alert' : 'status');
  marks('yaml');
  marks('script');
}

function jumpTo(id, line) {
  const ta = $(id);
  const lines = ta.value.split('\n');
  let pos = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) pos += lines[i].length + 1;
  ta.focus();
  ta.setSelectionRange(pos, pos + (lines[line - 1] || '').length);
  const lh = parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--lh')) || 18;
  ta.scrollTop = Math.max(0, (line - 4) * lh);
}

const lastIndex = () => (app.result ? app.result.steps.length - 1 : 0);

function seek(i) {
  if (!app.result) return;
  app.cursor = Math.min(Math.max(0, i), lastIndex());
  $('cursor').value = app.cursor;
  render();
  updateHash();
  if (app.cursor >= lastIndex()) stop();
}

function togglePlay() {
  if (app.timer) { stop(); return; }
  if (!app.result) return;
  if (app.cursor >= lastIndex()) seek(0);
  $('play').textContent = '⏸ Stop';
  app.timer = setInterval(() => seek(app.cursor + 1), 220);
}

function stop() {
  clearInterval(app.timer);
  app.timer = null;
  $('play').textContent = '▶ Run';
}

// ---- links ------------------------------------------------------------

function b64encode(s) {
  const bytes = new TextEncoder().encode(s);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function b64decode(s) {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

function hashFor() {
  const q = new URLSearchParams();
  if (app.scenario) q.set('s', app.scenario.id);
  else q.set('r', b64encode(JSON.stringify(request())));
  if (app.cursor > 0) q.set('step', app.cursor);
  return '#' + q.toString();
}

function updateHash() {
  app.lastHash = hashFor();
  history.replaceState(null, '', app.lastHash);
}

function loadFromHash() {
  const q = new URLSearchParams(location.hash.slice(1));
  const step = Number(q.get('step')) || 0;
  let sc = app.scenarios.find((s) => s.id === q.get('s'));
  if (!sc && q.get('r')) {
    try {
      fill(JSON.parse(b64decode(q.get('r'))), null);
      rerun(step);
      return;
    } catch (e) {
      $('status').textContent = 'The link does not hold a scenario: ' + e.message;
    }
  }
  fill((sc || app.scenarios[0]).request, sc || app.scenarios[0]);
  rerun(step);
}

async function share() {
  const url = location.href.split('#')[0] + hashFor();
  try {
    await navigator.clipboard.writeText(url);
    $('status').textContent = 'Link copied.';
  } catch (e) {
    $('status').textContent = 'Link: ' + url;
  }
}

// ---- drawing ----------------------------------------------------------

function fmtDur(s) {
  if (s < 60) return `${+s.toFixed(3)}s`;
  const m = Math.floor(s / 60), r = +(s - m * 60).toFixed(3);
  return r ? `${m}m${r}s` : `${m}m`;
}

const palette = ['#6b7a90', '#1f5fd1', '#13795b', '#9b3fbf', '#c2410c', '#0e7490', '#a16207', '#be123c'];
const rsColor = (name) => palette[app.result.replicaSets.findIndex((r) => r.name === name) % palette.length];
const shortName = (name) => { const i = name.lastIndexOf('-'); return i > 0 ? name.slice(i + 1) : name; };

function render() {
  const res = app.result;
  const s = res.steps[app.cursor];
  document.body.dataset.step = app.cursor;
  document.body.dataset.steps = res.steps.length;
  $('step-title').textContent = `Step ${s.index} of ${lastIndex()} · +${fmtDur(s.elapsed)} · branch ${s.branch}`;
  $('back').disabled = $('first').disabled = app.cursor === 0;
  $('step').disabled = $('last').disabled = app.cursor >= lastIndex();
  flow(s);
  plan(s);
  table(s);
  chart();
  $('step-text').textContent = s.text;
}

function plan(s) {
  const ol = $('actions');
  ol.textContent = '';
  const item = (cls, what, why) => {
    const li = document.createElement('li');
    li.className = cls;
    const w = document.createElement('span');
    w.className = 'what';
    w.textContent = what;
    li.appendChild(w);
    if (why) {
      const y = document.createElement('span');
      y.className = 'why';
      y.textContent = why;
      li.appendChild(y);
    }
    ol.appendChild(li);
  };
  for (const c of s.changes || []) item('user', 'user: ' + c, 'a scripted change, made before this sync');
  for (const a of s.actions || []) item('action', a.what, a.why);
  if (!(s.actions || []).length) item('none', 'no writes, no events');
  if (s.err) item('fail', 'the sync fails: ' + s.err, 'the key goes back to the queue, rate limited');
  else if (s.requeue) item('then', 'requeue now (rate limited)', '');
  else if (s.requeueAfter > 0) item('then', 'requeue after ' + fmtDur(s.requeueAfter), 'to check the progress deadline');
}

function table(s) {
  const t = $('rs-table');
  t.textContent = '';
  const row = (cells, tag, cls) => {
    const tr = document.createElement('tr');
    if (cls) tr.className = cls;
    for (const c of cells) {
      const td = document.createElement(tag);
      if (c instanceof Node) td.appendChild(c); else td.textContent = c;
      tr.appendChild(td);
    }
    t.appendChild(tr);
  };
  row(['ReplicaSet (hash)', 'rev', 'spec', 'pods', 'ready', 'avail', 'term'], 'th');
  for (const info of app.result.replicaSets) {
    const r = s.replicaSets[info.name];
    if (!r) continue;
    const name = document.createElement('span');
    const sw = document.createElement('i');
    sw.className = 'sw';
    sw.style.background = rsColor(info.name);
    name.append(sw, shortName(info.name));
    name.title = info.name;
    row([name, r.revision, r.replicas, r.pods.pods, r.pods.ready, r.pods.available, r.pods.terminating], 'td', r.new ? 'new' : '');
  }
  const tot = s.totals;
  row(['all pods', '', `${s.replicas}`, tot.pods, tot.ready, tot.available, tot.terminating], 'td', 'total');
  const ul = $('conditions');
  ul.textContent = '';
  for (const c of s.conditions || []) {
    const li = document.createElement('li');
    const st = document.createElement('span');
    st.className = 'st ' + c.status;
    st.textContent = `${c.type}=${c.status}`;
    li.append(st, ` ${c.reason}: ${c.message}`);
    ul.appendChild(li);
  }
}

function el(tag, attrs, parent, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

// The branches of syncDeployment in the order it checks them, each with
// the function it hands the Deployment to.
const branches = [
  ['SelectingAll', 'empty selector?', 'warning event'],
  ['Deleting', 'being deleted?', 'syncStatusOnly'],
  ['Paused', 'spec.paused?', 'sync'],
  ['Rollback', 'rollback-to set?', 'rollback'],
  ['ScalingEvent', 'scaling event?', 'sync'],
  ['Recreate', 'strategy', 'rolloutRecreate'],
  ['RollingUpdate', 'strategy', 'rolloutRolling'],
];

function flow(s) {
  const svg = $('flow');
  svg.textContent = '';
  const defs = el('defs', {}, svg);
  for (const [id, color] of [['arrow', '#b9c0cc'], ['arrow-on', '#1f5fd1'], ['arrow-hit', '#d9480f']]) {
    const m = el('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);
    el('path', { d: 'M0,0 L10,5 L0,10 z', fill: color }, m);
  }
  const box = (x, y, w, h, cls, name, sub, fnClass, key) => {
    const g = el('g', { class: 'node ' + cls, 'data-node': key || name }, svg);
    el('rect', { x, y, width: w, height: h, rx: 5 }, g);
    el('text', { x: x + w / 2, y: y + (sub ? h / 2 - 3 : h / 2 + 4), class: fnClass || 'name' }, g, name);
    if (sub) el('text', { x: x + w / 2, y: y + h / 2 + 12 }, g, sub);
    return g;
  };
  const wire = (d, cls) => el('path', { d, class: 'wire ' + cls, 'marker-end': `url(#${cls === 'hit' ? 'arrow-hit' : cls === 'on' ? 'arrow-on' : 'arrow'})` }, svg);
  const top = 26, th = 40;
  const tops = [[6, 176, 'Informers', 'Deployment, RS, Pod events'], [212, 120, 'workqueue', 'ns/name keys'],
    [362, 176, 'processNextWorkItem', 'one key, one worker'], [568, 186, 'syncDeployment', 'reads the caches, decides']];
  tops.forEach(([x, w, name, sub], i) => {
    box(x, top, w, th, 'on', name, sub);
    if (i > 0) {
      const [px, pw] = tops[i - 1];
      wire(`M${px + pw},${top + th / 2} L${x - 2},${top + th / 2}`, 'on');
    }
  });
  // requeue: from syncDeployment back to the queue
  const again = s.err || s.requeue || s.requeueAfter > 0;
  const qx = 212 + 60, sx = 568 + 93;
  el('path', { d: `M${sx},${top} C${sx},${top - 22} ${qx},${top - 22} ${qx},${top - 2}`, class: 'requeue' + (again ? ' on' : ''),
    'marker-end': `url(#${again ? 'arrow-hit' : 'arrow'})` }, svg);
  let label = 'requeue (an error, or the progress deadline)';
  if (s.err) label = 'the sync failed: retry, rate limited';
  else if (s.requeue) label = 'requeue now, rate limited';
  else if (s.requeueAfter > 0) label = 'requeue after ' + fmtDur(s.requeueAfter);
  el('text', { x: (qx + sx) / 2, y: 10, class: 'requeue-label' + (again ? ' on' : '') }, svg, label);

  const hit = branches.findIndex((b) => b[0] === s.branch);
  const by = 96, bh = 40, fy = 158, fh = 30, bw = 100, gap = 8.5, x0 = 6;
  const busY = 80;
  const cx = (i) => x0 + i * (bw + gap) + bw / 2;
  const syncBottom = top + th;
  wire(`M${sx},${syncBottom} L${sx},${busY}`, 'on');
  el('path', { d: `M${cx(0)},${busY} L${cx(branches.length - 1)},${busY}`, class: 'wire on' }, svg);
  branches.forEach(([name, question, fn], i) => {
    const x = x0 + i * (bw + gap);
    // Checked in order: the branches before the one that decided were
    // checked and did not apply (the two strategies are one check).
    let cls = '';
    if (i === hit) cls = 'hit';
    else if (hit >= 0 && (i < Math.min(hit, 5))) cls = 'passed';
    wire(`M${cx(i)},${busY} L${cx(i)},${by - 2}`, i === hit ? 'hit' : '');
    box(x, by, bw, bh, 'branch ' + cls, name, question, null, name);
    wire(`M${cx(i)},${by + bh} L${cx(i)},${fy - 2}`, i === hit ? 'hit' : '');
    box(x, fy, bw, fh, 'fn ' + (i === hit ? 'hit' : ''), fn, null, 'name fn', 'fn-' + name);
  });
  svg.setAttribute('aria-label', `Controller flow: syncDeployment decided in the ${s.branch} branch` +
    (hit >= 0 ? `, handing the Deployment to ${branches[hit][2]}` : '') + (again ? `; then ${label}` : ''));
}

function chart() {
  const res = app.result, steps = res.steps, svg = $('chart');
  svg.textContent = '';
  const W = 600, L = 34, R = 8, n = steps.length;
  const panels = [{ y: 18, h: 92, title: 'ReplicaSet spec.replicas (after each sync)' }, { y: 150, h: 92, title: 'Pods by state (as each sync saw them), by step and time' }];
  let max = 1;
  for (const s of steps) {
    max = Math.max(max, s.totals.pods + s.totals.terminating, s.replicas + s.maxSurge);
    for (const r of Object.values(s.replicaSets)) max = Math.max(max, r.replicas);
  }
  // A round top with some headroom: 18 pods → 20, 4 → 6, 1000 → 1200.
  const raw = max * 1.08, unit = Math.max(2, Math.pow(10, Math.floor(Math.log10(raw))) / 5);
  max = Math.ceil(raw / unit) * unit;
  const x = (i) => L + (n <= 1 ? 0 : (i / (n - 1)) * (W - L - R - 8)) + 4;
  const bw = Math.max(1.2, Math.min(14, (W - L - R) / n - 1));
  for (const p of panels) {
    const y = (v) => p.y + p.h - (v / max) * p.h;
    p.yf = y;
    el('text', { x: L, y: p.y - 5, class: 'title' }, svg, p.title);
    for (const v of [0, max / 2, max]) {
      const vv = Math.round(v);
      el('line', { x1: L, x2: W - R, y1: y(vv), y2: y(vv), class: 'grid' }, svg);
      el('text', { x: L - 4, y: y(vv) + 3, 'text-anchor': 'end' }, svg, vv);
    }
    el('line', { x1: L, x2: L, y1: p.y, y2: p.y + p.h, class: 'axis' }, svg);
    el('line', { x1: L, x2: W - R, y1: p.y + p.h, y2: p.y + p.h, class: 'axis' }, svg);
  }
  const upto = app.cursor;
  // top: a stepped line per ReplicaSet, and replicas + maxSurge
  const y0 = panels[0].yf;
  let bd = '';
  for (let i = 0; i <= upto; i++) {
    const v = steps[i].replicas + steps[i].maxSurge;
    bd += i === 0 ? `M${x(i)},${y0(v)}` : `H${x(i)}V${y0(v)}`;
  }
  el('path', { d: bd, class: 'bound' }, svg);
  for (const info of res.replicaSets) {
    let d = '';
    let prev = null;
    for (let i = 0; i <= upto; i++) {
      const r = steps[i].replicaSets[info.name];
      if (!r) { prev = null; continue; }
      d += prev === null ? `M${x(i)},${y0(r.replicas)}` : `H${x(i)}V${y0(r.replicas)}`;
      prev = r.replicas;
    }
    if (d) el('path', { d, stroke: rsColor(info.name), 'stroke-width': 2.2, fill: 'none', 'data-rs': info.name }, svg);
  }
  // bottom: stacked bars of pods by state
  const y1 = panels[1].yf;
  const layers = [['available', '#13795b'], ['ready, not yet available', '#7fcfa9'], ['not ready', '#f0b429'], ['terminating', '#b9c0cc']];
  for (let i = 0; i <= upto; i++) {
    const t = steps[i].totals;
    const parts = [t.available, t.ready - t.available, t.pods - t.ready, t.terminating];
    let base = 0;
    parts.forEach((v, k) => {
      if (v <= 0) return;
      el('rect', { x: x(i) - bw / 2, width: bw, y: y1(base + v), height: y1(base) - y1(base + v), fill: layers[k][1] }, svg);
      base += v;
    });
  }
  // x axis: steps, with times
  const ticks = new Set([0, n - 1]);
  const every = Math.max(1, Math.ceil(n / 8));
  for (let i = 0; i < n; i += every) ticks.add(i);
  for (const i of [...ticks].sort((a, b) => a - b)) {
    if (i !== n - 1 && n - 1 - i < every / 2) continue;
    el('text', { x: x(i), y: 258, 'text-anchor': 'middle' }, svg, `${i}`);
    el('text', { x: x(i), y: 268, 'text-anchor': 'middle' }, svg, '+' + fmtDur(steps[i].elapsed));
  }
  el('line', { x1: x(upto), x2: x(upto), y1: 14, y2: 244, class: 'cursor' }, svg);
  // legend
  const lg = $('legend');
  lg.textContent = '';
  const item = (color, text, dashed) => {
    const sp = document.createElement('span');
    const i = document.createElement('i');
    i.style.background = dashed ? 'repeating-linear-gradient(90deg,#9aa2ae 0 3px,transparent 3px 6px)' : color;
    if (dashed) i.style.height = '2px';
    sp.append(i, text);
    lg.appendChild(sp);
  };
  for (const info of res.replicaSets) item(rsColor(info.name), `${shortName(info.name)} (rev ${info.revision || '–'})`);
  item(null, 'replicas + maxSurge', true);
  for (const [name, color] of layers) item(color, name);
  const t = steps[upto].totals;
  svg.setAttribute('aria-label', `Chart up to step ${upto}: ${t.pods} pods, ${t.ready} ready, ${t.available} available, ${t.terminating} terminating`);
}

boot().catch((e) => {
  const st = $('status');
  st.textContent = 'The controller did not load: ' + e.message;
  st.className = 'error';
  document.body.dataset.ready = 'error';
  console.error(e);
});
