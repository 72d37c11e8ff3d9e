import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { query, request, type ApiError } from '../api';
import type { Item, ListRoute, QueryOf } from '../api-paths';
import { ErrorLine } from '../ui';

/**
 * The list pattern of the console: a cursor-paged list (`data`, `has_more`, `starting_after`), an
 * optional filter form, the table in a scrollable region named for screen readers, an empty
 * state, an error line and a "More" button. A page says only its path, filters and columns.
 */

/** A list route's filters; an empty string is no filter. */
type Params<R> = { [K in keyof QueryOf<R>]?: QueryOf<R>[K] | '' };

export interface CursorList<T> {
  /** null until the first answer. */
  items: T[] | null;
  more: boolean;
  error: ApiError | string | null;
  /** The first page again, with the filters as they are now. */
  reload: () => Promise<void>;
  /** The next page, appended. */
  loadMore: () => Promise<void>;
}

export interface CursorListOptions<T> {
  /** Page size (default 25). */
  limit?: number;
  /** The value `starting_after` takes from the last item (default its `id`). */
  cursorOf?: (item: T) => string;
  /** Values that reload the list when they change (filters applied as they are picked). */
  watch?: unknown[];
}

/** The list at `path` (a list route, typed from the API: `useCursorList('/products', { q })`). */
export function useCursorList<R extends ListRoute, T = Item<R>>(path: R, params: Params<R> = {}, options: CursorListOptions<T> = {}): CursorList<T> {
  const { limit = 25, cursorOf = (x: any) => x.id, watch = [] } = options;
  const [items, setItems] = useState<T[] | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<ApiError | string | null>(null);
  const latest = useRef(0);
  const load = async (after?: string) => {
    const mine = ++latest.current;
    const r = await request('GET', `${path}${query({ ...(params as Record<string, string>), limit, starting_after: after })}`);
    if (mine !== latest.current) return; // a newer search's answer wins
    if (!r.ok) return void setError(r.error);
    setError(null);
    setItems((old) => (after ? [...(old ?? []), ...r.body.data] : r.body.data));
    setMore(Boolean(r.body.has_more));
  };
  useEffect(() => void load(), [path, ...watch]);
  return {
    items,
    more,
    error,
    reload: () => load(),
    loadMore: () => load(items?.length ? cursorOf(items[items.length - 1]) : undefined),
  };
}

export interface Column<T> {
  title: string;
  cell: (row: T) => ComponentChildren;
  /** Right-aligned numbers (header and cells). */
  num?: boolean;
  /** The cells' class (mono, scopes, row-actions). */
  class?: string;
}

/** A table in a focusable region named `label`, so it scrolls sideways by keyboard on a phone. */
export function ResourceTable<T>({
  label,
  columns,
  rows,
  rowKey = (r: any) => r.id,
}: {
  label: string;
  columns: (Column<T> | false)[];
  rows: T[];
  rowKey?: (row: T) => string;
}) {
  const shown = columns.filter((c): c is Column<T> => c !== false);
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table>
        <thead>
          <tr>
            {shown.map((c) => (
              <th key={c.title} scope="col" class={c.num ? 'num' : undefined}>
                {c.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={rowKey(r)}>
              {shown.map((c) => (
                <td key={c.title} class={c.num ? 'num' : c.class}>
                  {c.cell(r)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A list's error line, empty state ("No customers."), table and "More" button. */
export function ResourceList<T>({
  list,
  label,
  empty,
  columns,
  rowKey,
}: {
  list: CursorList<T>;
  label: string;
  empty: string;
  columns: (Column<T> | false)[];
  rowKey?: (row: T) => string;
}) {
  return (
    <>
      <ErrorLine error={list.error} />
      {list.items && list.items.length === 0 && <p class="empty">{empty}</p>}
      {list.items && list.items.length > 0 && <ResourceTable label={label} columns={columns} rows={list.items} rowKey={rowKey} />}
      {list.more && (
        <div class="pager">
          <button onClick={() => void list.loadMore()}>More</button>
        </div>
      )}
    </>
  );
}

/** The filter row above a list: its fields, then the submit button (`role="search"` unless `search={false}`). */
export function FilterForm({
  onSubmit,
  submit = 'Filter',
  search = true,
  children,
}: {
  onSubmit: () => void;
  submit?: string;
  search?: boolean;
  children: ComponentChildren;
}) {
  return (
    <form
      class="filters"
      role={search ? 'search' : undefined}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
      <button type="submit">{submit}</button>
    </form>
  );
}

/** A status word in its colour (`s-<tone>` in app.css; the tone defaults to the status itself). */
export const Status = ({ status, tone = status }: { status: string; tone?: string }) => <span class={`status s-${tone}`}>{status}</span>;
