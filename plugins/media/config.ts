import { Type, type Static } from '@sinclair/typebox';

/** media's settings (its own module: the plugin's files read the type without importing the declaration). */
export const MediaConfig = Type.Object({
  data_dir: Type.String({ env: 'SVC_DATA_DIR', default: './data', description: 'Media bytes are kept under <data dir>/media.' }),
  limits: Type.String({
    env: 'SVC_MEDIA_LIMITS',
    default: '',
    description: "Plan limits overriding core/plans.ts: 'plan=uploadMiB:storageGiB,...' (free=10:1).",
  }),
  signed_url_ttl_s: Type.Integer({ env: 'SVC_MEDIA_SIGNED_URL_TTL_S', minimum: 1, maximum: 604_800, default: 3600 }),
  s3_bucket: Type.String({
    env: 'SVC_S3_BUCKET',
    default: '',
    description: 'Keep media bytes in this S3-compatible bucket instead of the data directory.',
  }),
  s3_endpoint: Type.String({ env: 'SVC_S3_ENDPOINT', default: '', description: 'The S3 endpoint (default AWS; set for MinIO, R2 and the like).' }),
  s3_region: Type.String({ env: 'SVC_S3_REGION', default: '' }),
  s3_access_key_id: Type.String({ env: 'SVC_S3_ACCESS_KEY_ID', default: '' }),
  s3_secret_access_key: Type.String({ env: 'SVC_S3_SECRET_ACCESS_KEY', default: '' }),
  fetch_timeout_s: Type.Number({ exclusiveMinimum: 0, maximum: 300, default: 60, description: 'How long a source_url download may take.' }),
});
export type MediaConfig = Static<typeof MediaConfig>;
