import { useState } from 'preact/hooks';
import {
  api,
  ErrorLine,
  Field,
  Notice,
  PageHeader,
  ResourceList,
  Select,
  useAction,
  useConsole,
  useCursorList,
  useResource,
  when,
  type Body,
  type Item,
} from '../../../console/src/kit';

type Rules = Body<'POST', '/segments'>['rules'];
type Condition = Rules['conditions'][number];
type Operator = Condition['operator'];

/** The fields a rule reads, and how its value is typed in the form. */
const FIELDS: [string, string, 'text' | 'number' | 'bool' | 'date'][] = [
  ['email', 'Email', 'text'],
  ['first_name', 'First name', 'text'],
  ['last_name', 'Last name', 'text'],
  ['tags', 'Tags', 'text'],
  ['accepts_marketing', 'Accepts marketing', 'bool'],
  ['created_at', 'Customer since', 'date'],
  ['total_spent', 'Total spent', 'number'],
  ['orders_count', 'Orders', 'number'],
  ['average_order_value', 'Average order value', 'number'],
  ['last_order_at', 'Last order', 'date'],
  ['metadata', 'Metadata key…', 'text'],
];
const ORDER_FIELDS = ['total_spent', 'orders_count', 'average_order_value', 'last_order_at'];
const OPERATORS: [Operator, string][] = [
  ['eq', 'is'],
  ['neq', 'is not'],
  ['gt', 'more than'],
  ['gte', 'at least'],
  ['lt', 'less than'],
  ['lte', 'at most'],
  ['contains', 'contains'],
  ['in', 'is one of'],
  ['exists', 'exists'],
];

/** One rule being edited in the builder: form state, not an API shape (what is sent is Rules). */
type RuleRow = {
  field: string;
  key: string;
  operator: Operator;
  value: string;
  days: string;
};
const blankRow = (): RuleRow => ({ field: 'total_spent', key: '', operator: 'gte', value: '', days: '' });

/** A form row as the API's condition: numbers, booleans and lists typed from the field. */
function conditionOf(r: RuleRow): Condition {
  const kind = FIELDS.find(([f]) => f === r.field)?.[2] ?? 'text';
  const one = (v: string): unknown => (kind === 'number' ? Number(v) : kind === 'bool' ? v.trim() === 'true' : v.trim());
  const value =
    r.operator === 'exists'
      ? r.value.trim() !== 'false'
      : r.operator === 'in'
        ? r.value
            .split(',')
            .map((v) => v.trim())
            .filter(Boolean)
            .map(one)
        : one(r.value);
  return {
    field: r.field === 'metadata' ? `metadata.${r.key.trim()}` : r.field,
    operator: r.operator,
    value,
    ...(r.days.trim() && ORDER_FIELDS.includes(r.field) ? { within_days: Number(r.days) } : {}),
  };
}

const describe = (c: Condition) =>
  `${c.field} ${OPERATORS.find(([o]) => o === c.operator)?.[1] ?? c.operator} ${JSON.stringify(c.value)}${c.within_days ? ` (last ${c.within_days} days)` : ''}`;

/** Segments: the list, a rule builder for a new one, and one segment's members now (#/segments/<id>). */
export function SegmentsPage() {
  const c = useConsole();
  return c.arg ? <SegmentView id={c.arg} /> : <SegmentList />;
}

