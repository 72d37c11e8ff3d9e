import { useEffect, useState } from 'preact/hooks';
import { api, ErrorLine, PageHeader, Select, type Resource } from '../../../console/src/kit';

type Stats = Resource<'/email/stats'>;
type Day = Stats & { day: string };

const SERIES = ['sent', 'delivered', 'opened'] as const;
const utcDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Email stats over time: the stats endpoint answers one range, so the page asks it once per UTC
 * day (and once for the totals) and draws the days as plain SVG, with the same numbers in a table.
 */
export function EmailStatsPage() {
  const [days, setDays] = useState('14');
  const [series, setSeries] = useState<Day[] | null>(null);
  const [total, setTotal] = useState<Stats | null>(null);
  const [error, setError] = useState<any>(null);
  useEffect(() => {
    const n = Number(days);
    const today = Date.now();
    const dates = Array.from({ length: n }, (_, i) => utcDay(new Date(today - (n - 1 - i) * 86400_000)));
    const one = (from: string, to: string) => api('GET', `/email/stats?date_from=${from}&date_to=${to}`);
    void Promise.all([one(dates[0], dates[n - 1]), ...dates.map((d) => one(d, d))]).then(([all, ...each]) => {
      const failed = [all, ...each].find((r) => !r.ok);
      if (failed && !failed.ok) return setError(failed.error);
      setError(null);
      setTotal(all.ok ? all.body : null);
      setSeries(each.map((r, i) => ({ ...(r.ok ? r.body : ({} as Stats)), day: dates[i] })));
    });
  }, [days]);
  return (
    <>
      <PageHeader title="Email stats" />
      <div class="filters">
        <Select
          label="Period"
          value={days}
          onValue={setDays}
          options={[
            ['7', 'Last 7 days'],
            ['14', 'Last 14 days'],
            ['30', 'Last 30 days'],
          ]}
        />
      </div>
      <ErrorLine error={error} />
      {total && (
        <dl class="facts">
          <dt>Sent</dt>
          <dd>{total.sent}</dd>
          <dt>Delivered</dt>
          <dd>{total.delivered}</dd>
          <dt>Open rate</dt>
          <dd>{total.open_rate} %</dd>
          <dt>Click rate</dt>
          <dd>{total.click_rate} %</dd>
          <dt>Bounce rate</dt>
          <dd>{total.bounce_rate} %</dd>
          <dt>Complaints, unsubscribes</dt>
          <dd>
            {total.complained}, {total.unsubscribed}
          </dd>
        </dl>
      )}
      {series && <Chart days={series} />}
      {series && <DayTable days={series} />}
    </>
  );
}

/** Lines of sent, delivered and opened per day; the table below carries the same numbers for screen readers. */
function Chart({ days }: { days: Day[] }) {
  // Sized so 12px labels stay readable from a 390 px phone to a desktop (the SVG scales).
  const W = 420;
  const H = 200;
  const pad = { l: 30, r: 10, t: 10, b: 26 };
  const max = Math.max(1, ...days.flatMap((d) => SERIES.map((s) => d[s])));
  const x = (i: number) => pad.l + (days.length === 1 ? 0 : (i * (W - pad.l - pad.r)) / (days.length - 1));
  const y = (v: number) => H - pad.b - (v * (H - pad.t - pad.b)) / max;
  const every = Math.ceil(days.length / 5);
  return (
    <figure class="chart-figure">
      <svg
        class="stats-chart"
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label="Sent, delivered and opened messages per day; the table below has the numbers."
      >
        <line class="axis" x1={pad.l} y1={H - pad.b} x2={W - pad.r} y2={H - pad.b} />
        <line class="axis" x1={pad.l} y1={pad.t} x2={pad.l} y2={H - pad.b} />
        <text x={pad.l - 4} y={pad.t + 8} text-anchor="end">
          {max}
        </text>
        <text x={pad.l - 4} y={H - pad.b} text-anchor="end">
          0
        </text>
        {days.map((d, i) =>
          i % every === 0 ? (
            <text key={d.day} x={x(i)} y={H - 8} text-anchor="middle">
              {d.day.slice(5)}
            </text>
          ) : null,
        )}
        {SERIES.map((s) => (
          <polyline key={s} class={s} points={days.map((d, i) => `${x(i)},${y(d[s])}`).join(' ')} />
        ))}
      </svg>
      <figcaption>
        <ul class="legend">
          {SERIES.map((s) => (
            <li key={s}>
              <span class={`key ${s}`} aria-hidden="true" />
              {s}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}

function DayTable({ days }: { days: Day[] }) {
  return (
    <details>
      <summary>Numbers per day</summary>
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Email stats per day">
        <table class="by-day">
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              {['Sent', 'Delivered', 'Opened', 'Clicked', 'Bounced'].map((h) => (
                <th scope="col" class="num" key={h}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.day}>
                <th scope="row">{d.day}</th>
                <td class="num">{d.sent}</td>
                <td class="num">{d.delivered}</td>
                <td class="num">{d.opened}</td>
                <td class="num">{d.clicked}</td>
                <td class="num">{d.bounced}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
