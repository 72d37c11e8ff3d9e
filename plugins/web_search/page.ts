import { egressFetch, errors, type Ctx } from '../../core/sdk';

/** The HTML libraries, loaded at the first page read rather than when svc starts (most processes read none). */
const html = () =>
  Promise.all([import('linkedom'), import('@mozilla/readability'), import('node-html-markdown')]).then(([l, r, m]) => ({
    parseHTML: l.parseHTML,
    Readability: r.Readability,
    NodeHtmlMarkdown: m.NodeHtmlMarkdown,
  }));

/** The most of a page fetch_page reads (the rest is cut and `truncated` set). */
export const MAX_PAGE_BYTES = 2 * 1024 * 1024;

export interface Page {
  url: string;
  status: number;
  content_type: string;
  title: string;
  html?: string;
  markdown: string;
  truncated: boolean;
}

const isHtml = (type: string) => /^(text\/html|application\/xhtml\+xml)/i.test(type);

/**
 * A page the caller named, through the egress guard (a store's or a request's URL: private and
 * loopback addresses are refused unless SVC_EGRESS_ALLOW opens them), at most 2 MiB within the
 * timeout. HTML becomes readable markdown: the article Readability finds (menus, scripts and
 * footers left out), else the whole body.
 */
export async function fetchPage(ctx: Ctx, url: string): Promise<Page> {
  const res = await egressFetch(url, {
    timeoutMs: (ctx.config.fetch_timeout_s as number) * 1000,
    maxBytes: MAX_PAGE_BYTES,
    purpose: 'page',
    headers: { accept: 'text/html, text/plain;q=0.9, */*;q=0.1', 'user-agent': 'svc-web-search/1' },
    signal: ctx.shutdown,
  });
  const type = res.headers.get('content-type') ?? '';
  const text = res.text();
  const base = { url: res.url, status: res.status, content_type: type.split(';')[0].trim(), truncated: res.truncated };
  if (isHtml(type) || (!type && /^\s*</.test(text))) {
    const { title, markdown } = await readable(text, res.url);
    return { ...base, title, markdown, html: text };
  }
  if (/^text\//i.test(type) || /json|xml/i.test(type)) return { ...base, title: '', markdown: text };
  throw errors.validation(`The page at ${res.url} is ${base.content_type || 'of no stated type'}, not text or HTML.`, 'url');
}

/** The page's title and its readable part as markdown. */
async function readable(page: string, url: string): Promise<{ title: string; markdown: string }> {
  const { parseHTML, Readability, NodeHtmlMarkdown } = await html();
  const { document } = parseHTML(page);
  const title = (document.querySelector('title')?.textContent ?? '').trim();
  let content = '';
  try {
    // Readability changes the document it reads: it is given its own copy.
    content = new Readability(parseHTML(page).document as unknown as Document).parse()?.content ?? '';
  } catch {
    content = '';
  }
  if (!content.trim()) {
    for (const el of document.querySelectorAll('script, style, noscript, template')) el.remove();
    content = document.body?.innerHTML ?? page;
  }
  const markdown = NodeHtmlMarkdown.translate(content, {}, undefined, undefined).trim();
  return { title, markdown: absoluteLinks(markdown, url) };
}

/** Relative links of the markdown made absolute against the page's URL. */
function absoluteLinks(markdown: string, base: string): string {
  return markdown.replace(/\]\(([^)\s]+)\)/g, (whole, href: string) => {
    try {
      return `](${new URL(href, base).href})`;
    } catch {
      return whole;
    }
  });
}

/** Each selector's matches, as their text (trimmed, empty ones left out); a selector the parser refuses is a 400 naming it. */
export async function selectText(page: string, selectors: Record<string, string>): Promise<Record<string, string[]>> {
  const { parseHTML } = await html();
  const { document } = parseHTML(page);
  const out: Record<string, string[]> = {};
  for (const [name, css] of Object.entries(selectors)) {
    let found: Element[];
    try {
      found = [...document.querySelectorAll(css)] as unknown as Element[];
    } catch {
      throw errors.validation(`selectors.${name}: '${css}' is not a CSS selector this server understands.`, `selectors.${name}`);
    }
    out[name] = found.map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim()).filter(Boolean);
  }
  return out;
}
