// SPDX-License-Identifier: MIT
// Time charts on a canvas for the dashboard, with nothing from outside:
// lines (or steps) over the last minutes, markers, a legend, time and
// value axes, a log scale for latencies.
'use strict';

const Chart = (() => {
  const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600];

  function sized(canvas) {
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth || 300, h = canvas.clientHeight || 150;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
    }
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return { ctx, w, h };
  }

  // About n round values between lo and hi.
  function ticks(lo, hi, n) {
    const span = hi - lo;
    if (!(span > 0)) return [lo];
    const raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => span / s <= n) || 10 * mag;
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(v);
    return out;
  }

  function clock(t) {
    const d = new Date(t * 1000);
    return d.toTimeString().slice(0, 8);
  }

  // opt: { series: [{name, color, pts: [[t, v]...], step, width, dash}],
  //        markers: [{t, v, color, up, filled}], log, fmt, span (s), now (s) }
  function draw(canvas, opt) {
    const { ctx, w, h } = sized(canvas);
    const fmt = opt.fmt || ((v) => String(+v.toPrecision(4)));
    // The last span seconds, or less while there is less: from the first point.
    const now = opt.now;
    let first = now - 20;
    for (const s of opt.series) if (s.pts.length) first = Math.min(first, s.pts[0][0]);
    const t0 = Math.max(now - (opt.span || 300), first);
    const L = 64, R = 8, T = 20, B = 20;
    const pw = w - L - R, ph = h - T - B;
    const css = getComputedStyle(document.documentElement);
    const fg = css.getPropertyValue('--fg') || '#222', grid = css.getPropertyValue('--grid') || '#ddd';
    const tr = opt.log ? (v) => Math.log10(Math.max(v, 1e-9)) : (v) => v;

    ctx.clearRect(0, 0, w, h);
    ctx.font = '11px sans-serif';
    let lo = Infinity, hi = -Infinity;
    const see = (v) => { if (v === null || !isFinite(v) || (opt.log && v <= 0)) return; lo = Math.min(lo, tr(v)); hi = Math.max(hi, tr(v)); };
    for (const s of opt.series) for (const p of s.pts) if (p[0] >= t0) see(p[1]);
    for (const m of opt.markers || []) if (m.t >= t0) see(m.v);
    if (lo === Infinity) {
      ctx.fillStyle = fg;
      ctx.textAlign = 'center';
      ctx.fillText('waiting for data', w / 2, h / 2);
      return;
    }
    if (hi - lo < 1e-9) { const pad = opt.log ? 0.5 : Math.abs(hi) * 0.01 || 1; lo -= pad; hi += pad; }
    const padv = (hi - lo) * 0.06;
    lo -= padv; hi += padv;
    const X = (t) => L + ((t - t0) / (now - t0)) * pw;
    const Y = (v) => T + (1 - (tr(v) - lo) / (hi - lo)) * ph;

    // value axis
    ctx.strokeStyle = grid;
    ctx.fillStyle = fg;
    ctx.lineWidth = 1;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    const yt = opt.log
      ? ticks(Math.floor(lo), Math.ceil(hi), 6).filter((e) => Number.isInteger(e)).map((e) => Math.pow(10, e))
      : ticks(lo, hi, 5);
    for (const v of yt) {
      const y = Y(v);
      if (y < T - 1 || y > T + ph + 1) continue;
      ctx.beginPath(); ctx.moveTo(L, y); ctx.lineTo(L + pw, y); ctx.stroke();
      ctx.fillText(fmt(v), L - 4, y);
    }
    // time axis
    const step = TIME_STEPS.find((s) => (now - t0) / s <= 6) || 3600;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    for (let t = Math.ceil(t0 / step) * step; t <= now; t += step) {
      const x = X(t);
      ctx.beginPath(); ctx.moveTo(x, T); ctx.lineTo(x, T + ph); ctx.stroke();
      ctx.fillText(clock(t), x, T + ph + 4);
    }
    ctx.strokeStyle = fg;
    ctx.strokeRect(L, T, pw, ph);

    ctx.save();
    ctx.beginPath(); ctx.rect(L, T, pw, ph); ctx.clip();
    for (const s of opt.series) {
      ctx.strokeStyle = s.color;
      ctx.lineWidth = s.width || 1.5;
      ctx.setLineDash(s.dash || []);
      ctx.beginPath();
      let started = false, py = 0;
      for (const [t, v] of s.pts) {
        if (t < t0 - 60 || v === null || !isFinite(v) || (opt.log && v <= 0)) { started = false; continue; }
        const x = X(t), y = Y(v);
        if (!started) ctx.moveTo(x, y);
        else if (s.step) { ctx.lineTo(x, py); ctx.lineTo(x, y); }
        else ctx.lineTo(x, y);
        started = true; py = y;
      }
      ctx.stroke();
    }
    ctx.setLineDash([]);
    for (const m of opt.markers || []) {
      if (m.t < t0) continue;
      const x = X(m.t), y = Y(m.v), d = m.up ? 1 : -1;
      ctx.beginPath();
      ctx.moveTo(x, y - 6 * d); ctx.lineTo(x - 5, y + 4 * d); ctx.lineTo(x + 5, y + 4 * d); ctx.closePath();
      ctx.strokeStyle = m.color; ctx.fillStyle = m.color; ctx.lineWidth = 1;
      if (m.filled) ctx.fill(); else ctx.stroke();
    }
    ctx.restore();

    // legend
    let x = L + 4;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    for (const s of opt.series) {
      if (s.noLegend) continue;
      ctx.fillStyle = s.color;
      ctx.fillRect(x, 6, 10, 8);
      ctx.fillStyle = fg;
      ctx.fillText(s.name, x + 13, 10);
      x += 20 + ctx.measureText(s.name).width;
    }
  }

  return { draw };
})();
