/** A file's type from its first bytes (the name and the sender's Content-Type are not trusted). */
export function sniff(b: Uint8Array): { type: string; ext: string } {
  const at = (i: number, sig: number[]) => sig.every((v, k) => b[i + k] === v);
  const ascii = (i: number, s: string) =>
    at(
      i,
      [...s].map((c) => c.charCodeAt(0)),
    );
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { type: 'image/png', ext: 'png' };
  if (at(0, [0xff, 0xd8, 0xff])) return { type: 'image/jpeg', ext: 'jpg' };
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return { type: 'image/webp', ext: 'webp' };
  if (ascii(0, 'GIF87a') || ascii(0, 'GIF89a')) return { type: 'image/gif', ext: 'gif' };
  if (ascii(0, '%PDF-')) return { type: 'application/pdf', ext: 'pdf' };
  if (ascii(4, 'ftyp')) return ascii(8, 'avif') ? { type: 'image/avif', ext: 'avif' } : { type: 'video/mp4', ext: 'mp4' };
  if (at(0, [0x1a, 0x45, 0xdf, 0xa3])) return { type: 'video/webm', ext: 'webm' };
  if (at(0, [0x50, 0x4b, 0x03, 0x04])) return { type: 'application/zip', ext: 'zip' };
  if (ascii(0, 'ID3') || at(0, [0xff, 0xfb])) return { type: 'audio/mpeg', ext: 'mp3' };
  const head = new TextDecoder().decode(b.subarray(0, 512)).trimStart().toLowerCase();
  // SVG is served as an attachment-safe type below: a script inside it must not run on svc's origin.
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return { type: 'image/svg+xml', ext: 'svg' };
  if (!b.subarray(0, 4096).includes(0)) return { type: 'text/plain', ext: 'txt' };
  return { type: 'application/octet-stream', ext: 'bin' };
}

/** Image dimensions from the header, for the types the codecs read. */
export function dimensions(b: Uint8Array, type: string): { width: number; height: number } | null {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  try {
    if (type === 'image/png') return { width: v.getUint32(16), height: v.getUint32(20) };
    if (type === 'image/jpeg') {
      let i = 2;
      while (i + 9 < b.length) {
        if (b[i] !== 0xff) return null;
        const marker = b[i + 1];
        const len = v.getUint16(i + 2);
        if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
          return { width: v.getUint16(i + 7), height: v.getUint16(i + 5) };
        i += 2 + len;
      }
    }
  } catch {
    return null;
  }
  return null;
}
