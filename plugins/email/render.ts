import { errors, lazy } from '../../core/sdk';

/**
 * Handlebars for templates: one isolated instance (no helper a plugin registers elsewhere leaks
 * in), HTML-escaped output for `html`, plain output for `subject` and `text` (mail clients show
 * them as text, so `&amp;` there would be visible).
 */
// Loaded at the first template checked or rendered (docs/footprint.md: libraries load on first use).
const hb = lazy(() => (require('handlebars') as typeof import('handlebars')).create());

export type Field = 'subject' | 'html' | 'text';

// A template version never changes, so its compiled form is cached under (id, version, field).
// Bounded: past the cap the oldest entries go (Map keeps insertion order).
const CACHE_MAX = 5000;
const compiled = new Map<string, HandlebarsTemplateDelegate>();

function compileCached(key: string, source: string, field: Field): HandlebarsTemplateDelegate {
  let fn = compiled.get(key);
  if (!fn) {
    checkSyntax(source, field);
    fn = hb().compile(source, { noEscape: field !== 'html', strict: false, knownHelpersOnly: false });
    if (compiled.size >= CACHE_MAX) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, fn);
  }
  return fn;
}

/** Parses `source`, or throws 400 naming the field with the line and column of the error. */
export function checkSyntax(source: string, field: Field): hbs.AST.Program {
  try {
    return hb().parse(source);
  } catch (e) {
    const at = locate(source, e as Error & { lineNumber?: number; column?: number });
    const detail = firstLine((e as Error).message);
    throw errors.validation(`Template syntax error in ${field} at line ${at.line}, column ${at.column}: ${detail}`, field);
  }
}

const firstLine = (m: string) => {
  const expecting = /Expecting [^\n]*/.exec(m)?.[0];
  return expecting ? `unexpected input (${expecting.slice(0, 120)})` : m.split('\n')[0].replace(/ - \d+:\d+$/, '');
};

/**
 * Line and column (1-based) of a Handlebars error. Block mismatches carry them; the parser's
 * errors only say "on line N" and show the consumed input before a caret, so the column is where
 * that consumed text ends on the line.
 */
function locate(source: string, e: Error & { lineNumber?: number; column?: number }): { line: number; column: number } {
  if (typeof e.lineNumber === 'number') return { line: e.lineNumber, column: (e.column ?? 0) + 1 };
  const line = Number(/on line (\d+)/.exec(e.message)?.[1] ?? 1);
  const [, excerpt = '', caret = ''] = e.message.split('\n');
  let past = excerpt.slice(0, Math.max(0, caret.indexOf('^')));
  if (past.startsWith('...')) past = past.slice(3);
  const text = source.split('\n')[line - 1] ?? '';
  for (let p = text.length; p > 0; p--) {
    const head = text.slice(0, p);
    if (past.endsWith(head) || head.endsWith(past)) return { line, column: p + 1 };
  }
  return { line, column: 1 };
}

/** Renders one field of a template version. */
export function renderField(cacheKey: string, field: Field, source: string, variables: Record<string, unknown>): string {
  return compileCached(`${cacheKey}:${field}`, source, field)(variables, { allowProtoPropertiesByDefault: false });
}

const BLOCK_SCOPES = new Set(['each', 'with']);
const BUILTIN_HELPERS = new Set(['if', 'unless', 'each', 'with', 'lookup', 'log']);

/**
 * The top-level variable paths a template reads (`customer.name`, `order.items`): paths inside
 * `#each`/`#with` blocks are relative to their item, so only the block's own argument counts.
 */
export function variablesOf(source: string): string[] {
  const found = new Set<string>();
  const visit = (node: any, inScope: boolean): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach((n) => visit(n, inScope));
    switch (node.type) {
      case 'Program':
        return visit(node.body, inScope);
      case 'MustacheStatement':
      case 'SubExpression':
      case 'BlockStatement': {
        const name = node.path?.original;
        const isHelper = node.params?.length > 0 || BUILTIN_HELPERS.has(name);
        if (!isHelper) path(node.path, inScope);
        for (const p of node.params ?? []) (path(p, inScope), visit(p, inScope));
        for (const pair of node.hash?.pairs ?? []) path(pair.value, inScope);
        const scoped = inScope || BLOCK_SCOPES.has(name) || (node.type === 'BlockStatement' && !isHelper);
        visit(node.program, scoped);
        visit(node.inverse, inScope);
        return;
      }
    }
  };
  const path = (p: any, inScope: boolean) => {
    if (inScope || p?.type !== 'PathExpression' || p.data || p.original === 'this' || p.depth > 0) return;
    found.add(p.parts.join('.'));
  };
  visit(hb().parse(source), false);
  return [...found];
}

/** Which of `paths` have no value in `variables` (null counts as given). */
export function missingVariables(paths: string[], variables: Record<string, unknown>): string[] {
  return paths.filter((p) => {
    let v: unknown = variables;
    for (const part of p.split('.')) {
      if (v === null || typeof v !== 'object' || !Object.hasOwn(v, part)) return true;
      v = (v as Record<string, unknown>)[part];
    }
    return v === undefined;
  });
}
