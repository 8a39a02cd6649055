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
  // The runs of the scenarios, computed by the same Go code when the site
  // was written (runs.json): the first plan is drawn from them while the
  // controller loads; everything after comes from the controller itself.
  const pre = await window.deploysyncRuns;
  if (pre) {
    setup(pre.scenarios, pre.minors);
    app.precomputed = pre.run;
    loadFromHash();
  }
  // Compile the controller once the first plan is on screen (two frames
  // on, or half a second where the tab draws no frames): the compile
  // keeps every core busy for half a second and more, and the drawing
  // before it needs the CPU.
  if (app.result) await Promise.race([painted(), new Promise((r) => setTimeout(r, 500))]);
  performance.mark('deploysync-compile-start');
  if (typeof Go !== 'function') throw new Error('wasm_exec.js did not load');
  const go = new Go();
  const ready = new Promise((resolve) => { window.deploysyncReady = resolve; });
  let instance;
  try {
    // index.html asked for the bytes while the page loaded.
    instance = await WebAssembly.instantiate(await WebAssembly.compileStreaming(window.deploysyncWasm), go.importObject);
  } catch (e) {
    // A static host that does not serve .wasm as application/wasm.
    const resp = await fetch('deploysync.wasm');
    if (!resp.ok) throw new Error('deploysync.wasm: HTTP ' + resp.status);
    instance = (await WebAssembly.instantiate(await resp.arrayBuffer(), go.importObject)).instance;
  }
  performance.mark('deploysync-compiled');
  go.run(instance);
  await ready;
  performance.mark('deploysync-ready');
  app.wasm = true;
  const status = $('status');
  if (!pre) {
    setup(JSON.parse(window.deploysyncScenarios()), JSON.parse(window.deploysyncMinors()));
    loadFromHash();
  } else if (app.result && app.pending === undefined) {
    // Run what is shown again, in the controller: it must draw the same.
    const shown = whole(app.result);
    rerun(app.cursor);
    if (!app.result || whole(app.result) !== shown) {
      status.textContent = 'The controller computes another run than the one shown (runs.json is stale): rebuild the site';
      status.className = 'error';
      document.body.dataset.ready = 'error';
      return;
    }
  }
  if (app.pending !== undefined) rerun(app.pending);
  status.textContent = 'Controller loaded: deploysync in WebAssembly';
  status.className = 'ready';
  document.body.dataset.ready = '1';
}

// painted resolves after the next two frames: the one that shows what has
// been drawn, and the one after it.
const painted = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0))));

// A folded step past the first of its run has no part of the transcript.
const whole = (res) => res.head + res.steps.map((s) => (s.folded && !s.text ? '' : '\n' + s.text)).join('') + '\n' + res.tail;

// stepText is the step's part of the transcript; a folded step shows the
// line of its run (the text of the run's first step).
function stepText(res, i) {
  let j = i;
  while (j > 0 && res.steps[j].folded && !res.steps[j].text) j--;
  return res.steps[j].text;
}

// setup fills the scenario and minor lists and wires the page.
function setup(scenarios, minors) {
  app.scenarios = scenarios;
  app.minors = minors;
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
  const kv = $('kversion');
  for (const m of [...app.minors.minors].reverse()) {
    const o = document.createElement('option');
    o.value = m === app.minors.default ? '' : m;
    o.textContent = m;
    kv.appendChild(o);
  }
  wire();
}

// compute runs the request in the controller, or, before it has loaded,
// takes the scenario's precomputed run; null when there is none yet.
function compute(req) {
  if (app.wasm) {
    const first = !performance.getEntriesByName('deploysync-run-end', 'mark').length;
    const out = window.deploysyncRun(JSON.stringify(req));
    if (first) performance.mark('deploysync-run-end');
    return JSON.parse(out);
  }
  // The precomputed run is the run of the scenario the link named (or the
  // first): it is used if that is what the inputs hold.
  const sc = app.scenario, pre = app.precomputed;
  if (sc && !req.compareMinor && pre && sc.id === pre.id &&
      JSON.stringify(canon(req)) === JSON.stringify(canon(sc.request))) return pre.result;
  return null;
}

