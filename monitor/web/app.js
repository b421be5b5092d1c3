// SPDX-License-Identifier: MIT
// The dashboard: polls /api/state, keeps the last minutes of it, and draws
// positions, PnL, prints with the orders and fills, latency percentiles
// and feed health.  window.t2t counts polls and errors (the browser test
// reads it).
'use strict';

const params = new URLSearchParams(location.search);
const POLL_MS = Math.max(200, +(params.get('poll') || 1000));
const SPAN_S = +(params.get('span') || 300);	// what the charts show
const KEEP_S = SPAN_S + 60;
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b',
  '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'];
const PCTS = ['p50', 'p99', 'p99.9'];

window.t2t = { polls: 0, errors: 0, last: null };

let st = null;		// history of the segment being shown
const $ = (id) => document.getElementById(id);

function fresh(seg) {
  return { start: seg.start_ms, next: 0, prev: null, sym: {}, lat: {}, feed: { ticks: [], orders: [], fills: [] },
    events: [], total: [] };
}

function push(arr, t, v) {
  arr.push([t, v]);
  while (arr.length && arr[0][0] < t - KEEP_S) arr.shift();
}

function badge(id, text, cls) {
  const e = $(id);
  e.textContent = text;
  e.className = 'badge ' + (cls || '');
}

const money = (v) => (v < 0 ? '-' : '') + '$' + Math.abs(v).toFixed(2);
const us = (ns) => (ns === undefined ? '-' : (ns / 1000).toFixed(ns < 10000 ? 2 : 1));
const px = (v) => (v ? v.toFixed(2) : '-');

function td(row, text, cls) {
  const c = row.insertCell();
  c.textContent = text;
  if (cls) c.className = cls;
  return c;
}

function record(s) {
  const t = s.segment.now_ms / 1000;
  if (!st || st.start !== s.segment.start_ms) st = fresh(s.segment);
  for (const y of s.symbols) {
    const h = st.sym[y.symbol] || (st.sym[y.symbol] = { pnl: [], pos: [], last: [], bid: [], ask: [] });
    push(h.pnl, t, y.pnl);
    push(h.pos, t, y.position);
    if (y.last) push(h.last, t, y.last);
    if (y.bid) push(h.bid, t, y.bid);
    if (y.ask) push(h.ask, t, y.ask);
  }
  push(st.total, t, s.symbols.reduce((a, y) => a + y.pnl, 0));
  for (const g of s.latency_ns.stages) {
    const h = st.lat[g.stage] || (st.lat[g.stage] = { p50: [], p99: [], 'p99.9': [] });
    for (const p of PCTS) push(h[p], t, g.recent.count ? g.recent[p] / 1000 : null);
  }
  const c = s.counters, prev = st.prev;
  if (prev && t > prev.t) {
    const dt = t - prev.t, rate = (a, b) => Math.max(0, (a - b) / dt);
    push(st.feed.ticks, t, rate(c.feed ? c.feed.ticks : 0, prev.ticks));
    push(st.feed.orders, t, rate(c.orders ? c.orders.sent : 0, prev.orders));
    push(st.feed.fills, t, rate(c.orders ? c.orders.filled : 0, prev.fills));
  }
  st.prev = { t, ticks: c.feed ? c.feed.ticks : 0, orders: c.orders ? c.orders.sent : 0,
    fills: c.orders ? c.orders.filled : 0 };
  for (const e of s.events.list) st.events.push(e);
  while (st.events.length > 4000 || (st.events.length && st.events[0].t_ms / 1000 < t - KEEP_S)) st.events.shift();
  st.next = s.events.next;
  return t;
}

function header(s) {
  const seg = s.segment, c = s.counters;
  $('segment').textContent = `t2t-${seg.name}  ${seg.writer} pid ${seg.pid}  up ${Math.round(seg.uptime_s)} s`;
  if (!seg.alive) badge('status', 'WRITER GONE: last values', 'bad');
  else if (seg.heartbeat_age_s > 3) badge('status', `no heartbeat for ${Math.round(seg.heartbeat_age_s)} s`, 'warn');
  else badge('status', 'running', 'ok');
  const g = c.gaps || {}, f = c.feed || {}, o = c.orders || {};
  if (g.stale) badge('session', 'session STALE', 'bad');
  else if (g.recovering) badge('session', 'recovering a gap', 'warn');
  else if (f.end_of_session) badge('session', 'session ended', '');
  else badge('session', 'feed in sequence', 'ok');
  badge('kill', o.kill_switch ? 'KILL SWITCH ON' : 'kill switch off', o.kill_switch ? 'bad' : 'ok');
  const last = (a) => (a.length ? a[a.length - 1][1] : 0);
  $('rates').textContent = `${Math.round(last(st.feed.ticks))} ticks/s  ${Math.round(last(st.feed.orders))} orders/s`;
  $('clock').textContent = new Date(seg.now_ms).toTimeString().slice(0, 8);
}

function positions(s) {
  const body = $('positions').tBodies[0];
  body.textContent = '';
  let total = 0;
  for (const y of s.symbols) {
    const r = body.insertRow();
    td(r, y.symbol);
    td(r, y.position, y.position > 0 ? 'pos' : y.position < 0 ? 'neg' : '');
    td(r, y.target);
    td(r, y.strategy_position > 0 ? 'long' : y.strategy_position < 0 ? 'short' : 'flat');
    td(r, px(y.bid));
    td(r, px(y.ask));
    td(r, px(y.last));
    td(r, y.last_size);
    td(r, money(y.pnl), y.pnl < 0 ? 'neg' : 'pos');
    td(r, money(y.cash));
    td(r, y.orders);
    td(r, y.fills);
    td(r, y.cancels);
    td(r, y.rejects);
    total += y.pnl;
  }
  const e = $('total-pnl');
  e.textContent = money(total);
  e.className = total < 0 ? 'neg' : 'pos';
}

