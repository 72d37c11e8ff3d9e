import { useEffect, useState } from 'preact/hooks';
import { request, type ApiError } from '../api';
import type { AnswerOf, BodyOf, PathOf, RouteOf } from '../api-paths';
import { useAction } from '../ui';

/**
 * The editor pattern: load one resource, keep its fields in a form, save with POST (new) or PATCH
 * (existing), show the API's error. A page keeps only its fields, its request body and where it
 * goes after saving.
 */

/** One resource by its path (null: nothing to load): the body (typed by the route), or the error. */
export function useResource<P extends PathOf<'GET'>, T = AnswerOf<'GET', RouteOf<P>>>(path: P | null) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | string | null>(null);
  const reload = async () => {
    if (!path) return;
    const r = await request('GET', path);
    if (r.ok) (setData(r.body), setError(null));
    else setError(r.error);
  };
  useEffect(() => void reload(), [path]);
  return { data, setData, error, setError, reload };
}

/** A collection route whose items are at `<path>/<id>`. */
type Collection = PathOf<'POST'> & string;
/** The item route of a collection, e.g. `/customers/{id}` of `/customers`. */
type ItemOf<C extends string> = RouteOf<`${C}/${string}`>;

export interface EditorOptions<C extends Collection, T, F> {
  /** The collection, e.g. `/customers`; the resource is `<path>/<id>`. */
  path: C;
  /** Undefined for a new one. */
  id?: string;
  /** The form of a new one. */
  blank: F;
  /** The form of a loaded (or just saved) one. */
  formOf: (saved: T) => F;
}

/** The resource is typed by the route: what GET `<path>/<id>` answers; `save` takes the body of a POST or a PATCH. */
export function useEditor<C extends Collection, F extends object, T = AnswerOf<'GET', ItemOf<C>>>({
  path,
  id,
  blank,
  formOf,
}: EditorOptions<C, T, F>) {
  const act = useAction();
  const [saved, setSaved] = useState<T | null>(null);
  const [form, setForm] = useState<F>(blank);
  const url = id ? `${path}/${encodeURIComponent(id)}` : path;
  const show = (resource: T) => {
    setSaved(resource);
    setForm(formOf(resource));
  };
  useEffect(() => {
    if (id) request('GET', url).then((r) => (r.ok ? show(r.body) : act.setError(r.error)));
  }, [url]);
  return {
    ...act,
    saved,
    form,
    setForm,
    show,
    /** Whether the form holds what it should: a new one at once, an existing one once loaded. */
    loaded: !id || saved !== null,
    /** A setter for one field, for `onValue`. */
    set:
      <K extends keyof F>(key: K) =>
      (value: F[K]) =>
        setForm((f) => ({ ...f, [key]: value })),
    /** POST (new) or PATCH (existing) `body`: the saved resource (also shown), or undefined with the error shown. */
    save: (body: BodyOf<'POST', RouteOf<C>> | BodyOf<'PATCH', ItemOf<C>>) =>
      act.run(async (): Promise<T | undefined> => {
        const r = await request(id ? 'PATCH' : 'POST', url, body);
        if (!r.ok) return void act.setError(r.error);
        show(r.body);
        return r.body;
      }),
  };
}

/** Adds or removes one item of a list of picked values (checkbox groups). */
export const toggled = <T,>(list: T[], item: T): T[] => (list.includes(item) ? list.filter((x) => x !== item) : [...list, item]);
