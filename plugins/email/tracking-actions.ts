import { Type } from '@sinclair/typebox';
import { action, onFirstCall, type RestMapping } from '../../core/sdk';

/**
 * The tracking routes' declarations (the open pixel, click redirects, the unsubscribe page and its
 * one-click POST); their handlers are tracking.ts, loaded at the first such request (plugins/README.md).
 */
const { clickRedirect, openPixel, unsubscribe, unsubscribePage } = onFirstCall(() => import('./tracking'));

const Html = Type.Object({}, { additionalProperties: true, description: 'An HTML page, an image or a redirect.' });
const PathOf = (...names: string[]) =>
  Type.Object(Object.fromEntries(names.map((n) => [n, Type.String({ maxLength: 64 })])), { additionalProperties: true });
const pub = (method: 'GET' | 'POST', path: string, contentType: string): RestMapping => ({
  method,
  path,
  auth: 'public',
  scope: 'global',
  response: 'raw',
  contentType,
  // One-click POSTs come form-encoded or multipart (RFC 8058): taken as bytes, whatever they hold.
  ...(method === 'POST' ? { body: 'raw' as const } : {}),
});

export const trackingActions = {
  track_open: action({
    kind: 'read',
    description: 'The open pixel of a sent message (records `opened`).',
    input: PathOf('id', 'file'),
    output: Html,
    rest: pub('GET', '/e/o/:id/:file', 'image/gif'),
    handler: (ctx, input) => openPixel(ctx, input as { id: string; file: string }),
  }),
  track_click: action({
    kind: 'read',
    description: 'A click redirect of a sent message (records `clicked`), only to a URL of that message.',
    input: PathOf('id', 'token', 'n'),
    output: Html,
    rest: pub('GET', '/e/c/:id/:token/:n', 'text/html'),
    handler: (ctx, input) => clickRedirect(ctx, input as { id: string; token: string; n: string }),
  }),
  unsubscribe_page: action({
    kind: 'read',
    description: 'The unsubscribe confirmation page of a message.',
    input: PathOf('id', 'token'),
    output: Html,
    rest: pub('GET', '/e/u/:id/:token', 'text/html'),
    handler: (ctx, input) => unsubscribePage(ctx, input as { id: string; token: string }),
  }),
  unsubscribe: action({
    kind: 'write',
    description: 'Unsubscribe (the page form and RFC 8058 one-click POST): suppresses the address, records `unsubscribed`.',
    input: PathOf('id', 'token'),
    output: Html,
    rest: pub('POST', '/e/u/:id/:token', 'text/html'),
    handler: (ctx, input) => unsubscribe(ctx, input as { id: string; token: string }),
  }),
};
