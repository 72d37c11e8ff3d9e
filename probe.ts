import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { renderPng, contrastOnWhite, decodeLogo } from './plugins/qr_codes/image';
const text = 'http://svc.test/s/' + 'A'.repeat(64);
const logoPng = new PNG({ width: 40, height: 40 }); for (let i = 0; i < logoPng.data.length; i += 4) { logoPng.data[i] = 200; logoPng.data[i+1] = 30; logoPng.data[i+2] = 30; logoPng.data[i+3] = 255; }
const logo = decodeLogo(PNG.sync.write(logoPng));
for (const size of [64, 100, 150, 300, 1024, 2048]) for (const color of ['#000000', '#1a73e8', '#e91e63', '#767676']) for (const l of [undefined, logo]) {
  const buf = renderPng(text, { size, color, logo: l });
  const img = PNG.sync.read(buf);
  const r = jsQR(new Uint8ClampedArray(img.data), img.width, img.height);
  if (r?.data !== text) console.log('FAIL', size, color, !!l, contrastOnWhite(color).toFixed(2));
}
console.log('done', contrastOnWhite('#1a73e8'), contrastOnWhite('#ffff00'), contrastOnWhite('#767676'), contrastOnWhite('#aaaaaa'));