function latencyTable(s) {
  const body = $('latency').tBodies[0];
  body.textContent = '';
  $('window').textContent = `recent: the last ${s.latency_ns.window_s.toFixed(1)} s`;
  for (const g of s.latency_ns.stages) {
    const r = body.insertRow();
    td(r, g.stage);
    td(r, g.all.count);
    for (const p of PCTS) td(r, us(g.all[p]));
    td(r, g.recent.count, 'sep');
    for (const p of PCTS) td(r, us(g.recent[p]));
  }
  const sel = $('stage');
  if (!sel.options.length) {
    for (const g of s.latency_ns.stages) sel.add(new Option(g.stage, g.stage, false, g.stage === 'hook->queued'));
  }
}

function counters(s) {
  const box = $('counters');
  box.textContent = '';
  for (const [group, vals] of Object.entries(s.counters)) {
    const h = document.createElement('div');
    h.className = 'group';
    h.textContent = group;
    box.appendChild(h);
    for (const [k, v] of Object.entries(vals)) {
      const d = document.createElement('div');
      d.className = 'c' + (v === 0 || v === false ? ' zero' : '');
      const a = document.createElement('span'), b = document.createElement('span');
      a.textContent = k;
      b.textContent = typeof v === 'boolean' ? (v ? 'YES' : 'no') : v.toLocaleString('en-US');
      d.append(a, b);
      box.appendChild(d);
    }
  }
}

function priceCharts(s, now) {
  const box = $('prices');
  s.symbols.forEach((y, i) => {
    let c = document.getElementById('price-' + y.symbol);
    if (!c) {
      const d = document.createElement('div');
      d.className = 'price';
      const h = document.createElement('h3');
      h.textContent = y.symbol;
      c = document.createElement('canvas');
      c.id = 'price-' + y.symbol;
      c.className = 'chart';
      d.append(h, c);
      box.appendChild(d);
    }
    const h = st.sym[y.symbol], col = COLORS[i % COLORS.length];
    const markers = st.events.filter((e) => e.symbol === y.symbol && (e.kind === 'fill' || e.kind === 'order'))
      .map((e) => ({ t: e.t_ms / 1000, v: e.price, up: e.side === 'B', filled: e.kind === 'fill',
        color: e.side === 'B' ? '#2e7d32' : '#c62828' }));
    Chart.draw(c, { now, span: SPAN_S, fmt: (v) => v.toFixed(2), markers, series: [
      { name: 'last', color: col, pts: h.last, width: 1.5 },
      { name: 'bid', color: '#7a8', pts: h.bid, width: 1, dash: [3, 3] },
      { name: 'ask', color: '#c88', pts: h.ask, width: 1, dash: [3, 3] }] });
  });
}

function charts(s, now) {
  const syms = s.symbols.map((y, i) => ({ y: y.symbol, color: COLORS[i % COLORS.length] }));
  Chart.draw($('pnl-chart'), { now, span: SPAN_S, fmt: (v) => money(v), series: syms.map((x) =>
    ({ name: x.y, color: x.color, pts: st.sym[x.y].pnl })).concat([{ name: 'total', color: '#222', width: 2.5, pts: st.total }]) });
  Chart.draw($('pos-chart'), { now, span: SPAN_S, fmt: (v) => String(Math.round(v)), series: syms.map((x) =>
    ({ name: x.y, color: x.color, pts: st.sym[x.y].pos, step: true })) });
  priceCharts(s, now);
  const lat = st.lat[$('stage').value || 'hook->queued'] || { p50: [], p99: [], 'p99.9': [] };
  Chart.draw($('lat-chart'), { now, span: SPAN_S, log: true, fmt: (v) => (v >= 1 ? String(v) : v.toPrecision(1)),
    series: [{ name: 'p50', color: '#1f77b4', pts: lat.p50 }, { name: 'p99', color: '#ff7f0e', pts: lat.p99 },
      { name: 'p99.9', color: '#d62728', pts: lat['p99.9'] }] });
  Chart.draw($('feed-chart'), { now, span: SPAN_S, fmt: (v) => Math.round(v).toLocaleString('en-US'),
    series: [{ name: 'ticks/s', color: '#1f77b4', pts: st.feed.ticks }, { name: 'orders/s', color: '#ff7f0e', pts: st.feed.orders },
      { name: 'fills/s', color: '#2ca02c', pts: st.feed.fills }] });
}

async function poll() {
  try {
    const r = await fetch('/api/state' + (st && st.next ? '?since=' + st.next : ''), { cache: 'no-store' });
    if (!r.ok) throw new Error('HTTP ' + r.status);
    const s = await r.json();
    window.t2t.polls++;
    window.t2t.last = s;
    if (!s.ok) {
      badge('status', 'waiting: ' + s.error, 'warn');
    } else {
      const now = record(s);
      header(s);
      positions(s);
      latencyTable(s);
      counters(s);
      charts(s, now);
    }
  } catch (e) {
    window.t2t.errors++;
    badge('status', 'monitor unreachable', 'bad');
  }
  setTimeout(poll, POLL_MS);
}

$('stage').addEventListener('change', () => { if (window.t2t.last && window.t2t.last.ok) charts(window.t2t.last, window.t2t.last.segment.now_ms / 1000); });
poll();
