/**
 * Plain SVG bar charts, drawn by the page (no chart library): a chart is an image with a label
 * saying what it shows, followed by the same numbers as a table for screen readers and for anyone
 * who wants the figures. Fills are attributes, not inline styles, so the console CSP allows them.
 */

export type Row = [label: string, value: number];

// Narrow enough that the text stays legible when a phone scales the chart down.
const W = 360;
const BAR = '#0b57d0';
const INK = '#1b1f24';

/** One column per row (scans by day): labels under the first, middle and last columns. */
export function ColumnChart({ title, rows, unit }: { title: string; rows: Row[]; unit: string }) {
  const h = 140;
  const top = Math.max(1, ...rows.map((r) => r[1]));
  const step = W / Math.max(1, rows.length);
  const labelled = new Set([0, Math.floor((rows.length - 1) / 2), rows.length - 1]);
  return (
    <Figure title={title} rows={rows} unit={unit}>
      <svg class="chart" viewBox={`0 0 ${W} ${h + 24}`} role="img" aria-label={`${title}: ${summary(rows, unit)}`}>
        <line x1="0" y1={h} x2={W} y2={h} stroke="#c9d0d8" />
        {rows.map(([label, value], i) => {
          const bh = (value / top) * (h - 16);
          return (
            <g key={label}>
              <rect x={i * step + step * 0.15} y={h - bh} width={step * 0.7} height={bh} fill={BAR}>
                <title>{`${label}: ${value} ${unit}`}</title>
              </rect>
              {labelled.has(i) && (
                <text
                  x={i === 0 ? 0 : i === rows.length - 1 ? W : i * step + step / 2}
                  y={h + 16}
                  text-anchor={i === 0 ? 'start' : i === rows.length - 1 ? 'end' : 'middle'}
                  font-size="12"
                  fill={INK}
                >
                  {label.slice(5)}
                </text>
              )}
            </g>
          );
        })}
        <text x="2" y="12" font-size="12" fill={INK}>
          {top}
        </text>
      </svg>
    </Figure>
  );
}

/** One horizontal bar per row (by device, by city), largest first. */
export function BarChart({ title, rows, unit }: { title: string; rows: Row[]; unit: string }) {
  const sorted = [...rows].sort((a, b) => b[1] - a[1]);
  const top = Math.max(1, ...sorted.map((r) => r[1]));
  const line = 26;
  const labelW = 110;
  return (
    <Figure title={title} rows={sorted} unit={unit}>
      {sorted.length === 0 ? (
        <p class="empty">No scans in this range.</p>
      ) : (
        <svg class="chart" viewBox={`0 0 ${W} ${sorted.length * line + 4}`} role="img" aria-label={`${title}: ${summary(sorted, unit)}`}>
          {sorted.map(([label, value], i) => (
            <g key={label}>
              <text x="0" y={i * line + 17} font-size="13" fill={INK}>
                {label.length > 14 ? `${label.slice(0, 13)}…` : label}
              </text>
              <rect x={labelW} y={i * line + 4} width={Math.max(2, (value / top) * (W - labelW - 40))} height={line - 8} fill={BAR} />
              <text x={labelW + (value / top) * (W - labelW - 40) + 6} y={i * line + 17} font-size="13" fill={INK}>
                {value}
              </text>
            </g>
          ))}
        </svg>
      )}
    </Figure>
  );
}

const summary = (rows: Row[], unit: string) => (rows.length ? rows.map(([l, v]) => `${l} ${v}`).join(', ') + ` (${unit})` : `no ${unit}`);

function Figure({ title, rows, unit, children }: { title: string; rows: Row[]; unit: string; children: any }) {
  return (
    <figure class="chart-box">
      <figcaption>{title}</figcaption>
      {children}
      <details>
        <summary>{title} as a table</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">{title.replace(/^Scans by /, '')}</th>
              <th scope="col" class="num">
                {unit}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([l, v]) => (
              <tr key={l}>
                <td>{l}</td>
                <td class="num">{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
