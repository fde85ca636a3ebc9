// Renders TRACE (written by TracePage.java) as Go's "View trace by proc": one lane per P,
// coloured by state, with retakes, hand-offs, runnext demotions and steals marked, and one lane
// per worker thread (M) showing when it was parked. No library: plain SVG through the DOM.
// On success <body data-status="rendered" data-lanes="N">; on any error data-status="error"
// and the message in #errors (the headless-browser test reads both).
(function () {
  'use strict';
  const SVG = 'http://www.w3.org/2000/svg';
  const errors = document.getElementById('errors');

  function fail(msg) {
    const li = document.createElement('li');
    li.textContent = msg;
    errors.appendChild(li);
    document.body.dataset.status = 'error';
  }
  window.addEventListener('error', (e) => fail('script error: ' + e.message));

  function el(name, attrs, parent, title) {
    const n = document.createElementNS(SVG, name);
    for (const k in attrs) n.setAttribute(k, attrs[k]);
    if (title) {
      const t = document.createElementNS(SVG, 'title');
      t.textContent = title;
      n.appendChild(t);
    }
    if (parent) parent.appendChild(n);
    return n;
  }

  function ms(ns) {
    return (ns / 1e6).toFixed(3) + ' ms';
  }

  function niceStep(span, pixels) {
    const target = span / Math.max(1, pixels / 90); // a tick every ~90 px
    const p = Math.pow(10, Math.floor(Math.log10(target)));
    for (const f of [1, 2, 5, 10]) if (f * p >= target) return f * p;
    return 10 * p;
  }

  function render(t, zoom) {
    if (!t || !Array.isArray(t.procs)) throw new Error('no trace data');
    if (t.procs.length === 0) throw new Error('empty lane set: no dev.gmp.ProcState events');
    const host = document.getElementById('trace');
    host.textContent = '';
    const left = 70, right = 20, laneH = 22, gap = 6, top = 28;
    const width = Math.max(600, (host.clientWidth || 1200) - 4) * zoom;
    const plot = width - left - right;
    const span = Math.max(1, t.span);
    const x = (ns) => left + (ns / span) * plot;
    const lanes = t.procs.length + t.threads.length;
    const height = top + lanes * (laneH + gap) + (t.threads.length ? 24 : 0) + 10;
    const svg = el('svg', {width: width, height: height, class: 'trace'}, host);
    const defs = el('defs', {}, svg);
    const arrow = el('marker', {id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5,
      markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse'}, defs);
    el('path', {d: 'M 0 0 L 10 5 L 0 10 z', class: 'steal-head'}, arrow);

    // Time axis.
    const step = niceStep(span, plot);
    const axis = el('g', {class: 'axis'}, svg);
    for (let v = 0; v <= span; v += step) {
      el('line', {x1: x(v), x2: x(v), y1: top - 6, y2: height - 6, class: 'tick'}, axis);
      const label = el('text', {x: x(v) + 2, y: top - 10}, axis);
      label.textContent = (v / 1e6).toFixed(step < 1e6 ? 3 : 0) + ' ms';
    }

    const laneY = {};
    let row = 0;
    for (const proc of t.procs) {
      const y = top + row++ * (laneH + gap);
      laneY[proc.p] = y;
      const g = el('g', {class: 'lane', 'data-p': proc.p}, svg);
      const name = el('text', {x: 8, y: y + laneH * 0.7, class: 'lane-name'}, g);
      name.textContent = 'P' + proc.p;
      el('rect', {x: left, y: y, width: plot, height: laneH, class: 'lane-bg'}, g);
      for (const s of proc.segs) {
        const [start, end, state, m] = s;
        const w = Math.max(0.5, x(end) - x(start));
        el('rect', {x: x(start), y: y, width: w, height: laneH, class: 'seg ' + state}, g,
          'P' + proc.p + ' ' + state + (m >= 0 ? ' on M' + m : '') + ' for ' + ms(end - start)
            + ' at ' + ms(start));
      }
    }
    if (t.threads.length) {
      const label = el('text', {x: 8, y: top + row * (laneH + gap) + 14, class: 'section'}, svg);
      label.textContent = 'threads (parked)';
    }
    for (const th of t.threads) {
      const y = top + row++ * (laneH + gap) + 24;
      const g = el('g', {class: 'thread', 'data-m': th.m}, svg);
      const name = el('text', {x: 8, y: y + laneH * 0.7, class: 'lane-name'}, g);
      name.textContent = 'M' + th.m;
      el('rect', {x: left, y: y, width: plot, height: laneH, class: 'lane-bg'}, g);
      for (const [start, end] of th.parks) {
        el('rect', {x: x(start), y: y + 4, width: Math.max(0.5, x(end) - x(start)),
          height: laneH - 8, class: 'seg parked'}, g, 'M' + th.m + ' parked for '
            + ms(end - start) + ' at ' + ms(start));
      }
    }

    // Steals: an arrow from the victim's lane to the thief's.
    const sg = el('g', {class: 'steals'}, svg);
    for (const [at, from, to, n] of t.steals) {
      if (!(from in laneY) || !(to in laneY)) continue;
      const down = laneY[to] > laneY[from];
      el('line', {x1: x(at), x2: x(at), y1: laneY[from] + (down ? laneH : 0),
        y2: laneY[to] + (down ? 0 : laneH), class: 'steal', 'marker-end': 'url(#arrow)'}, sg,
      'steal of ' + n + ' task(s) from P' + from + ' by P' + to + ' at ' + ms(at));
    }

    // Marks on top of the lanes.
    const mg = el('g', {class: 'marks'}, svg);
    for (const [at, p, kind, label] of t.marks) {
      if (!(p in laneY)) continue;
      const cx = x(at), y = laneY[p];
      const title = kind + ' on P' + p + ' at ' + ms(at) + ': ' + label;
      if (kind === 'retake') {
        el('path', {d: `M ${cx - 5} ${y - 2} L ${cx + 5} ${y - 2} L ${cx} ${y + 7} z`,
          class: 'mark retake'}, mg, title);
      } else if (kind === 'handoff') {
        el('path', {d: `M ${cx} ${y + laneH - 9} L ${cx + 5} ${y + laneH - 4} L ${cx} ${y + laneH + 1}`
          + ` L ${cx - 5} ${y + laneH - 4} z`, class: 'mark handoff'}, mg, title);
      } else {
        el('circle', {cx: cx, cy: y + laneH / 2, r: 4, class: 'mark ' + kind}, mg, title);
      }
    }
    const n = document.querySelectorAll('g.lane').length;
    if (n === 0) throw new Error('empty lane set after rendering');
    document.body.dataset.lanes = String(n);
  }

  function summary(t) {
    const s = document.getElementById('summary');
    const counts = Object.entries(t.counts || {}).map(([k, v]) => k + ' ' + v).join(', ');
    s.textContent = 'executor ' + t.executor + ': ' + t.procs.length + ' processors, '
      + t.threads.length + ' threads, ' + ms(t.span) + ' recorded; events: ' + counts;
  }

  try {
    summary(TRACE);
    const zoom = document.getElementById('zoom');
    const draw = () => render(TRACE, Math.pow(2, Number(zoom.value)));
    zoom.addEventListener('input', () => {
      try {
        draw();
      } catch (e) {
        fail(String(e && e.stack ? e.stack : e));
      }
    });
    draw();
    if (document.body.dataset.status !== 'error') document.body.dataset.status = 'rendered';
  } catch (e) {
    fail(String(e && e.stack ? e.stack : e));
  }
})();
