import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../core/sdk';

/** One media asset, as every media answer (and image_gen's, remove_bg's) shows it. */
export const Asset = Type.Object({
  object: Type.Literal('media'),
  id: Type.String(),
  filename: Type.String(),
  content_type: Type.String({ description: 'Sniffed from the bytes.' }),
  size: Type.Integer({ description: 'Bytes.' }),
  width: Type.Union([Type.Integer(), Type.Null()]),
  height: Type.Union([Type.Integer(), Type.Null()]),
  visibility: Type.Union([Type.Literal('public'), Type.Literal('private')]),
  source_id: Type.Union([Type.String(), Type.Null()], { description: 'The asset a transform was made from.' }),
  url: Type.String({ description: 'svc serves it: GET /media/<store>/<asset>/<filename>; signed (expires, signature) when private.' }),
  url_expires_at: Type.Union([Timestamp(), Type.Null()]),
  created_at: Timestamp(),
});
