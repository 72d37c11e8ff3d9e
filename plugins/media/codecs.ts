// The image codecs, WebAssembly (sharp's native addon does not load in the compiled binary). Each
// .wasm is imported as a file so `bun build --compile` embeds it, and handed to its library as a
// compiled module: the libraries' own lookup (a URL beside their .js) finds nothing in the binary.
// @ts-expect-error the package's own .wasm.d.ts describes the module, not Bun's file import (a path)
import pngWasm from '../../node_modules/@jsquash/png/codec/pkg/squoosh_png_bg.wasm' with { type: 'file' };
import jpegDecWasm from '../../node_modules/@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm' with { type: 'file' };
import jpegEncWasm from '../../node_modules/@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm' with { type: 'file' };
import webpDecWasm from '../../node_modules/@jsquash/webp/codec/dec/webp_dec.wasm' with { type: 'file' };
import webpEncWasm from '../../node_modules/@jsquash/webp/codec/enc/webp_enc_simd.wasm' with { type: 'file' };
// @ts-expect-error as above
import resizeWasm from '../../node_modules/@jsquash/resize/lib/resize/pkg/squoosh_resize_bg.wasm' with { type: 'file' };

export type ImageFormat = 'png' | 'jpeg' | 'webp';

export interface Pixels {
  data: Uint8ClampedArray;
  width: number;
  height: number;
  colorSpace?: string;
}

const compile = async (path: string) => new WebAssembly.Module(await Bun.file(path).arrayBuffer());

/** Each codec is loaded once, at its first use (most processes transform nothing). */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= load().catch((e) => ((p = undefined), Promise.reject(e))));
}

const png = once(async () => {
  const [dec, enc] = [await import('@jsquash/png/decode'), await import('@jsquash/png/encode')];
  const m = await compile(pngWasm);
  await dec.init(m);
  await enc.init(m);
  return { decode: dec.default, encode: enc.default };
});
const jpeg = once(async () => {
  const [dec, enc] = [await import('@jsquash/jpeg/decode'), await import('@jsquash/jpeg/encode')];
  await dec.init(await compile(jpegDecWasm));
  await (enc.init as (m: WebAssembly.Module) => Promise<unknown>)(await compile(jpegEncWasm));
  return { decode: dec.default, encode: enc.default };
});
const webp = once(async () => {
  const [dec, enc] = [await import('@jsquash/webp/decode'), await import('@jsquash/webp/encode')];
  await (dec.init as (m: WebAssembly.Module) => Promise<unknown>)(await compile(webpDecWasm));
  await (enc.init as (m: WebAssembly.Module) => Promise<unknown>)(await compile(webpEncWasm));
  return { decode: dec.default, encode: enc.default };
});
const resizer = once(async () => {
  const r = await import('@jsquash/resize');
  await r.initResize(await compile(resizeWasm));
  return r.default;
});

const codecs = { png, jpeg, webp };

export async function decodeImage(format: ImageFormat, bytes: Uint8Array): Promise<Pixels> {
  const c = await codecs[format]();
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return (await c.decode(buf)) as Pixels;
}

export async function encodeImage(format: ImageFormat, px: Pixels, quality: number): Promise<Uint8Array<ArrayBuffer>> {
  const img = px as unknown as ImageData;
  if (format === 'png') return new Uint8Array(await (await png()).encode(img));
  if (format === 'jpeg') return new Uint8Array(await (await jpeg()).encode(img, { quality }));
  return new Uint8Array(await (await webp()).encode(img, { quality }));
}

export async function resizePixels(px: Pixels, width: number, height: number): Promise<Pixels> {
  if (px.width === width && px.height === height) return px;
  const resize = await resizer();
  return (await resize(px as unknown as ImageData, { width, height, fitMethod: 'stretch', method: 'lanczos3' })) as unknown as Pixels;
}

/** A rectangle cut out of the pixels (RGBA rows). */
export function cropPixels(px: Pixels, x: number, y: number, width: number, height: number): Pixels {
  const out = new Uint8ClampedArray(width * height * 4);
  for (let row = 0; row < height; row++) {
    const from = ((y + row) * px.width + x) * 4;
    out.set(px.data.subarray(from, from + width * 4), row * width * 4);
  }
  return { data: out, width, height };
}
