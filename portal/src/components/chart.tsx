/**
 * A bar chart as plain SVG (no chart library): bars scaled to the largest value, an optional second
 * value drawn over each bar (errors over calls), and a text alternative for screen readers.
 */
import type { JSX } from 'preact';

export interface Bar {
  label: string;
  value: number;
  extra?: number;
}

const WIDTH = 600;
const HEIGHT = 160;
const AXIS = 18;

export function BarChart({ title, series, extraLabel, unit = '' }: { title: string; series: Bar[]; extraLabel?: string; unit?: string }): JSX.Element {
  const max = Math.max(1, ...series.map((bar) => bar.value));
  const step = WIDTH / Math.max(1, series.length);
  const scale = (HEIGHT - AXIS) / max;
  const total = series.reduce((sum, bar) => sum + bar.value, 0);
  const summary = `${title}: ${series.length} × 1 min, max ${max}${unit}${extraLabel ? `, ${extraLabel} ${series.reduce((sum, bar) => sum + (bar.extra ?? 0), 0)}` : ''}, Σ ${total}`;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary} preserveAspectRatio="none">
        <line x1={0} y1={HEIGHT - AXIS} x2={WIDTH} y2={HEIGHT - AXIS} class="axis" />
        {series.map((bar, index) => {
          const height = bar.value * scale;
          const extra = (bar.extra ?? 0) * scale;
          return (
            <g key={bar.label}>
              <rect x={index * step + 1} y={HEIGHT - AXIS - height} width={Math.max(1, step - 2)} height={height} class="bar">
                <title>{`${bar.label}: ${bar.value}${unit}${bar.extra ? ` (${extraLabel} ${bar.extra})` : ''}`}</title>
              </rect>
              {extra > 0 && <rect x={index * step + 1} y={HEIGHT - AXIS - extra} width={Math.max(1, step - 2)} height={extra} class="bar-extra" />}
              {index % 5 === 0 && (
                <text x={index * step + 1} y={HEIGHT - 4} class="tick">
                  {bar.label}
                </text>
              )}
            </g>
          );
        })}
        <text x={4} y={12} class="tick max">
          {`${max}${unit}`}
        </text>
      </svg>
    </figure>
  );
}
