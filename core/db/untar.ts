import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/**
 * Unpacks a gzipped tar (the seed archive, core/db/seed.ts) into `dir` as it is read: a chunk of
 * the inflated stream is written to its file and dropped, so what is held at once is one chunk,
 * not the 40 MB tar (PGlite's own `loadDataDir` inflates it whole, then copies it into one array:
 * docs/footprint.md). Only what PGlite's `dumpDataDir` writes is understood: regular files and
 * folders, ustar headers, names under 100 characters or split by the ustar prefix.
 */
export async function untarGz(archive: Blob, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const header = new Uint8Array(512);
  let filled = 0; // bytes of the next header read so far
  let fd = -1;
  let left = 0; // bytes of the current file still to write
  let skip = 0; // padding after it, to the next 512-byte record
  let ended = false;
  const reader = archive.stream().pipeThrough(new DecompressionStream('gzip')).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let at = 0;
      while (at < value.length && !ended) {
        if (left > 0) {
          const n = writeSync(fd, value, at, Math.min(left, value.length - at));
          at += n;
          left -= n;
          if (left === 0) fd = close(fd);
        } else if (skip > 0) {
          const n = Math.min(skip, value.length - at);
          at += n;
          skip -= n;
        } else {
          const n = Math.min(512 - filled, value.length - at);
          header.set(value.subarray(at, at + n), filled);
          filled += n;
          at += n;
          if (filled < 512) continue;
          filled = 0;
          if (header.every((b) => b === 0))
            ended = true; // the end-of-archive record
          else [fd, left, skip] = entry(header, dir);
        }
      }
    }
  } finally {
    close(fd);
    reader.releaseLock();
  }
  if (!ended || left > 0) throw new Error('the seed archive ends early');
}

function close(fd: number) {
  if (fd >= 0) closeSync(fd);
  return -1;
}

const text = (h: Uint8Array, from: number, len: number) => {
  const end = h.indexOf(0, from);
  return new TextDecoder().decode(h.subarray(from, end < 0 || end > from + len ? from + len : end));
};

/** Makes the folder or opens the file a header names; returns the open file, its size and its padding. */
function entry(h: Uint8Array, dir: string): [number, number, number] {
  let sum = 256; // the checksum counts its own field as spaces
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0 : h[i]!;
  if (sum !== parseInt(text(h, 148, 8).trim(), 8)) throw new Error('the seed archive is corrupt (header checksum)');
  const prefix = text(h, 257, 6) === 'ustar' ? text(h, 345, 155) : '';
  const name = normalize((prefix ? `${prefix}/` : '') + text(h, 0, 100)).replace(/^\/+/, '');
  if (name.startsWith('..')) throw new Error(`the seed archive names a path outside its folder: ${name}`);
  const path = join(dir, name);
  const size = parseInt(text(h, 124, 12).trim() || '0', 8);
  const type = h[156];
  if (type === 0x35 /* '5' */) {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    return [-1, 0, 0];
  }
  if (type !== 0x30 /* '0' */ && type !== 0) throw new Error(`the seed archive holds an entry of type ${type} (${name})`);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const fd = openSync(path, 'w', 0o600);
  return [size > 0 ? fd : close(fd), size, (512 - (size % 512)) % 512];
}
