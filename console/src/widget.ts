/**
 * The webchat widget (issue 27, SPEC 2.4 channel `webchat`). A storefront adds one tag:
 *
 *   <script src="{base_url}/widget.js" data-store="STORE_ID" data-agent="AGENT_ID" data-key="svc_pub_..." async></script>
 *
 * It opens a chat button in the corner; replies stream from POST {base_url}/v1/webchat/chat. The
 * visitor's id, the conversation and its transcript stay in this browser (localStorage, per agent),
 * so the chat continues across page loads. It lives in a shadow root: the shop's styles and ours
 * never meet. Everything shown is set as text, never as HTML.
 */
import { readEvents } from './sse';

const script = document.currentScript as HTMLScriptElement | null;

interface Saved {
  visitor: string;
  conversation?: string;
  transcript: { who: 'me' | 'agent' | 'note'; text: string }[];
}

function start(tag: HTMLScriptElement) {
  const base = new URL(tag.src).origin;
  const agent = tag.dataset.agent ?? '';
  const key = tag.dataset.key ?? '';
  const title = tag.dataset.title ?? 'Chat with us';
  const storageKey = `svc-webchat:${tag.dataset.store ?? ''}:${agent}`;
  const load = (): Saved => {
    try {
      const s = JSON.parse(localStorage.getItem(storageKey) ?? '');
      if (s && typeof s.visitor === 'string' && Array.isArray(s.transcript)) return s;
    } catch {}
    const bytes = crypto.getRandomValues(new Uint8Array(18));
    return { visitor: Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(''), transcript: [] };
  };
  const saved = load();
  const save = () => {
    saved.transcript = saved.transcript.slice(-100);
    try {
      localStorage.setItem(storageKey, JSON.stringify(saved));
    } catch {}
  };

  const host = document.createElement('div');
  host.setAttribute('data-svc-webchat', '');
  const root = host.attachShadow({ mode: 'open' });
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(`
    :host { all: initial; }
    .open { position: fixed; right: 16px; bottom: 16px; z-index: 2147483000; font: 15px system-ui, sans-serif; background: #0b57d0; color: #fff;
      border: none; border-radius: 999px; padding: 12px 18px; cursor: pointer; box-shadow: 0 2px 8px rgba(0,0,0,.3); }
    .panel { position: fixed; right: 16px; bottom: 16px; z-index: 2147483001; width: min(360px, calc(100vw - 32px)); height: min(520px, calc(100vh - 32px));
      display: flex; flex-direction: column; background: #fff; color: #1b1f24; font: 15px/1.4 system-ui, sans-serif; border-radius: 12px;
      box-shadow: 0 4px 24px rgba(0,0,0,.3); overflow: hidden; }
    .panel[hidden] { display: none; }
    header { display: flex; align-items: center; justify-content: space-between; padding: 10px 14px; background: #15202b; color: #fff; }
    header h2 { font-size: 16px; margin: 0; }
    header button { background: transparent; color: #fff; border: 1px solid #8b98a5; border-radius: 6px; padding: 4px 10px; cursor: pointer; font: inherit; }
    .log { flex: 1; overflow-y: auto; padding: 12px; display: flex; flex-direction: column; gap: 8px; }
    .msg { max-width: 85%; padding: 8px 12px; border-radius: 12px; white-space: pre-wrap; word-wrap: break-word; }
    .me { align-self: flex-end; background: #0b57d0; color: #fff; }
    .agent { align-self: flex-start; background: #eef1f5; }
    .note { align-self: center; color: #a3261e; font-size: 13px; }
    form { display: flex; gap: 8px; padding: 10px; border-top: 1px solid #c9d0d8; }
    input { flex: 1; font: inherit; padding: 8px; border: 1px solid #7d8793; border-radius: 6px; }
    form button { font: inherit; background: #0b57d0; color: #fff; border: none; border-radius: 6px; padding: 8px 14px; cursor: pointer; }
    button:disabled { opacity: .6; }
    :focus-visible { outline: 3px solid #e8a200; outline-offset: 2px; }
  `);
  root.adoptedStyleSheets = [sheet];

  const el = <K extends keyof HTMLElementTagNameMap>(tagName: K, props: Record<string, string> = {}, text?: string) => {
    const node = document.createElement(tagName);
    for (const [k, v] of Object.entries(props)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const opener = el('button', { class: 'open', type: 'button', 'aria-haspopup': 'dialog' }, title);
  const panel = el('section', { class: 'panel', role: 'dialog', 'aria-label': title });
  panel.hidden = true;
  const header = el('header');
  header.append(el('h2', {}, title));
  const close = el('button', { type: 'button', 'aria-label': 'Close the chat' }, 'Close');
  header.append(close);
  const log = el('div', { class: 'log', role: 'log', 'aria-live': 'polite' });
  const form = el('form');
  const label = el('label', { class: 'sr', for: 'svc-webchat-input' });
  label.textContent = 'Your message';
  label.style.position = 'absolute';
  label.style.left = '-9999px';
  const input = el('input', { id: 'svc-webchat-input', autocomplete: 'off', maxlength: '4000', placeholder: 'Type a message' });
  const send = el('button', { type: 'submit' }, 'Send');
  form.append(label, input, send);
  panel.append(header, log, form);
  root.append(opener, panel);
  document.body.append(host);

  const bubble = (who: Saved['transcript'][number]['who'], text: string) => {
    const node = el('div', { class: `msg ${who}` }, text);
    log.append(node);
    log.scrollTop = log.scrollHeight;
    return node;
  };
  for (const m of saved.transcript) bubble(m.who, m.text);

  const show = (open: boolean) => {
    panel.hidden = !open;
    opener.hidden = open;
    (open ? input : opener).focus();
  };
  opener.addEventListener('click', () => show(true));
  close.addEventListener('click', () => show(false));
  panel.addEventListener('keydown', (e) => e.key === 'Escape' && show(false));

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const message = input.value.trim();
    if (!message) return;
    input.value = '';
    send.disabled = true;
    bubble('me', message);
    saved.transcript.push({ who: 'me', text: message });
    save();
    const reply = bubble('agent', '…');
    let text = '';
    const fail = (why: string) => {
      reply.remove();
      bubble('note', why);
      saved.transcript.push({ who: 'note', text: why });
    };
    try {
      // text/plain and no custom header: a CORS simple request (no preflight); the server checks the Origin.
      const res = await fetch(`${base}/v1/webchat/chat`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ key, agent_id: agent, visitor_id: saved.visitor, message, conversation_id: saved.conversation }),
      });
      if (!res.ok || !res.body) {
        const body = await res.json().catch(() => null);
        if (res.status === 404 && body?.error?.param === 'conversation_id') saved.conversation = undefined;
        return fail(body?.error?.message ?? 'The chat is not available right now.');
      }
      saved.conversation = res.headers.get('x-conversation-id') ?? saved.conversation;
      await readEvents(res.body, (ev) => {
        if (ev.type === 'text') reply.textContent = text += ev.text;
        else if (ev.type === 'approval_required') reply.textContent = (text ? text + '\n' : '') + 'One moment: a person is checking this.';
        else if (ev.type === 'error') text += (text ? '\n' : '') + ev.message;
        log.scrollTop = log.scrollHeight;
      });
      reply.textContent = text || '…';
      saved.transcript.push({ who: 'agent', text });
    } catch {
      fail('The chat is not available right now.');
    } finally {
      save();
      send.disabled = false;
      input.focus();
    }
  });
}

if (script?.src) {
  if (document.body) start(script);
  else document.addEventListener('DOMContentLoaded', () => start(script));
}