function SegmentList() {
  const c = useConsole();
  const list = useCursorList('/segments');
  const [name, setName] = useState('');
  const [match, setMatch] = useState<Rules['match']>('all');
  const [rows, setRows] = useState<RuleRow[]>([blankRow()]);
  const [created, setCreated] = useState('');
  const act = useAction();
  const setRow = (i: number, k: keyof RuleRow) => (v: string) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, [k]: v } : r)));

  const create = (e: Event) => {
    e.preventDefault();
    act.run(async () => {
      const r = await api('POST', '/segments', { name: name.trim(), rules: { match, conditions: rows.map(conditionOf) } });
      if (!r.ok) return act.setError(r.error);
      setCreated(r.body.name);
      setName('');
      setRows([blankRow()]);
      await list.reload();
    });
  };

  return (
    <>
      <PageHeader title="Segments" />
      {c.may('segments.create_segment') && (
        <form class="card" aria-label="New segment" onSubmit={create}>
          <h2>New segment</h2>
          <Field label="Name" value={name} onValue={setName} required maxLength={200} />
          <Select<Rules['match']>
            label="Match"
            value={match}
            onValue={setMatch}
            options={[
              ['all', 'All conditions'],
              ['any', 'Any condition'],
            ]}
          />
          {rows.map((r, i) => (
            <fieldset key={i} class="condition">
              <legend>Condition {i + 1}</legend>
              <Select
                label={`Field ${i + 1}`}
                value={r.field}
                onValue={setRow(i, 'field')}
                options={FIELDS.map(([f, t]) => [f, t] as [string, string])}
              />
              {r.field === 'metadata' && <Field label={`Metadata key ${i + 1}`} value={r.key} onValue={setRow(i, 'key')} required maxLength={40} />}
              <Select<Operator> label={`Operator ${i + 1}`} value={r.operator} onValue={setRow(i, 'operator')} options={OPERATORS} />
              <Field
                label={`Value ${i + 1}`}
                value={r.value}
                onValue={setRow(i, 'value')}
                hint={r.operator === 'in' ? 'Separate values with commas.' : r.operator === 'exists' ? 'true or false.' : undefined}
              />
              {ORDER_FIELDS.includes(r.field) && (
                <Field
                  label={`Within days ${i + 1}`}
                  type="number"
                  min="1"
                  value={r.days}
                  onValue={setRow(i, 'days')}
                  hint="Only orders of the last N days."
                />
              )}
              {rows.length > 1 && (
                <button type="button" onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))}>
                  Remove condition {i + 1}
                </button>
              )}
            </fieldset>
          ))}
          <button type="button" onClick={() => setRows((rs) => [...rs, blankRow()])}>
            Add condition
          </button>
          <button class="primary" type="submit" disabled={act.busy}>
            Create segment
          </button>
        </form>
      )}
      {created && <Notice>Segment {created} created.</Notice>}
      <ErrorLine error={act.error} />
      <ResourceList
        list={list}
        label="Segments"
        empty="No segments yet."
        columns={[
          { title: 'Name', cell: (s: Item<'/segments'>) => <a href={`#/segments/${s.id}`}>{s.name}</a> },
          { title: 'Rules', cell: (s) => `${s.rules.match === 'all' ? 'All of' : 'Any of'}: ${s.rules.conditions.map(describe).join('; ')}` },
          { title: 'Created', cell: (s) => when(s.created_at) },
        ]}
      />
    </>
  );
}

function SegmentView({ id }: { id: string }) {
  const segment = useResource(`/segments/${id}`);
  const members = useCursorList(`/segments/${id}/members` as '/segments/{id}/members', {}, { watch: [id] });
  const s = segment.data;
  return (
    <>
      <PageHeader title={s ? s.name : 'Segment'}>
        <a class="button" href="#/segments">
          All segments
        </a>
      </PageHeader>
      <ErrorLine error={segment.error} />
      {s && (
        <section class="card" aria-label="Rules">
          <h2>Rules</h2>
          <p>{s.rules.match === 'all' ? 'Customers matching all of:' : 'Customers matching any of:'}</p>
          <ul>
            {s.rules.conditions.map((x, i) => (
              <li key={i}>{describe(x)}</li>
            ))}
          </ul>
        </section>
      )}
      <h2>Members now</h2>
      <ResourceList
        list={members}
        label="Members"
        empty="No customer matches these rules now."
        columns={[
          { title: 'Email', cell: (m) => m.email ?? '' },
          { title: 'Name', cell: (m) => [m.first_name, m.last_name].filter(Boolean).join(' ') },
          { title: 'Tags', cell: (m) => m.tags.join(', ') },
          { title: 'Marketing', cell: (m) => (m.accepts_marketing ? 'yes' : 'no') },
          { title: 'Since', cell: (m) => when(m.created_at) },
        ]}
      />
    </>
  );
}