// The text fields, where the arrow keys move the caret.
const typing = (t) => t instanceof HTMLTextAreaElement ||
  (t instanceof HTMLInputElement && !['checkbox', 'range', 'button', 'radio'].includes(t.type));

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
    ta.addEventListener('keydown', (e) => editorKey(ta, e));
  }
  $('kversion').addEventListener('change', () => {
    // Compare the new minor with the one it replaces.
    app.compareMinor = app.result ? app.result.minor : '';
    edited();
  });
  for (const id of ['begin', 'startDelay', 'readyDelay', 'terminationDelay', 'failureRate', 'seed', 'failingImages', 'refusedImages', 'refusedUntil', 'podQuota', 'replicaSetQuota', 'collision']) {
    $(id).addEventListener(['failingImages', 'refusedImages', 'replicaSetQuota'].includes(id) ? 'input' : 'change', edited);
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
    if (typing(t) || e.ctrlKey || e.altKey || e.metaKey) return;
    const keys = {
      ArrowLeft: () => seek(app.cursor - 1), ArrowRight: () => seek(app.cursor + 1),
      Home: () => seek(0), End: () => seek(lastIndex()),
    };
    // A select's own letters pick its options.
    if (!(t instanceof HTMLSelectElement)) keys.p = togglePlay;
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  let resizing = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => { if (app.result) render(); }, 80);
  });
  window.addEventListener('hashchange', () => { if (location.hash !== app.lastHash) loadFromHash(); });
}

// editorKey: Tab is left to the browser (focus moves on); Ctrl+] and
// Ctrl+[ indent and outdent the lines of the selection by two spaces;
// Enter keeps the line's indentation.
function editorKey(ta, e) {
  const mod = (e.ctrlKey || e.metaKey) && !e.altKey;
  const v = ta.value, a = ta.selectionStart, b = ta.selectionEnd;
  if (mod && (e.key === ']' || e.key === '[')) {
    e.preventDefault();
    const from = v.lastIndexOf('\n', a - 1) + 1;
    const to = b > a && v[b - 1] === '\n' ? b - 1 : b;
    const lines = v.slice(from, to).split('\n');
    const out = lines.map((l) => (e.key === ']' ? '  ' + l : l.replace(/^ {1,2}/, '')));
    ta.setRangeText(out.join('\n'), from, to, 'preserve');
    const d0 = out[0].length - lines[0].length;
    const dAll = out.join('\n').length - lines.join('\n').length;
    ta.setSelectionRange(Math.max(from, a + d0), Math.max(from, b + dAll));
    ta.dispatchEvent(new Event('input'));
  } else if (e.key === 'Enter' && !mod && !e.shiftKey && !e.altKey && a === b) {
    const from = v.lastIndexOf('\n', a - 1) + 1;
    const indent = /^ */.exec(v.slice(from, a))[0];
    if (!indent) return;
    e.preventDefault();
    ta.setRangeText('\n' + indent, a, b, 'end');
    ta.dispatchEvent(new Event('input'));
  }
}

// ---- inputs -----------------------------------------------------------

function fill(req, sc) {
  app.scenario = sc || null;
  app.compareMinor = '';
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
  $('refusedImages').value = (p.refusedImages || []).join(', ');
  $('refusedUntil').value = p.refusedUntil ?? 0;
  $('podQuota').value = req.podQuota || '';
  $('replicaSetQuota').value = req.replicaSetQuota || '';
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
  const list = (id) => $(id).value.split(',').map((s) => s.trim()).filter(Boolean);
  const imgs = list('failingImages');
  if (imgs.length) req.pods.failingImages = imgs;
  const refused = list('refusedImages');
  if (refused.length) req.pods.refusedImages = refused;
  if (num('refusedUntil') > 0) req.pods.refusedUntil = num('refusedUntil');
  if ($('begin').value !== 'steady') req.begin = $('begin').value;
  const podQuota = $('podQuota').value.trim();
  if (podQuota) req.podQuota = podQuota;
  const quota = $('replicaSetQuota').value.trim();
  if (quota) req.replicaSetQuota = quota;
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
    kubernetesVersion: r.kubernetesVersion || '', replicaSetQuota: r.replicaSetQuota || '', podQuota: r.podQuota || '',
    pods: [p.startDelay || 0, p.readyDelay || 0, p.terminationDelay || 0, p.failureRate || 0, p.seed || 0, (p.failingImages || []).join(','),
      (p.refusedImages || []).join(','), p.refusedUntil || 0] };
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

