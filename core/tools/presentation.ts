import type { ToolAnnotations, Icon } from '@modelcontextprotocol/sdk/types.js';
import type { ActionDef, PluginDef } from '../plugins/contract';

/**
 * How a tool shows in an MCP client (2025-11-25 titles and icons, issue 51): each category a title
 * a person reads ("Products", "API keys") and one small SVG icon, its initials on its category's
 * colour; each action annotations a client can act on (ask before a destructive call, retry an
 * idempotent one). Derived from the declarations, so a new plugin has them without writing any.
 */

const WORDS: Record<string, string> = { api: 'API', mgmt: 'management', bg: 'background', llm: 'LLM', qr: 'QR', svc: 'svc' };

/** `webhooks_mgmt` → "Webhooks management", `api_keys` → "API keys", `svc_login` → "svc login". */
export function titleOf(name: string): string {
  const words = name.split('_').map((w) => WORDS[w] ?? w);
  const first = words[0];
  if (first !== 'svc' && first.toUpperCase() !== first) words[0] = first[0].toUpperCase() + first.slice(1);
  return words.join(' ');
}

const COLOURS: Record<string, string> = {
  commerce: '#2563eb',
  intelligence: '#7c3aed',
  marketing: '#db2777',
  content: '#ea580c',
  platform: '#475569',
  operations: '#059669',
};

const icons = new Map<string, Icon[]>();

/** The category's one icon: an SVG data: URI (a few hundred bytes; clients must show SVG safely). */
export function iconsOf(plugin: Pick<PluginDef, 'name' | 'category'>): Icon[] {
  let found = icons.get(plugin.name);
  if (!found) {
    const parts = plugin.name.split('_');
    const initials = (parts.length > 1 ? parts[0][0] + parts[1][0] : plugin.name.slice(0, 2)).toUpperCase();
    const fill = COLOURS[plugin.category ?? ''] ?? '#334155';
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"><rect width="48" height="48" rx="10" fill="${fill}"/>` +
      `<text x="24" y="31" font-family="Helvetica,Arial,sans-serif" font-size="19" font-weight="700" fill="#fff" text-anchor="middle">${initials}</text></svg>`;
    found = [{ src: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`, mimeType: 'image/svg+xml', sizes: ['any'] }];
    icons.set(plugin.name, found);
  }
  return found;
}

// Actions whose name says they end or take something away, whatever kind the plugin gave them.
const DESTRUCTIVE = /^(delete|cancel|revoke|deactivate|archive|terminate|remove_(?!background)|logout)(_|$)/;
// Writes a repeat of with the same input leaves as the first left them.
const IDEMPOTENT =
  /^(update|set|mark|move|approve|reject|deactivate|delete|archive|cancel|revoke|terminate|switch|pause|close|verify|assign|edit|respond|subscribe|logout)(_|$)/;

/** One action's hints: reads are read-only; writes say whether they destroy and whether a repeat is harmless (creates are not). */
export function actionAnnotations(name: string, action: Pick<ActionDef, 'kind' | 'external'>): ToolAnnotations {
  // external: the action waits on something outside svc (a web page, a model, a phone network).
  const openWorldHint = Boolean(action.external);
  if (action.kind === 'read') return { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint };
  return {
    readOnlyHint: false,
    destructiveHint: action.kind === 'destructive' || DESTRUCTIVE.test(name),
    idempotentHint: !name.startsWith('create') && IDEMPOTENT.test(name),
    openWorldHint,
  };
}

/** A category's hints over its actions: read-only if all are, destructive if any is, idempotent if all are. */
export function groupAnnotations(actions: [string, Pick<ActionDef, 'kind' | 'external'>][]): ToolAnnotations {
  const each = actions.map(([n, a]) => actionAnnotations(n, a));
  return {
    readOnlyHint: each.every((a) => a.readOnlyHint),
    destructiveHint: each.some((a) => a.destructiveHint),
    idempotentHint: each.every((a) => a.idempotentHint),
    openWorldHint: each.some((a) => a.openWorldHint),
  };
}
