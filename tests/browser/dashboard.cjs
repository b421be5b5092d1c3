// SPDX-License-Identifier: MIT
// The dashboard as a person sees it, in headless Chromium (Debian's), against
// a t2t-monitor that a test writer feeds:
//   - the positions table has a row per symbol with numbers in it;
//   - every chart's canvas has been drawn on (pixels that are not background
//     in its plot area), the price charts carry order/fill markers;
//   - the latency table is filled and the header says the writer runs;
//   - no console error, no failed request, no request leaving localhost;
// and keeps a screenshot.  Usage: node dashboard.cjs URL SCREENSHOT.png SYMBOLS
// (DASH_POLLS, DASH_POLL_MS: how long the page runs first; longer for the
// README's picture).
'use strict';
const { chromium } = require('playwright-core');

const [url, shot, symbolList] = process.argv.slice(2);
const symbols = (symbolList || 'AAPL,MSFT,NVDA').split(',');
const polls = +(process.env.DASH_POLLS || 12), pollMs = +(process.env.DASH_POLL_MS || 400);
const fails = [];
const check = (ok, what) => { console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}`); if (!ok) fails.push(what); };

(async () => {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    // What works on this closed network (no background connections at all).
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: 30000,
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1500 } });
  const errors = [], outside = [], failed = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('requestfailed', (r) => failed.push(r.url()));
  page.on('request', (r) => { if (!/^(http:\/\/(127\.0\.0\.1|localhost)[:/]|data:)/.test(r.url())) outside.push(r.url()); });

  await page.goto(`${url}?poll=${pollMs}`, { waitUntil: 'load', timeout: 15000 });
  // Enough polls for rates and lines, and some events.
  await page.waitForFunction((n) => window.t2t && window.t2t.polls >= n, polls,
    { timeout: 30000 + 2 * polls * pollMs });

  const rows = await page.$$eval('#positions tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  check(rows.length === symbols.length, `positions table: ${rows.length} rows for ${symbols.length} symbols`);
  check(rows.every((r, i) => r[0] === symbols[i]), `positions table: the symbols in order (${rows.map((r) => r[0])})`);
  check(rows.every((r) => /^-?\d+$/.test(r[1]) && /^\d+\.\d\d$/.test(r[6]) && /\$\d/.test(r[8])),
    'positions table: position, last print and PnL filled');
  check(rows.some((r) => +r[10] > 0), 'positions table: orders counted');
  const state = await page.evaluate(() => window.t2t.last);
  check(state && state.ok && rows.every((r, i) => +r[1] === state.symbols[i].position &&
    r[10] === String(state.symbols[i].orders)), 'positions table: what /api/state said');

  const status = await page.textContent('#status');
  check(status === 'running', `header: writer ${status}`);
  const lat = await page.$$eval('#latency tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  check(lat.length === 9 && lat.some((r) => +r[1] > 0 && /\d/.test(r[2])), `latency table: ${lat.length} stages with percentiles`);

  // A chart is drawn when its plot area holds coloured pixels: the series
  // are saturated colours, the frame, grid and text are greys.
  const canvases = await page.$$eval('canvas', (cs) => cs.map((c) => {
    const ctx = c.getContext('2d');
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    const dpr = window.devicePixelRatio || 1, x0 = Math.round(70 * dpr), y0 = Math.round(24 * dpr);
    let ink = 0, colour = 0;
    for (let y = y0; y < c.height - 24 * dpr; y += 2) {
      for (let x = x0; x < c.width - 10 * dpr; x += 2) {
        const i = (y * c.width + x) * 4;
        if (d[i + 3] < 128) continue;
        ink++;
        if (Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 60) colour++;
      }
    }
    return { id: c.id, ink, colour };
  }));
  check(canvases.length === 4 + symbols.length, `charts: ${canvases.length} canvases (4 + one per symbol)`);
  for (const c of canvases) check(c.colour > 30, `chart ${c.id} drawn (${c.colour} coloured samples of ${c.ink} inked)`);
  const events = state && state.events ? state.events.next : 0;
  check(events > 0, `order events reach the page (${events})`);

  check(errors.length === 0, `no console errors${errors.length ? ': ' + errors.join(' | ') : ''}`);
  check(failed.length === 0, `no failed requests${failed.length ? ': ' + failed.join(' ') : ''}`);
  check(outside.length === 0, `nothing fetched from outside localhost${outside.length ? ': ' + outside.join(' ') : ''}`);

  await page.screenshot({ path: shot, fullPage: true });
  console.log(`  screenshot: ${shot}`);
  await browser.close();
  process.exit(fails.length ? 1 : 0);
})().catch((e) => { console.error('  FAIL', e); process.exit(1); });