const runControls = ['first', 'back', 'play', 'step', 'last', 'cursor'];

function rerun(cursor) {
  stop();
  const req = request();
  if (app.compareMinor) req.compareMinor = app.compareMinor;
  const res = compute(req);
  if (!res) {
    // Before the controller has loaded: run when it has.
    app.pending = cursor;
    $('step-title').textContent = 'Waiting for the controller to load…';
    return;
  }
  delete app.pending;
  app.problems = res.problems || [];
  showProblems();
  if (app.problems.length) {
    document.body.classList.add('stale');
    app.result = null;
    for (const id of runControls) $(id).disabled = true;
    $('step-title').textContent = 'The input has a problem: nothing to run';
    $('outcome').textContent = '';
    updateHash();
    return;
  }
  document.body.classList.remove('stale');
  $('cursor').disabled = false;
  $('play').disabled = false;
  app.result = res;
  $('minor-label').textContent = `kube-controller-manager ${res.minor}`;
  document.body.dataset.minor = res.minor;
  differences(res.differences);
  $('transcript').textContent = whole(res);
  $('cursor').max = lastIndex();
  $('outcome').innerHTML = '';
  const o = $('outcome');
  o.append('ends ');
  const b = document.createElement('b');
  b.textContent = res.outcome;
  o.append(b, ` after ${res.steps.length} syncs, ${fmtDur(res.steps[res.steps.length - 1].elapsed)} · ${res.strategy}`);
  seek(Math.min(Math.max(0, cursor | 0), lastIndex()));
  if (!performance.getEntriesByName('deploysync-first-run', 'mark').length) {
    performance.mark('deploysync-first-run');
    document.body.dataset.drawn = '1';
  }
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
  const st = $('status');
  try {
    await navigator.clipboard.writeText(url);
    st.textContent = 'Link copied.';
  } catch (e) {
    // The clipboard was refused: the link itself, to copy by hand.
    st.textContent = 'Copy this link: ';
    const a = document.createElement('a');
    a.href = url;
    a.id = 'link';
    a.textContent = url;
    st.appendChild(a);
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
const rsInfo = (name) => app.result.replicaSets.find((r) => r.name === name) || { name, hash: name, images: '' };
// A ReplicaSet as the legend and the table name it at a step: old or new
// (the step's new ReplicaSet), its hash, image and revision.
const rsRole = (s, name) => (s.replicaSets[name] && s.replicaSets[name].new ? 'new' : 'old');

function render() {
  const res = app.result;
  const s = res.steps[app.cursor];
  document.body.dataset.step = app.cursor;
  document.body.dataset.steps = res.steps.length;
  $('step-title').textContent = `Step ${s.index} of ${lastIndex()} · +${fmtDur(s.elapsed)} · branch ${s.branch}`;
  $('back').disabled = $('first').disabled = app.cursor === 0;
  $('step').disabled = $('last').disabled = app.cursor >= lastIndex();
  flow(s);
  calls(s);
  plan(s);
  table(s);
  chart();
  $('step-text').textContent = stepText(res, app.cursor);
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
  for (const c of s.changes || []) item('user', 'user: ' + c, '');
  for (const a of s.actions || []) item('action', a.what, a.why);
  if (!(s.actions || []).length) item('none', 'no writes, no events');
  if (s.why) item('waits', 'waits', s.why);
  if (s.err) item('fail', 'the sync fails: ' + s.err, '');
  else if (s.requeue) item('then', 'requeue now (rate limited)', s.requeueWhy);
  else if (s.requeueAfter > 0) item('then', 'requeue after ' + fmtDur(s.requeueAfter), s.requeueWhy);
}

// calls lists the calls of the function the branch handed the Deployment
// to, each with what it did (play.Call: read off the plan's reasons in Go).
function calls(s) {
  const ol = $('calls');
  ol.textContent = '';
  const list = s.calls || [];
  $('calls-box').hidden = !list.length;
  $('calls-title').textContent = list.length ? `${s.function}: its calls in upstream's order` : '';
  const words = { acted: 'acted', waited: 'waited', idle: 'nothing to do', skipped: 'not reached' };
  for (const c of list) {
    const li = document.createElement('li');
    li.className = `call ${c.state}` + (c.depth ? ' inner' : '');
    li.dataset.call = c.name;
    li.dataset.state = c.state;
    const code = document.createElement('code');
    code.textContent = c.name;
    const st = document.createElement('span');
    st.className = 'state';
    st.textContent = words[c.state] || c.state;
    li.append(code, ' ', st);
    if (c.only && (c.state === 'idle' || c.state === 'skipped')) {
      const o = document.createElement('span');
      o.className = 'only';
      o.textContent = ` (called only when ${c.only})`;
      li.appendChild(o);
    }
    if (c.note) {
      const n = document.createElement('span');
      n.className = 'note';
      n.textContent = c.note;
      li.appendChild(n);
    }
    ol.appendChild(li);
  }
}

// differences shows what the run's minor decides differently from the one
// it was compared with (play.Differences: both runs made in Go).
function differences(d) {
  const box = $('minor-diff');
  box.textContent = '';
  box.hidden = !d;
  if (!d) return;
  const h = document.createElement('h3');
  h.textContent = `What Kubernetes ${d.minor} decides differently from ${d.other} on this input`;
  box.appendChild(h);
  const ul = document.createElement('ul');
  const li = (...parts) => { const x = document.createElement('li'); x.append(...parts); ul.appendChild(x); return x; };
  const code = (t) => { const c = document.createElement('code'); c.textContent = t; return c; };
  if (d.refused) li(`${d.other} refuses the input: `, code(d.refused));
  for (const n of d.names || []) li('pod-template-hash: ', code(n.minor), ` is ${d.other}'s `, code(n.other));
  if (d.outcome) li(`${d.other} ends ${d.outcome}`);
  if (!d.refused) {
    li(d.steps ? `${d.steps} of the steps print differently beyond the names` : 'Every step prints the same beyond the names.');
  }
  for (const l of d.lines || []) {
    const x = li(`step ${l.step}:`);
    const dl = document.createElement('dl');
    for (const [who, lines] of [[d.minor, l.minor], [d.other, l.other]]) {
      const dt = document.createElement('dt');
      dt.textContent = who;
      const dd = document.createElement('dd');
      dd.textContent = (lines || []).join('\n') || '(nothing)';
      dl.append(dt, dd);
    }
    x.appendChild(dl);
  }
  box.appendChild(ul);
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
  row(['ReplicaSet', 'rev', 'spec', 'pods', 'ready', 'avail', 'term'], 'th');
  for (const info of app.result.replicaSets) {
    const r = s.replicaSets[info.name];
    if (!r) continue;
    const name = document.createElement('span');
    name.className = 'rs';
    const sw = document.createElement('i');
    sw.className = 'sw';
    sw.style.background = rsColor(info.name);
    const role = document.createElement('b');
    role.className = 'role ' + rsRole(s, info.name);
    role.textContent = rsRole(s, info.name);
    const img = document.createElement('small');
    img.textContent = info.images;
    name.append(sw, role, ' ', info.hash || info.name, img);
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

// fit sizes an SVG to its box at one user unit per CSS pixel, so that its
// text is drawn at the size the style sheet gives it, and returns the width.
function fit(svg, h) {
  const box = svg.parentElement;
  const cs = getComputedStyle(box);
  const w = Math.max(280, Math.floor(box.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)));
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.setAttribute('width', w);
  svg.setAttribute('height', h);
  return w;
}

// overflows reports whether a text of the SVG is wider than its box (the
// rect before it in its group).
function overflows(svg) {
  for (const g of svg.querySelectorAll('g.node')) {
    const r = g.querySelector('rect');
    for (const t of g.querySelectorAll('text')) {
      if (t.getComputedTextLength() > Number(r.getAttribute('width')) - 6) return true;
    }
  }
  return false;
}

// flow draws the diagram in the widest layout whose text fits its boxes.
function flow(s) {
  const svg = $('flow');
  for (const layout of ['wide', 'medium', 'narrow']) {
    drawFlow(svg, s, layout);
    if (layout === 'narrow' || !overflows(svg)) break;
  }
}

function drawFlow(svg, s, layout) {
  svg.textContent = '';
  const W = fit(svg, 10);
  svg.dataset.layout = layout;
  svg.classList.toggle('compact', layout === 'wide' && W < 900);
  const defs = el('defs', {}, svg);
  for (const [id, color] of [['arrow', '#b9c0cc'], ['arrow-on', '#1f5fd1'], ['arrow-hit', '#d9480f']]) {
    const m = el('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);
    el('path', { d: 'M0,0 L10,5 L0,10 z', fill: color }, m);
  }
  const box = (x, y, w, h, cls, name, sub, nameClass, key) => {
    const g = el('g', { class: 'node ' + cls, 'data-node': key || name }, svg);
    el('rect', { x, y, width: w, height: h, rx: 5 }, g);
    el('text', { x: x + w / 2, y: y + (sub ? h / 2 - 3 : h / 2 + 4), class: nameClass || 'name' }, g, name);
    if (sub) el('text', { x: x + w / 2, y: y + h / 2 + 12 }, g, sub);
    return g;
  };
  const arrow = (cls) => `url(#${cls === 'hit' ? 'arrow-hit' : cls === 'on' ? 'arrow-on' : 'arrow'})`;
  const wire = (d, cls) => el('path', { d, class: 'wire ' + cls, 'marker-end': arrow(cls) }, svg);
  const line = (d, cls) => el('path', { d, class: 'wire ' + cls }, svg);
  const again = s.err || s.requeue || s.requeueAfter > 0;
  let label = 'requeue: an error, or the progress deadline';
  if (s.err) label = 'the sync failed: retry, rate limited';
  else if (s.requeue) label = 'requeue now, rate limited';
  else if (s.requeueAfter > 0) label = 'requeue after ' + fmtDur(s.requeueAfter);
  const hit = branches.findIndex((b) => b[0] === s.branch);
  const clsOf = (i) => (i === hit ? 'hit' : hit >= 0 && i < Math.min(hit, 5) ? 'passed' : '');
  const tops = [['Informers', 'Deployment/RS/Pod events'], ['workqueue', 'ns/name keys'],
    ['processNextWorkItem', 'one key, one worker'], ['syncDeployment', 'reads the caches, decides']];
  let H;
  if (layout === 'medium') {
    // The pipeline in a row as in the wide layout; the branches in two
    // rows of four and three, fed by a bus down the left edge.
    const top = 34, th = 40, gap = 14, tw = (W - 3 * gap) / 4;
    tops.forEach(([name, sub], i) => {
      box(i * (tw + gap), top, tw, th, 'on', name, sub);
      if (i > 0) wire(`M${i * (tw + gap) - gap},${top + th / 2} L${i * (tw + gap) - 2},${top + th / 2}`, 'on');
    });
    const qx = tw + gap + tw / 2, sx = 3 * (tw + gap) + tw / 2;
    el('path', { d: `M${sx},${top} C${sx},${top - 16} ${qx},${top - 16} ${qx},${top - 2}`, class: 'requeue' + (again ? ' on' : ''), 'marker-end': arrow(again ? 'hit' : '') }, svg);
    el('text', { x: (qx + sx) / 2, y: 13, class: 'requeue-label' + (again ? ' on' : '') }, svg, label);
    const mx = 12, g = 6, bw = (W - mx - 3 * g) / 4, bh = 40, fh = 30;
    const rows = [{ bus: 86, by: 100, fy: 152, from: 0, n: 4 }, { bus: 198, by: 212, fy: 264, from: 4, n: 3 }];
    const cx = (k) => mx + k * (bw + g) + bw / 2;
    line(`M${sx},${top + th} L${sx},${rows[0].bus} L4,${rows[0].bus} L4,${rows[1].bus} L${cx(rows[1].n - 1)},${rows[1].bus}`, 'on');
    let hitX = 0;
    for (const r of rows) {
      for (let k = 0; k < r.n; k++) {
        const i = r.from + k, [name, question, fn] = branches[i], x = mx + k * (bw + g), cls = clsOf(i);
        wire(`M${cx(k)},${r.bus} L${cx(k)},${r.by - 2}`, i === hit ? 'hit' : '');
        box(x, r.by, bw, bh, 'branch ' + cls, name, question, null, name);
        wire(`M${cx(k)},${r.by + bh} L${cx(k)},${r.fy - 2}`, i === hit ? 'hit' : '');
        box(x, r.fy, bw, fh, 'fn ' + (i === hit ? 'hit' : ''), fn, null, 'name fn', 'fn-' + name);
        if (i === hit) hitX = cx(k);
      }
    }
    H = rows[1].fy + fh + 2;
    if (hit >= 4 && (s.calls || []).length) {
      line(`M${hitX},${rows[1].fy + fh} L${hitX},${rows[1].fy + fh + 12}`, 'hit');
      H += 10;
    }
  } else if (layout === 'wide') {
    // The pipeline in a row, the requeue arc above it; the branches in a
    // row below, each above the function it hands the Deployment to.
    const top = 34, th = 40, gap = 22, tw = (W - 3 * gap) / 4;
    tops.forEach(([name, sub], i) => {
      box(i * (tw + gap), top, tw, th, 'on', name, sub);
      if (i > 0) wire(`M${i * (tw + gap) - gap},${top + th / 2} L${i * (tw + gap) - 2},${top + th / 2}`, 'on');
    });
    const qx = tw + gap + tw / 2, sx = 3 * (tw + gap) + tw / 2;
    el('path', { d: `M${sx},${top} C${sx},${top - 16} ${qx},${top - 16} ${qx},${top - 2}`, class: 'requeue' + (again ? ' on' : ''), 'marker-end': arrow(again ? 'hit' : '') }, svg);
    el('text', { x: (qx + sx) / 2, y: 13, class: 'requeue-label' + (again ? ' on' : '') }, svg, label);
    const by = 100, bh = 40, fy = 162, fh = 30, g = 6, bw = (W - 6 * g) / 7, busY = 86;
    const cx = (i) => i * (bw + g) + bw / 2;
    line(`M${sx},${top + th} L${sx},${busY}`, 'on');
    line(`M${cx(0)},${busY} L${cx(6)},${busY}`, 'on');
    branches.forEach(([name, question, fn], i) => {
      const x = i * (bw + g), cls = clsOf(i);
      wire(`M${cx(i)},${busY} L${cx(i)},${by - 2}`, i === hit ? 'hit' : '');
      box(x, by, bw, bh, 'branch ' + cls, name, question, null, name);
      wire(`M${cx(i)},${by + bh} L${cx(i)},${fy - 2}`, i === hit ? 'hit' : '');
      box(x, fy, bw, fh, 'fn ' + (i === hit ? 'hit' : ''), fn, null, 'name fn', 'fn-' + name);
    });
    H = fy + fh + 2;
    if (hit >= 0 && (s.calls || []).length) {
      line(`M${cx(hit)},${fy + fh} L${cx(hit)},${fy + fh + 12}`, 'hit');
      H = fy + fh + 12;
    }
  } else {
    // Narrow: the pipeline as a column with the requeue bracket at its
    // right; then one row per branch, the branch at the left and its
    // function at the right, off a bus down the left edge.
    const th = 38, gap = 14, bx = 14, tw = W - bx - 40;
    tops.forEach(([name, sub], i) => {
      const y = i * (th + gap);
      box(bx, y, tw, th, 'on', name, sub);
      if (i > 0) wire(`M${bx + tw / 2},${y - gap} L${bx + tw / 2},${y - 2}`, 'on');
    });
    const qy = 1 * (th + gap) + th / 2, sy = 3 * (th + gap) + th / 2, rx = bx + tw;
    el('path', { d: `M${rx},${sy} H${rx + 20} V${qy} H${rx + 2}`, class: 'requeue' + (again ? ' on' : ''), 'marker-end': arrow(again ? 'hit' : '') }, svg);
    const ly = 4 * (th + gap) + 8;
    el('text', { x: W - 2, y: ly, class: 'requeue-label end' + (again ? ' on' : '') }, svg, '↻ ' + label);
    const by0 = ly + 14, bh = 40, g = 6, half = (W - bx - 18) / 2;
    line(`M${bx + tw / 2},${3 * (th + gap) + th} V${by0 - 6} H4 V${by0 + 6 * (bh + g) + bh / 2}`, 'on');
    branches.forEach(([name, question, fn], i) => {
      const y = by0 + i * (bh + g), cls = clsOf(i);
      wire(`M4,${y + bh / 2} H${bx - 2}`, i === hit ? 'hit' : '');
      box(bx, y, half, bh, 'branch ' + cls, name, question, null, name);
      wire(`M${bx + half},${y + bh / 2} H${bx + half + 16}`, i === hit ? 'hit' : '');
      box(bx + half + 18, y + 5, W - bx - half - 18, bh - 10, 'fn ' + (i === hit ? 'hit' : ''), fn, null, 'name fn', 'fn-' + name);
    });
    H = by0 + 7 * (bh + g);
  }
  fit(svg, H);
  svg.setAttribute('aria-label', `Controller flow: syncDeployment decided in the ${s.branch} branch` +
    (s.function ? `, handing the Deployment to ${s.function}` : '') + (again ? `; then ${label}` : ''));
}

// timeAxis places the steps by time: each gap between two steps longer
// than `cap` seconds (and over 6 times the typical gap) is drawn `cap`
// wide and marked as a break.
function timeAxis(steps) {
  const gaps = steps.slice(1).map((s, i) => s.elapsed - steps[i].elapsed).filter((g) => g > 0).sort((a, b) => a - b);
  const typical = gaps.length ? gaps[Math.floor(gaps.length / 2)] : 1;
  const cap = Math.max(4 * typical, 5);
  const u = [0], breaks = [];
  for (let i = 1; i < steps.length; i++) {
    const g = steps[i].elapsed - steps[i - 1].elapsed;
    if (g > cap && g > 6 * typical) {
      breaks.push({ from: i - 1, to: i, gap: g, at: u[i - 1] + cap / 2 });
      u.push(u[i - 1] + cap);
    } else {
      u.push(u[i - 1] + g);
    }
  }
  return { u, breaks, end: Math.max(u[u.length - 1], 1) };
}

function chart() {
  const res = app.result, steps = res.steps, svg = $('chart');
  svg.textContent = '';
  const H = 318;
  const W = fit(svg, H);
  const L = 40, R = 16, n = steps.length;
  const panels = [{ y: 22, h: 96, title: 'ReplicaSet spec.replicas after each sync' }, { y: 160, h: 96, title: 'Pods by state, as each sync saw them' }];
  let max = 1;
  for (const s of steps) {
    max = Math.max(max, s.totals.pods + s.totals.terminating, s.replicas + s.maxSurge);
    for (const r of Object.values(s.replicaSets)) max = Math.max(max, r.replicas);
  }
  // A round top with some headroom: 18 pods → 20, 4 → 6, 1000 → 1200.
  const raw = max * 1.08, unit = Math.max(2, Math.pow(10, Math.floor(Math.log10(raw))) / 5);
  max = Math.ceil(raw / unit) * unit;
  const ax = timeAxis(steps);
  const plotW = W - L - R - 8;
  const xu = (u) => L + 4 + (u / ax.end) * plotW;
  const x = (i) => xu(ax.u[i]);
  let minDx = plotW;
  for (let i = 1; i < n; i++) minDx = Math.min(minDx, x(i) - x(i - 1));
  const bw = Math.max(1.5, Math.min(14, minDx * 0.8));
  for (const p of panels) {
    const y = (v) => p.y + p.h - (v / max) * p.h;
    p.yf = y;
    el('text', { x: L, y: p.y - 8, class: 'title' }, svg, p.title);
    for (const v of [0, max / 2, max]) {
      const vv = Math.round(v);
      el('line', { x1: L, x2: W - R, y1: y(vv), y2: y(vv), class: 'grid' }, svg);
      el('text', { x: L - 4, y: y(vv) + 4, 'text-anchor': 'end' }, svg, vv);
    }
    el('line', { x1: L, x2: L, y1: p.y, y2: p.y + p.h, class: 'axis' }, svg);
    el('line', { x1: L, x2: W - R, y1: p.y + p.h, y2: p.y + p.h, class: 'axis' }, svg);
    // Breaks: time left out of the axis.
    for (const b of ax.breaks) {
      const bx = xu(b.at), by = p.y + p.h;
      el('rect', { x: bx - 4, y: p.y, width: 8, height: p.h, class: 'gap' }, svg);
      el('path', { d: `M${bx - 6},${by + 4} l4,-8 M${bx},${by + 4} l4,-8`, class: 'break' }, svg);
    }
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
  // x axis: time since the start. Labels at the first and last step, at
  // each side of a break, and between where they fit; none cut off.
  const axisY = panels[1].y + panels[1].h;
  const labels = [];
  const want = [0, n - 1];
  for (const b of ax.breaks) want.push(b.from, b.to);
  const every = Math.max(1, Math.ceil(n / Math.max(2, Math.floor(plotW / 60))));
  for (let i = 0; i < n; i += every) want.push(i);
  const seen = new Set();
  for (const i of want) {
    if (seen.has(i)) continue;
    seen.add(i);
    const text = '+' + fmtDur(steps[i].elapsed);
    const w = text.length * 7;
    const cx = Math.min(Math.max(x(i), L + w / 2), W - w / 2 - 1);
    const must = i === 0 || i === n - 1;
    if (!must && labels.some((l) => Math.abs(l.cx - cx) < (l.w + w) / 2 + 6)) continue;
    if (must) {
      for (let k = labels.length - 1; k >= 0; k--) {
        if (!labels[k].must && Math.abs(labels[k].cx - cx) < (labels[k].w + w) / 2 + 6) labels.splice(k, 1);
      }
    }
    labels.push({ cx, w, text, must, i });
  }
  for (const l of labels) {
    el('line', { x1: x(l.i), x2: x(l.i), y1: axisY, y2: axisY + 4, class: 'axis' }, svg);
    el('text', { x: l.cx, y: axisY + 17, 'text-anchor': 'middle', class: 'tick' }, svg, l.text);
  }
  // The breaks' lengths, where they fit.
  let lastEnd = -Infinity;
  for (const b of ax.breaks) {
    const text = '≈ ' + fmtDur(b.gap) + ' gap';
    const w = text.length * 7, cx = Math.min(Math.max(xu(b.at), L + w / 2), W - w / 2 - 1);
    if (cx - w / 2 < lastEnd + 6) continue;
    lastEnd = cx + w / 2;
    el('text', { x: cx, y: axisY + 33, 'text-anchor': 'middle', class: 'gap-label' }, svg, text);
  }
  el('text', { x: L, y: H - 4, class: 'axis-title' }, svg, ax.breaks.length ? 'time since the start (≈: a gap drawn shorter than it is)' : 'time since the start');
  el('line', { x1: x(upto), x2: x(upto), y1: 16, y2: axisY, class: 'cursor' }, svg);
  // legend: each ReplicaSet old or new at this step, with its hash, image
  // and revision
  const lg = $('legend');
  lg.textContent = '';
  const item = (color, text, dashed, rs) => {
    const sp = document.createElement('span');
    const i = document.createElement('i');
    i.style.background = dashed ? 'repeating-linear-gradient(90deg,#9aa2ae 0 3px,transparent 3px 6px)' : color;
    if (dashed) i.style.height = '2px';
    sp.append(i, text);
    if (rs) sp.dataset.rs = rs;
    lg.appendChild(sp);
  };
  const cur = steps[upto];
  for (const info of res.replicaSets) {
    const r = cur.replicaSets[info.name];
    const rev = r ? r.revision : info.revision;
    item(rsColor(info.name), `${rsRole(cur, info.name)} ${info.hash || shortName(info.name)} · ${info.images} · rev ${rev || '–'}`, false, info.name);
  }
  item(null, 'replicas + maxSurge', true);
  for (const [name, color] of layers) item(color, name);
  const t = cur.totals;
  svg.setAttribute('aria-label', `Chart up to step ${upto} (+${fmtDur(cur.elapsed)}): ${t.pods} pods, ${t.ready} ready, ${t.available} available, ${t.terminating} terminating`);
}

boot().catch((e) => {
  const st = $('status');
  st.textContent = 'The controller did not load: ' + e.message;
  st.className = 'error';
  document.body.dataset.ready = 'error';
  console.error(e);
});
