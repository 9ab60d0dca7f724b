/**
 * Plain SVG charts of the lock benchmarks, written by hand (no dependency): a grid of panels,
 * one per (processes, nodes, variant), each a line chart over the parameter (categorical x:
 * the parameter values in order, so doubling waits are evenly spaced) or a bar chart over
 * categories, one colour per lock, with the 95 % CI as error bars, axes with ticks, and one
 * legend for the whole figure.
 */
import fs from 'node:fs';
import { type Bench, BENCH_TITLE, type Metric, METRIC_LABEL, type Row } from './common.js';

/** The metric each benchmark's figure shows. */
export const PRIMARY: Record<Bench, Metric> = {
  upb: 'latency_us', ecsb: 'iter_us', ccwb: 'iter_us', wbab: 'iter_us', latency: 'latency_us', workload: 'mops',
  warb: 'mops', dht: 'mops', queue: 'mops',
};
/** Benchmarks whose parameter is a sweep (line charts); the others are bar charts. */
const SWEEP = new Set<Bench>(['ccwb', 'wbab', 'workload', 'dht']);

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf',
  '#393b79', '#637939', '#8c6d31', '#843c39', '#7b4173'];

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const num = (s: string | undefined): number => (s === undefined || s === '' ? NaN : Number(s));

interface Point { x: string; y: number; lo: number; hi: number }
interface Series { name: string; points: Point[] }
interface Panel { title: string; xs: string[]; series: Series[] }

function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function tickLabel(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? String(Number(v.toFixed(2))) : String(Number(v.toPrecision(2)));
}

const PANEL_W = 430;
const H = 290;
const M = { left: 58, right: 12, top: 30, bottom: 48 };

function drawPanel(p: Panel, ox: number, oy: number, kind: 'line' | 'bar', colorOf: (s: string) => string, yLabel: string, xLabel: string,
                   W: number): string {
  const out: string[] = [];
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const x0 = ox + M.left;
  const y0 = oy + M.top + ph;
  const ymax = niceMax(Math.max(0, ...p.series.flatMap((s) => s.points.map((q) => (Number.isFinite(q.hi) ? q.hi : q.y)))) * 1.05);
  const yOf = (v: number): number => y0 - (v / ymax) * ph;
  out.push(`<text x="${ox + W / 2}" y="${oy + 18}" text-anchor="middle" font-size="12" font-weight="bold">${esc(p.title)}</text>`);
  // Axes and grid.
  out.push(`<line x1="${x0}" y1="${y0}" x2="${x0 + pw}" y2="${y0}" stroke="black"/>`);
  out.push(`<line x1="${x0}" y1="${y0}" x2="${x0}" y2="${y0 - ph}" stroke="black"/>`);
  for (let i = 0; i <= 5; i++) {
    const v = (ymax * i) / 5;
    const y = yOf(v);
    out.push(`<line x1="${x0 - 4}" y1="${y}" x2="${x0 + pw}" y2="${y}" stroke="${i === 0 ? 'black' : '#ddd'}"/>`);
    out.push(`<text x="${x0 - 6}" y="${y + 4}" text-anchor="end" font-size="10">${tickLabel(v)}</text>`);
  }
  out.push(`<text x="${ox + 12}" y="${oy + M.top + ph / 2}" font-size="10" text-anchor="middle" transform="rotate(-90 ${ox + 12} ${oy + M.top + ph / 2})">${esc(yLabel)}</text>`);
  out.push(`<text x="${x0 + pw / 2}" y="${y0 + 38}" font-size="10" text-anchor="middle">${esc(xLabel)}</text>`);
  const n = Math.max(1, p.xs.length);
  const slot = pw / n;
  const xc = (i: number): number => x0 + slot * (i + 0.5);
  p.xs.forEach((x, i) => out.push(`<text x="${xc(i)}" y="${y0 + 16}" text-anchor="middle" font-size="10">${esc(x)}</text>`));
  const errBar = (x: number, q: Point, color: string): void => {
    if (!Number.isFinite(q.lo) || !Number.isFinite(q.hi)) return;
    out.push(`<line x1="${x}" y1="${yOf(q.lo)}" x2="${x}" y2="${yOf(q.hi)}" stroke="${color}"/>`);
    out.push(`<line x1="${x - 3}" y1="${yOf(q.lo)}" x2="${x + 3}" y2="${yOf(q.lo)}" stroke="${color}"/>`);
    out.push(`<line x1="${x - 3}" y1="${yOf(q.hi)}" x2="${x + 3}" y2="${yOf(q.hi)}" stroke="${color}"/>`);
  };
  if (kind === 'line') {
    for (const s of p.series) {
      const color = colorOf(s.name);
      const pts = s.points.map((q) => ({ q, x: xc(p.xs.indexOf(q.x)) })).sort((a, b) => a.x - b.x);
      if (pts.length > 1) out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${pts.map(({ q, x }) => `${x.toFixed(1)},${yOf(q.y).toFixed(1)}`).join(' ')}"/>`);
      for (const { q, x } of pts) {
        out.push(`<circle cx="${x.toFixed(1)}" cy="${yOf(q.y).toFixed(1)}" r="2.5" fill="${color}"><title>${esc(`${s.name} ${q.x}: ${q.y}`)}</title></circle>`);
        errBar(x, q, color);
      }
    }
  } else {
    const k = Math.max(1, p.series.length);
    const bw = (slot * 0.8) / k;
    p.series.forEach((s, j) => {
      const color = colorOf(s.name);
      for (const q of s.points) {
        const i = p.xs.indexOf(q.x);
        const x = x0 + slot * i + slot * 0.1 + bw * j;
        const y = yOf(q.y);
        out.push(`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${bw.toFixed(1)}" height="${(y0 - y).toFixed(1)}" fill="${color}"><title>${esc(`${s.name} ${q.x}: ${q.y}`)}</title></rect>`);
        errBar(x + bw / 2, q, 'black');
      }
    });
  }
  if (p.series.length === 0) out.push(`<text x="${x0 + pw / 2}" y="${y0 - ph / 2}" text-anchor="middle" font-size="11" fill="#888">no data</text>`);
  return out.join('\n');
}

