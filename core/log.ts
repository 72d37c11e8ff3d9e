/**
 * Structured logging: one JSON object per line on stderr (stdout belongs to the CLI's output and
 * to the stdio MCP bridge). Every line of a request carries its request id, so an operator can
 * follow one call across plugins. Errors are logged as their message and a short cause, never a
 * source frame, and secrets never reach a log call (callers log ids and codes, not bodies).
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose lines also carry these fields (request_id, plugin ...). */
  child(fields: LogFields): Logger;
}

export type LogSink = (line: string) => void;

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** An error as log fields: its message (and code), never its stack. */
export function errorFields(err: unknown): LogFields {
  if (err instanceof Error) return { error: err.message, ...((err as any).code ? { code: (err as any).code } : {}) };
  return { error: String(err) };
}

/** One JSON line; BigInts as decimal text, a value met again inside itself as "[Circular]". */
function logLine(record: LogFields): string {
  const ancestors: object[] = [];
  try {
    return JSON.stringify(record, function (this: unknown, _key, value) {
      if (typeof value === 'bigint') return value.toString();
      if (typeof value !== 'object' || value === null) return value;
      // `this` is the object holding `value`: drop ancestors we have climbed back out of.
      while (ancestors.length && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(value)) return '[Circular]';
      ancestors.push(value);
      return value;
    });
  } catch (e) {
    // A toJSON that throws, or anything else JSON refuses: keep the line, say what was lost.
    return JSON.stringify({ time: record.time, level: record.level, msg: record.msg, log_error: e instanceof Error ? e.message : String(e) });
  }
}

export function createLogger(opts: { sink?: LogSink; level?: LogLevel; fields?: LogFields } = {}): Logger {
  const sink = opts.sink ?? ((line) => process.stderr.write(line + '\n'));
  const min = ORDER[opts.level ?? 'info'];
  const make = (base: LogFields): Logger => {
    const write = (level: LogLevel) => (msg: string, fields?: LogFields) => {
      if (ORDER[level] < min) return;
      // A log call never throws: a field JSON cannot hold becomes text, and a failing sink is dropped.
      try {
        sink(logLine({ time: new Date().toISOString(), level, msg, ...base, ...fields }));
      } catch {}
    };
    return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error'), child: (f) => make({ ...base, ...f }) };
  };
  return make(opts.fields ?? {});
}
