import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from './api';

/**
 * Small building blocks every page uses, so pages stay short and alike: a labelled field, an
 * error line read out by screen readers, a JSON block, a relative time. Text is always rendered
 * as text (Preact escapes it); nothing here sets HTML.
 */

let ids = 0;
const useId = () => useRef(`f${++ids}`).current;

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'onInput' | 'value' | 'label'> & {
  label: string;
  value: string;
  onValue: (v: string) => void;
  hint?: string;
};

export function Field({ label, value, onValue, hint, ...rest }: InputProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value}
        onInput={(e) => onValue((e.target as HTMLInputElement).value)}
        aria-describedby={hint ? `${id}-hint` : undefined}
        {...rest}
      />
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

export function TextArea({
  label,
  value,
  onValue,
  rows = 3,
  ...rest
}: {
  label: string;
  value: string;
  onValue: (v: string) => void;
  rows?: number;
  required?: boolean;
  class?: string;
  spellcheck?: boolean;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} rows={rows} value={value} onInput={(e) => onValue((e.target as HTMLTextAreaElement).value)} {...rest} />
    </div>
  );
}

/** A labelled choice among `options` (a value, or `[value, text]`); typed by its values, so an API enum's list checks. */
export function Select<T extends string>({
  label,
  value,
  onValue,
  options,
}: {
  label: string;
  value: T;
  onValue: (v: T) => void;
  options: (T | [T, string])[];
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onValue((e.target as HTMLSelectElement).value as T)}>
        {options.map((o) => {
          const [v, text] = Array.isArray(o) ? o : [o, o];
          return (
            <option key={v} value={v}>
              {text}
            </option>
          );
        })}
      </select>
    </div>
  );
}

export function ErrorLine({ error }: { error?: ApiError | string | null }) {
  if (!error) return null;
  const text = typeof error === 'string' ? error : `${error.message}${error.param ? ` (${error.param})` : ''}`;
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

/** A JSON value, indented; focusable, so a keyboard can scroll a long one. */
export const Json = ({ value }: { value: unknown }) => (
  <pre class="json" tabIndex={0}>
    {JSON.stringify(value, null, 2)}
  </pre>
);

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="page-header">
      <h1 tabIndex={-1} id="page-title">
        {title}
      </h1>
      {children}
    </div>
  );
}

/** "in 4 min 10 s" / "3 min ago", refreshed every second. */
export function useNow(everyMs = 1000) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}

export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${m % 60} min`;
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** Runs an API call with a busy flag and its error, for forms. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | string | null>(null);
  const run = async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
