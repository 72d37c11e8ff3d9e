import { useEffect, useState } from 'preact/hooks';
import { api, BarChart, ColumnChart, ErrorLine, Field, FilterForm, PageHeader, query, Select, type Resource } from '../../../console/src/kit';

type Sales = Resource<'/analytics/sales'>;
type Customers = Resource<'/analytics/customers'>;

/** Revenue and orders over time, top products and monthly cohorts, for a period of the store's dates. */
export function AnalyticsPage() {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [groupBy, setGroupBy] = useState('day');
  const [sales, setSales] = useState<Sales | null>(null);
  const [customers, setCustomers] = useState<Customers | null>(null);
  const [error, setError] = useState<any>(null);
  const load = async () => {
    const period = { from: from || undefined, to: to || undefined };
    const [s, c] = await Promise.all([
      api('GET', `/analytics/sales${query({ ...period, group_by: groupBy })}`),
      api('GET', `/analytics/customers${query(period)}`),
    ]);
    if (!s.ok) return setError(s.error);
    setError(c.ok ? null : c.error);
    setSales(s.body);
    if (c.ok) setCustomers(c.body);
  };
  useEffect(() => void load(), []);
  const money = (n: number) => `${n.toFixed(2)} ${sales?.currency ?? ''}`;
  return (
    <>
      <PageHeader title="Analytics" />
      <FilterForm search={false} submit="Update" onSubmit={load}>
        <Field label="From" type="date" value={from} onValue={setFrom} />
        <Field label="To" type="date" value={to} onValue={setTo} />
        <Select
          label="Group by"
          value={groupBy}
          onValue={setGroupBy}
          options={[
            ['day', 'Day'],
            ['week', 'Week'],
            ['month', 'Month'],
          ]}
        />
      </FilterForm>
      <ErrorLine error={error} />
      {sales && (
        <>
          <dl class="facts totals">
            <dt>Net sales</dt>
            <dd data-testid="net-sales">{money(sales.net_sales)}</dd>
            <dt>Total sales</dt>
            <dd>{money(sales.total_sales)}</dd>
            <dt>Orders</dt>
            <dd>{sales.orders}</dd>
            <dt>Average order</dt>
            <dd>{money(sales.average_order_value)}</dd>
            <dt>Discounts, refunds</dt>
            <dd>
              {money(sales.discounts)}, {money(sales.refunds)}
            </dd>
            <dt>Period</dt>
            <dd>
              {sales.from} to {sales.to}
            </dd>
          </dl>
          <div class="charts">
            <ColumnChart title="Net sales" unit={sales.currency} rows={sales.series.map((b) => [b.bucket, b.net_sales])} />
            <ColumnChart title="Orders" unit="orders" rows={sales.series.map((b) => [b.bucket, b.orders])} />
            <BarChart title="Top products (units)" unit="units" rows={sales.top_products.map((p) => [p.name, p.units])} />
          </div>
        </>
      )}
      {customers && (
        <section aria-label="Cohorts">
          <h2>Customers</h2>
          <p>
            {customers.new_customers} new, {customers.returning_customers} returning; average lifetime value {money(customers.average_lifetime_value)}
            .
          </p>
          <table>
            <caption>Cohorts by month of first order: customers, and how many ordered again each later month</caption>
            <thead>
              <tr>
                <th scope="col">Cohort</th>
                <th scope="col">Customers</th>
                <th scope="col">Came back (month +1, +2, ...)</th>
              </tr>
            </thead>
            <tbody>
              {customers.cohorts.map((c) => (
                <tr key={c.cohort}>
                  <td>{c.cohort}</td>
                  <td>{c.customers}</td>
                  <td>{c.retained.join(', ') || '-'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}
