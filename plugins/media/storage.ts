import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { errors, fail } from '../../core/sdk';
import type { MediaConfig } from './config';

/**
 * Where an asset's bytes live: under the data directory, or in an S3-compatible bucket when
 * SVC_S3_BUCKET is set (Bun's built-in S3 client, so the compiled binary needs nothing more). The
 * key is `media/<store>/<asset>` in both. URLs stay svc's either way: the bucket is never public.
 */
export interface ByteStore {
  put(storeId: string, id: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The bytes, or a 404 when they are gone. */
  get(storeId: string, id: string): Promise<Uint8Array<ArrayBuffer>>;
  /** Removes the bytes; nothing there is not an error. */
  remove(storeId: string, id: string): Promise<void>;
}

const keyOf = (storeId: string, id: string) => `media/${storeId}/${id}`;
const gone = () => errors.notFound('media asset', 'id');

function diskStore(dir: string): ByteStore {
  const pathOf = (storeId: string, id: string) => join(dir, keyOf(storeId, id));
  return {
    async put(storeId, id, bytes) {
      await mkdir(join(dir, 'media', storeId), { recursive: true });
      await Bun.write(pathOf(storeId, id), bytes);
    },
    get: (storeId, id) =>
      Bun.file(pathOf(storeId, id))
        .bytes()
        .catch(() => {
          throw gone();
        }),
    remove: (storeId, id) => rm(pathOf(storeId, id), { force: true }),
  };
}

/** A bucket that does not answer is a 502 naming it: the request failed upstream, nothing was kept. */
const unreachable = (bucket: string, e: unknown) =>
  fail('provider_error', `The media bucket '${bucket}' did not answer: ${(e as Error).message ?? e}.`);

function s3Store(c: MediaConfig): ByteStore {
  const client = new Bun.S3Client({
    bucket: c.s3_bucket,
    endpoint: c.s3_endpoint || undefined,
    region: c.s3_region || undefined,
    accessKeyId: c.s3_access_key_id || undefined,
    secretAccessKey: c.s3_secret_access_key || undefined,
  });
  return {
    async put(storeId, id, bytes, contentType) {
      await client.write(keyOf(storeId, id), bytes, { type: contentType }).catch((e) => {
        throw unreachable(c.s3_bucket, e);
      });
    },
    async get(storeId, id) {
      try {
        return await client.file(keyOf(storeId, id)).bytes();
      } catch (e) {
        if ((e as { code?: string }).code === 'NoSuchKey') throw gone();
        throw unreachable(c.s3_bucket, e);
      }
    },
    async remove(storeId, id) {
      await client.delete(keyOf(storeId, id)).catch((e) => {
        if ((e as { code?: string }).code !== 'NoSuchKey') throw unreachable(c.s3_bucket, e);
      });
    },
  };
}

const stores = new Map<string, ByteStore>();

/** The store for this configuration (one per configuration, so the S3 client's connections are reused). */
export function byteStore(c: MediaConfig): ByteStore {
  const key = JSON.stringify([c.data_dir, c.s3_bucket, c.s3_endpoint, c.s3_region, c.s3_access_key_id]);
  let s = stores.get(key);
  if (!s) stores.set(key, (s = c.s3_bucket ? s3Store(c) : diskStore(c.data_dir)));
  return s;
}
