import { Type, type Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/sdk';
import { FLUSH_MS } from './scan-buffer';

/** The QR plugin's settings: the geo-IP database, how long scans wait to be written together. */
export const QrConfig = Type.Object({
  geoip_db: Type.Optional(
    Type.String({
      env: 'SVC_GEOIP_DB',
      description: 'Path of a MaxMind-format city database (.mmdb) for by_city; without it cities count as unknown.',
    }),
  ),
  scan_flush_ms: Type.Optional(
    Type.Integer({
      env: 'SVC_QR_SCAN_FLUSH_MS',
      minimum: 1,
      maximum: 60_000,
      description: `How long a scan of a code without max_scans may wait in memory for others to be written with (default ${FLUSH_MS} ms). Longer: fewer, larger writes, and more scans lost if the process is killed without a shutdown.`,
    }),
  ),
});

/** A ctx whose settings are the QR plugin's. */
export type QrCtx = Ctx<Static<typeof QrConfig>>;