/** Orders parameter values: numerically when they all are numbers, else as met. */
function orderValues(vs: string[]): string[] {
  const u = [...new Set(vs)];
  return u.every((v) => v !== '' && Number.isFinite(Number(v))) ? u.sort((a, b) => Number(a) - Number(b)) : u;
}

/** The panels of a benchmark's figure from its CSV rows (status ok only). */
export function panelsOf(bench: Bench, rows: readonly Row[], metric: Metric): { panels: Panel[]; kind: 'line' | 'bar'; xLabel: string } {
  const ok = rows.filter((r) => r.status === 'ok' && Number.isFinite(num(r[metric])));
  const sweep = SWEEP.has(bench);
  const groups = new Map<string, Row[]>();
  for (const r of ok) {
    const g = sweep || bench === 'upb' ? `${r.processes} processes, ${r.nodes} node${r.nodes === '1' ? '' : 's'}${r.variant ? `, ${r.variant}` : ''}` : (r.variant || bench);
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g)!.push(r);
  }
  const xOf = (r: Row): string => (sweep || bench === 'upb' ? r.value : `${r.processes}p/${r.nodes}n`);
  const panels: Panel[] = [];
  for (const [title, rs] of groups) {
    const xs = sweep || bench === 'upb' ? orderValues(rs.map(xOf)) : [...new Set(rs.map(xOf))];
    const byLock = new Map<string, Point[]>();
    for (const r of rs) {
      if (!byLock.has(r.lock!)) byLock.set(r.lock!, []);
      byLock.get(r.lock!)!.push({ x: xOf(r), y: num(r[metric]), lo: num(r[`${metric}_lo`]), hi: num(r[`${metric}_hi`]) });
    }
    panels.push({ title, xs, series: [...byLock].map(([name, points]) => ({ name, points })) });
  }
  const param = ok.find((r) => r.param)?.param ?? '';
  const xLabel = sweep || bench === 'upb' ? param : 'processes / nodes';
  return { panels, kind: sweep ? 'line' : 'bar', xLabel };
}

export function renderSvg(title: string, panels: Panel[], kind: 'line' | 'bar', yLabel: string, xLabel: string): string {
  const names = [...new Set(panels.flatMap((p) => p.series.map((s) => s.name)))];
  const colorOf = (s: string): string => {
    const i = names.indexOf(s);
    return i < COLORS.length ? COLORS[i]! : `hsl(${Math.round((i * 137.5) % 360)}, 60%, ${i % 2 === 0 ? 35 : 55}%)`;
  };
  // Bar panels widen with their bars (about 9 px each), so many locks stay readable.
  const bars = kind === 'bar' ? Math.max(0, ...panels.map((p) => p.xs.length * p.series.length)) : 0;
  const W = Math.max(PANEL_W, Math.min(2400, Math.ceil(bars * 9 / 0.8) + M.left + M.right + 20));
  const cols = Math.max(1, Math.min(panels.length, Math.max(1, Math.floor(1300 / W))));
  const rowsN = Math.max(1, Math.ceil(panels.length / cols));
  const width = Math.max(cols * W, 920);
  const legendCols = Math.max(1, Math.floor(width / 230));
  const legendRows = Math.ceil(names.length / legendCols);
  const top = 34 + legendRows * 16;
  const height = top + rowsN * H;
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">${esc(title)}</text>`];
  names.forEach((n, i) => {
    const x = 20 + (i % legendCols) * 230;
    const y = 32 + Math.floor(i / legendCols) * 16;
    out.push(`<rect x="${x}" y="${y}" width="12" height="10" fill="${colorOf(n)}"/><text x="${x + 16}" y="${y + 9}" font-size="11">${esc(n)}</text>`);
  });
  if (panels.length === 0) out.push(`<text x="${width / 2}" y="${top + 40}" text-anchor="middle" font-size="12" fill="#888">no results</text>`);
  panels.forEach((p, i) => out.push(drawPanel(p, (i % cols) * W, top + Math.floor(i / cols) * H, kind, colorOf, yLabel, xLabel, W)));
  out.push('</svg>');
  return out.join('\n') + '\n';
}

export function plotBench(bench: Bench, rows: readonly Row[], file: string): void {
  const metric = PRIMARY[bench];
  const { panels, kind, xLabel } = panelsOf(bench, rows, metric);
  fs.writeFileSync(file, renderSvg(`${BENCH_TITLE[bench]}: median, order-statistic CI`, panels, kind, METRIC_LABEL[metric], xLabel));
}
